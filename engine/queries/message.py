"""One context message in full, and the text of a message as the views show it (redacted).

The text is what the model sees of the message (:func:`engine.accounting.measure.text_of`), with its images
counted and, for a tool call without text, the tools' names; it is redacted like everything ctxscope derives from
a transcript (``docs/checkpoints.md``, Redaction).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.accounting.context import ContextMessage
from engine.accounting.measure import text_of
from engine.capture.redact import redact_secrets
from engine.session.snapshot import SessionFollower, SessionSnapshot

__all__ = ["MessageText", "message_text", "read_message"]


@dataclass(frozen=True, slots=True)
class MessageText:
    """A context message as the message viewer shows it."""

    entry_id: str
    role: str
    timestamp: str
    tokens: int
    """Tokens of the message by the engine's offline tokenizer."""
    text: str
    """Redacted."""
    tools: tuple[str, ...] = ()


def message_text(message: ContextMessage, follower: SessionFollower, *, tools_if_empty: bool = False) -> str:
    """The redacted text of ``message``, its images counted (blocking: re-reads its line).

    With ``tools_if_empty``, a message with no text that calls tools reads as their names (the transcript tail).
    """
    text, images = text_of(message, follower.objects.read_object(message.entry))
    if images:
        text += f"\n[{images} image{'s' if images > 1 else ''}]"
    if tools_if_empty and message.entry.tool_calls and not text.strip():
        text = ", ".join(message.entry.tool_calls)
    return redact_secrets(text)


def read_message(snapshot: SessionSnapshot, follower: SessionFollower, entry_id: str) -> MessageText | None:
    """The context message ``entry_id`` of ``snapshot`` (blocking: re-reads its line), or ``None`` if gone."""
    message = next((m for m in snapshot.view.messages if m.entry_id == entry_id), None)
    if message is None:
        return None
    return MessageText(entry_id, message.role, message.entry.timestamp or "", follower.message_tokens(message),
                       message_text(message, follower), message.entry.tool_calls)
