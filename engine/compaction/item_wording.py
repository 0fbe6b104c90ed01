"""How a user item is worded in a summary when the ledger's text alone would lose what the user said.

The ledger (docs/capture.md) words an item by its opening: the first sentence of a short message, the agent's offer a
yes confirmed. A continuation needs what the user said after it too: the sentence that says what to do about a
complaint. (A reply that narrows the offer, "yes pls put them into a dist dir instead", is worded by the ledger
itself: engine/capture/approval_order.py.) docs/compaction.md, Retention on real sessions, round 2.
"""

from __future__ import annotations

from typing import Final

from engine.capture.whole_text import flatten

__all__ = ["whole_short_message"]

_SHORT_MESSAGE_CHARS: Final = 300
"""A user message up to this long is carried whole when its one item shows only its opening."""


def whole_short_message(item: str, message: str) -> str:
    """The whole of a short user message (at most :data:`_SHORT_MESSAGE_CHARS`) whose only item is its opening
    sentence: "the philosophy section of the readme is too long..." is the complaint, and the next sentence ("i
    just want a oneliner … citing philosophy.md") says what to do about it, which a continuation needs."""
    full = flatten(message)
    shown = flatten(item)
    if len(full) > _SHORT_MESSAGE_CHARS or len(full) <= len(shown) or not full.startswith(shown.rstrip(".…")):
        return item
    return full

