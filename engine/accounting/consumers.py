"""The largest messages in the current context: what a prune would win most by shortening.

Counts every context message with the engine's tokenizer (:func:`engine.accounting.measure.message_tokens`, the
per-entry cache makes a second look free) and returns the largest with their share of the messages' tokens. The
compaction summary is listed but cannot be chosen for a prune (it is rewritten by any compaction anyway).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.accounting.context import ContextView
from engine.accounting.measure import ObjectSource, TokenCache, message_tokens

__all__ = ["Consumer", "top_consumers"]


@dataclass(frozen=True, slots=True)
class Consumer:
    """One large context message."""

    entry_id: str
    """The entry's id (what a prune is given), or the display id of a summary."""
    role: str
    tokens: int
    share: float
    """Fraction (0–1) of the tokens of all context messages."""
    what: str
    """The tool a result came from, the tools an assistant called, or the role."""
    line: int
    prunable: bool
    """Whether a prune may be asked to shorten it (not a compaction summary, has an id)."""


def _what(role: str, tool_name: str | None, tool_calls: tuple[str, ...]) -> str:
    if role == "toolResult" and tool_name:
        return f"{tool_name} output"
    if role == "assistant" and tool_calls:
        return "calls " + ", ".join(dict.fromkeys(tool_calls))
    return role


def top_consumers(
    view: ContextView, objects: ObjectSource, *, cache: TokenCache | None = None, limit: int = 10
) -> tuple[Consumer, ...]:
    """The ``limit`` largest messages of ``view``, largest first (blocking: re-reads text not yet counted)."""
    measured = [(m, message_tokens(m, objects, cache=cache)) for m in view.messages]
    total = sum(tokens for _, tokens in measured)
    largest = sorted(measured, key=lambda pair: (-pair[1], pair[0].path_index))[:limit]
    return tuple(
        Consumer(
            entry_id=m.entry.id if m.role != "compactionSummary" and m.entry.id else m.entry_id,
            role=m.shown_role,
            tokens=tokens,
            share=tokens / total if total else 0.0,
            what=_what(m.shown_role, m.entry.tool_name, m.entry.tool_calls),
            line=m.entry.line_no,
            prunable=m.role != "compactionSummary" and m.entry.id is not None,
        )
        for m, tokens in largest
    )
