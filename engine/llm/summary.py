"""The optional LLM summarizer applied to a compaction plan, off unless configured and asked for.

See docs/compaction.md, Optional LLM summaries.

:func:`with_llm_summary` takes a deterministic :class:`~engine.compaction.plan.CompactionPlan`, serializes the
messages it takes out the way pi does for its summarizer (``[User]: …``, ``[Assistant]: …``,
``[Assistant tool calls]: name(k=v)``, ``[Tool result]: …`` cut at 2,000 characters), asks the configured
endpoint for a summary with the focus in its instructions, and returns the same plan with that summary (plus
pi's ``<read-files>``/``<modified-files>`` blocks) and its token count. The plan's cut, kept messages and
checks are unchanged, so a plan that was blocked stays blocked. Nothing is written here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

from engine.accounting.context import ContextMessage
from engine.accounting.tokens import get_counter
from engine.compaction.plan import CompactionPlan
from engine.compaction.span_text import Loader, format_file_operations, message_parts, redacted_loader, tool_call_line
from engine.config.llm_settings import LLMConfig
from engine.llm.client import LLMError, summarize_with_llm
from engine.session.snapshot import SessionSnapshot

__all__ = ["TOOL_RESULT_CHARS", "serialize_messages", "serialize_span", "with_llm_summary"]

TOOL_RESULT_CHARS = 2_000
"""pi truncates tool results to this many characters when it serializes a conversation for its summarizer."""


def serialize_messages(messages: Iterable[ContextMessage], load: Loader) -> tuple[str, str | None]:
    """``messages`` as pi's summarizer sees them, and the text of a compaction summary among them (if any)."""
    lines: list[str] = []
    previous: str | None = None
    load = redacted_loader(load)
    for message in messages:
        if not message.sent:
            continue  # pi's convertToLlm drops them from the summary request too
        parts = message_parts(message, load(message.entry))
        if parts.role == "compactionSummary":
            previous = parts.text
        elif parts.role == "user":
            lines.append(f"[User]: {parts.text}")
        elif parts.role == "assistant":
            if parts.thinking:
                lines.append(f"[Assistant thinking]: {parts.thinking}")
            if parts.text:
                lines.append(f"[Assistant]: {parts.text}")
            if parts.tool_calls:
                calls = ", ".join(tool_call_line(name, args) for name, args in parts.tool_calls)
                lines.append(f"[Assistant tool calls]: {calls}")
        elif parts.role in ("toolResult", "bashExecution"):
            text = parts.text if len(parts.text) <= TOOL_RESULT_CHARS else parts.text[:TOOL_RESULT_CHARS] + "…"
            lines.append(f"[Tool result]: {text}")
        elif parts.text:
            lines.append(f"[{parts.role}]: {parts.text}")
    return "\n\n".join(lines), previous


def serialize_span(snapshot: SessionSnapshot, plan: CompactionPlan, load: Loader) -> tuple[str, str | None]:
    """The taken-out messages as pi's summarizer sees them, and the previous summary (if one is folded in)."""
    wanted = {p.entry_id for p in plan.dropped}
    return serialize_messages((m for m in snapshot.view.messages if m.entry_id in wanted), load)


def with_llm_summary(
    plan: CompactionPlan,
    snapshot: SessionSnapshot,
    load: Loader,
    llm: LLMConfig,
    *,
    env: Mapping[str, str] | None = None,
) -> CompactionPlan:
    """``plan`` with its summary written by ``llm`` (see the module docstring).

    Raises:
        LLMError: the endpoint failed, timed out, had no key, or answered nothing; the plan is not changed.
    """
    if plan.layer in ("prune", "drop-only"):
        raise LLMError(f"the {plan.layer} layer keeps text verbatim; an LLM summary applies to summarize/full")
    conversation, previous = serialize_span(snapshot, plan, load)
    if not conversation and not previous:
        raise LLMError("nothing to summarize: the plan takes no messages out")
    summary = summarize_with_llm(llm, conversation, focus=plan.focus, previous_summary=previous, env=env)
    files = format_file_operations(plan.read_files, plan.modified_files)
    if files:
        summary = f"{summary}\n\n{files}"
    counter = get_counter()
    notes = (*plan.warnings, f"summary written by {llm.model} ({llm.kind}); a new run would word it differently")
    return dataclasses.replace(
        plan, draft=dataclasses.replace(plan.draft, text=summary, source=f"llm:{llm.model}"),
        figures=dataclasses.replace(plan.figures, summary_tokens=counter.count(summary)),
        verdict=dataclasses.replace(plan.verdict, warnings=notes),
    )
