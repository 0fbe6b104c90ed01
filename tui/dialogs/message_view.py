"""One context message in full: its role, entry id, time and tokens, and its text with secrets redacted.

Opened with Enter on a row of the Context tab. The text is the engine's (what the model sees of the message,
:func:`engine.accounting.measure.text_of`), passed through :func:`engine.capture.redact.redact_secrets` like
everything ctxscope derives from a transcript; reading it is the caller's (a worker: it re-reads the line).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from engine.accounting.measure import message_tokens, text_of
from engine.capture.redact import redact_secrets
from engine.session.snapshot import SessionFollower, SessionSnapshot
from tui.shown import shown

__all__ = ["MessageText", "MessageView", "read_message"]


@dataclass(frozen=True, slots=True)
class MessageText:
    """A message as the viewer shows it."""

    entry_id: str
    role: str
    timestamp: str
    tokens: int
    text: str
    """Redacted."""
    tools: tuple[str, ...] = ()


def read_message(snapshot: SessionSnapshot, follower: SessionFollower, entry_id: str) -> MessageText | None:
    """The context message ``entry_id`` of ``snapshot`` (blocking: re-reads its line), or ``None`` if gone."""
    message = next((m for m in snapshot.view.messages if m.entry_id == entry_id), None)
    if message is None:
        return None
    text, images = text_of(message, follower.objects.read_object(message.entry))
    if images:
        text += f"\n[{images} image{'s' if images > 1 else ''}]"
    tokens = message_tokens(message, follower.objects, cache=follower.token_cache)
    return MessageText(entry_id, message.role, message.entry.timestamp or "", tokens, redact_secrets(text),
                       message.entry.tool_calls)


class MessageView(ModalScreen[None]):
    """Shows a :class:`MessageText`; escape or q closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close"), Binding("q", "close", "Close")]

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
