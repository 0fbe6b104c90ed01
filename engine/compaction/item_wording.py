"""How a user item is worded in a summary when the ledger's text alone would lose what the user said.

The ledger (docs/capture.md) words an item by its opening: the first sentence of a short message, the agent's offer a
yes confirmed. A continuation needs what the user said after it too: the sentence that says what to do about a
complaint, the reply that narrows the offer ("yes pls put them into a dist dir instead"). docs/compaction.md,
Retention on real sessions, round 2.
"""

from __future__ import annotations

import re
from typing import Final

from engine.capture.whole_text import flatten

__all__ = ["whole_short_message", "with_reply"]

_REPLY_CHARS: Final = 120
"""The longest reply a confirmed proposal quotes (a longer one is an instruction of its own in the ledger)."""
_ASSENT: Final = frozenset({
    "yes", "yep", "yeah", "yup", "okay", "sure", "please", "pls", "plz", "thanks", "thank", "you", "that", "this",
    "these", "those", "them", "and", "the", "all", "ahead", "for", "let", "let's", "lets", "sounds", "looks", "good",
    "great", "fine", "perfect", "much", "better", "nice", "cool", "lgtm", "agreed", "correct", "right", "exactly",
    "makes", "sense", "works", "well", "then", "now", "just", "way", "one", "option", "approach", "plan", "idea",
})
"""Words that only assent: a reply made of nothing else ("yes, much better") adds nothing to the offer it
confirms."""
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


def with_reply(item: str, reply: str) -> str:
    """A confirmed proposal with the user's short reply when the reply says more than yes: "yes, fix plugin.json"
    and "ok proceed with TypeScript" name what was agreed in the user's words, and may narrow the offer."""
    words = flatten(reply)
    found = (w.strip("./-") for w in re.findall(r"[^\W\d_][\w./-]*", words.lower()))
    said = [w for w in found if w not in _ASSENT and len(w) >= 3]
    if len(words) > _REPLY_CHARS or not said or words.lower() in item.lower():
        return item
    return f'{item} (the user: "{words}")'
