"""The transcript tail: the last context messages, each cut to what a pane shows.

The text is :func:`engine.queries.message.message_text` (redacted); a message is cut to its first lines and
characters, and the tail says how many characters it left out.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.queries.message import message_text
from engine.session.snapshot import SessionFollower, SessionSnapshot

__all__ = ["TAIL_MAX_CHARS", "TAIL_MAX_LINES", "TailMessage", "read_tail"]

TAIL_MAX_LINES = 8
TAIL_MAX_CHARS = 600


@dataclass(frozen=True, slots=True)
class TailMessage:
    """One message of the tail, its text already cut to what the pane shows."""

    entry_id: str
    role: str
    time: str
    """``HH:MM:SS`` of the entry, or empty."""
    text: str
    hidden_chars: int
    """Characters of the message not shown."""


def _clip(text: str) -> tuple[str, int]:
    clipped = "\n".join(text.strip().splitlines()[:TAIL_MAX_LINES])[:TAIL_MAX_CHARS]
    return clipped, max(len(text.strip()) - len(clipped), 0)


def read_tail(snapshot: SessionSnapshot, follower: SessionFollower, count: int) -> tuple[TailMessage, ...]:
    """The last ``count`` context messages with their text (blocking: re-reads lines, run it in a thread)."""
    tail: list[TailMessage] = []
    for message in snapshot.view.messages[-count:]:
        clipped, hidden = _clip(message_text(message, follower, tools_if_empty=True))
        stamp = message.entry.timestamp or ""
        tail.append(TailMessage(message.entry_id, message.shown_role, stamp[11:19], clipped, hidden))
    return tuple(tail)
