"""One context message in full: its role, entry id, time and tokens, and its text with secrets redacted.

Opened with Enter on a row of the Context tab or a message of the transcript tail. The message is the engine's
(:func:`engine.queries.message.read_message`: what the model sees of it, redacted); reading it is the caller's (a
worker: it re-reads the line).
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from engine import MessageText
from tui.dialogs.notice_keys import NOTICE_KEYS
from tui.shown import shown

__all__ = ["MessageView"]


class MessageView(ModalScreen[None]):
    """Shows a :class:`MessageText`; escape or q closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close"), Binding("q", "close", "Close"),
                                             *NOTICE_KEYS]

    def __init__(self, message: MessageText) -> None:
        super().__init__(id="message-view")
        self.message = message

    def compose(self) -> ComposeResult:
        m = self.message
        with Vertical(id="message-box") as box:
            box.border_title = shown(f"{m.role} · {m.entry_id}")
            box.border_subtitle = "escape to close"
            tools = f" · tools {', '.join(m.tools)}" if m.tools else ""
            yield Static(shown(f"{m.tokens:,} tokens · {m.timestamp or 'no time'}{tools}", "$text-muted"),
                         id="message-meta")
            with VerticalScroll(id="message-scroll"):
                yield Static(shown(m.text or "(empty)", one_line=False), id="message-text")

    def action_close(self) -> None:
        self.dismiss(None)
