"""A live tail of the transcript: the last messages in context, their text re-read from disk on demand."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from engine.accounting.measure import text_of
from engine.session.snapshot import SessionFollower, SessionSnapshot

__all__ = ["TailMessage", "TranscriptTail", "read_tail"]

_ROLE_COLOR = {"user": "$text-accent", "assistant": "$text-primary", "toolResult": "$text-muted",
               "compactionSummary": "$text-warning"}
_MAX_LINES = 8
_MAX_CHARS = 600


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
    clipped = "\n".join(text.strip().splitlines()[:_MAX_LINES])[:_MAX_CHARS]
    return clipped, max(len(text.strip()) - len(clipped), 0)


def read_tail(snapshot: SessionSnapshot, follower: SessionFollower, count: int) -> tuple[TailMessage, ...]:
    """The last ``count`` context messages with their text (blocking: re-reads lines, run it in a thread)."""
    tail: list[TailMessage] = []
    for message in snapshot.view.messages[-count:]:
        text, images = text_of(message, follower.objects.read_object(message.entry))
        if images:
            text += f"\n[{images} image{'s' if images > 1 else ''}]"
        if message.entry.tool_calls and not text.strip():
            text = ", ".join(message.entry.tool_calls)
        shown, hidden = _clip(text)
        stamp = message.entry.timestamp or ""
        tail.append(TailMessage(message.entry_id, message.role, stamp[11:19], shown, hidden))
    return tuple(tail)


def _block(message: TailMessage) -> Content:
    header = Content.assemble(
        (message.role, f"bold {_ROLE_COLOR.get(message.role, '$text')}"),
        (f"  {message.time}  {message.entry_id}", "$text-muted"),
    )
    hidden = message.hidden_chars
    more = Content.styled(f"\n… {hidden:,} more characters", "$text-muted") if hidden else ""
    return Content.assemble(header, "\n", Content(message.text or "(empty)"), more)


class TranscriptTail(VerticalScroll):
    """Call :meth:`show` with the tail; it stays scrolled to the end unless the user scrolled up."""

    def compose(self) -> ComposeResult:
        yield Static(Content.styled("Reading the transcript…", "$text-muted"), id="tail-text")

    def show(self, messages: Sequence[TailMessage]) -> None:
        """Replace the shown messages."""
        at_end = self.scroll_y >= self.max_scroll_y
        body = Content("\n\n").join(_block(m) for m in messages) if messages else Content.styled(
            "No messages in context yet.", "$text-muted"
        )
        self.query_one("#tail-text", Static).update(body)
        if at_end:
            self.call_after_refresh(self.scroll_end, animate=False)
