"""A live tail of the transcript: the last messages in context, read by the engine
(:func:`engine.queries.transcript.read_tail`).

Each message is a block of its own; up/down move a cursor over them and Enter asks for the whole message
(:class:`TranscriptTail.Chosen`). Without a cursor the tail follows the newest message.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from engine import TailMessage
from tui.shown import shown
from tui.widgets.movement import movement_keys

__all__ = ["TranscriptTail"]

_ROLE_COLOR = {"user": "$text-accent", "assistant": "$text-primary", "toolResult": "$text-muted",
               "compactionSummary": "$text-warning"}


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
        *movement_keys(up="cursor(-1)", down="cursor(1)", first="cursor_at(0)", last="cursor_at(-1)"),
        Binding("enter", "open", "Open", tooltip="Show the whole message (redacted) with its tokens"),
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

    def action_cursor_at(self, index: int) -> None:
        """Choose the first (``0``) or the last (``-1``) message."""
        if self.messages:
            self.cursor = index % len(self.messages)
            self.action_cursor(0)

    def action_open(self) -> None:
        if not self.messages:
            return
        if self.cursor is None:
            self.action_cursor(0)
        assert self.cursor is not None
        self.post_message(self.Chosen(self.messages[self.cursor].entry_id))
