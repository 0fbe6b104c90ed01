"""A live tail of the transcript: the last messages in context, their text re-read from disk on demand.

Each message is a block of its own; up/down move a cursor over them and Enter asks for the whole message
(:class:`TranscriptTail.Chosen`). Without a cursor the tail follows the newest message. The text is redacted
like everything ctxscope derives from a transcript (``docs/checkpoints.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from engine.accounting.measure import text_of
from engine.capture.redact import redact_secrets
from engine.session.snapshot import SessionFollower, SessionSnapshot
from tui.shown import shown

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
        clipped, hidden = _clip(redact_secrets(text))
        stamp = message.entry.timestamp or ""
        tail.append(TailMessage(message.entry_id, message.role, stamp[11:19], clipped, hidden))
    return tuple(tail)


def _block(message: TailMessage) -> Content:
    header = Content.assemble(
        shown(message.role, f"bold {_ROLE_COLOR.get(message.role, '$text')}"),
        shown(f"  {message.time}  {message.entry_id}", "$text-muted"),
    )
    hidden = message.hidden_chars
    more = Content.styled(f"\n… {hidden:,} more characters", "$text-muted") if hidden else ""
    return Content.assemble(header, "\n", shown(message.text or "(empty)", one_line=False), more)


class TranscriptTail(VerticalScroll, can_focus=True):
    """Call :meth:`show` with the tail; it stays scrolled to the end unless the user scrolled up or chose a message."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "Previous message", show=False),
        Binding("down", "cursor(1)", "Next message", show=False),
        Binding("enter", "open", "Open message", tooltip="Show the whole message (redacted) with its tokens"),
    ]
    DEFAULT_CSS = """
    TranscriptTail > .tail-block { margin-bottom: 1; }
    TranscriptTail:focus > .tail-block.-chosen { background: $boost; }
    TranscriptTail > .tail-block.-chosen { border-left: outer $accent; }
    """

    class Chosen(Message):
        """Enter on a message of the tail."""

        def __init__(self, entry_id: str) -> None:
            super().__init__()
            self.entry_id = entry_id

    def __init__(self) -> None:
        super().__init__()
        self.messages: tuple[TailMessage, ...] = ()
        self.cursor: int | None = None
        """The chosen message's index, or ``None`` to follow the newest."""

    def compose(self) -> ComposeResult:
        yield Static(Content.styled("Reading the transcript…", "$text-muted"), id="tail-text")

    def show(self, messages: Sequence[TailMessage]) -> None:
        """Replace the shown messages; the cursor stays on its message while that message is still shown."""
        at_end = self.scroll_y >= self.max_scroll_y
        chosen = self.messages[self.cursor].entry_id if self.cursor is not None else None
        self.messages = tuple(messages)
        ids = [m.entry_id for m in self.messages]
        self.cursor = ids.index(chosen) if chosen in ids else None
        notice = self.query_one("#tail-text", Static)
        notice.display = not self.messages
        if not self.messages:
            notice.update(Content.styled("No messages in context yet.", "$text-muted"))
        blocks = list(self.query(".tail-block").results(Static))
        if len(blocks) < len(self.messages):
            # The blocks are kept and refilled: the tail changes on every append, its length rarely.
            fresh = [Static(classes="tail-block") for _ in range(len(self.messages) - len(blocks))]
            self.mount_all(fresh)
            blocks += fresh
        for n, block in enumerate(blocks):
            block.display = n < len(self.messages)
            if n < len(self.messages):
                block.update(_block(self.messages[n]))
                block.set_class(n == self.cursor, "-chosen")
        if at_end and self.cursor is None:
            self.call_after_refresh(self.scroll_end, animate=False)

    def shown_text(self) -> str:
        """The tail as plain text (what the blocks say), for tests and copying."""
        return "\n\n".join(_block(m).plain for m in self.messages)

    def action_cursor(self, delta: int) -> None:
        if not self.messages:
            return
        last = len(self.messages) - 1
        start = self.cursor if self.cursor is not None else last + (1 if delta < 0 else 0)
        self.cursor = min(max(start + delta, 0), last)
        blocks = list(self.query(".tail-block").results(Static))
        for n, block in enumerate(blocks):
            block.set_class(n == self.cursor, "-chosen")
        self.scroll_to_widget(blocks[self.cursor], animate=False)

    def action_open(self) -> None:
        if not self.messages:
            return
        if self.cursor is None:
            self.action_cursor(0)
        assert self.cursor is not None
        self.post_message(self.Chosen(self.messages[self.cursor].entry_id))
