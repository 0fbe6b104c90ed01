"""Deterministic compaction summaries, no LLM: one builder per layer.

* ``prune``: the span itself with tool outputs cleared or trimmed to head + tail (OpenClaw's hard clear and soft
  trim), user/assistant text kept, thinking dropped, tool calls as pi's one-liners.
* ``summarize`` / ``full``: earlier summaries read back item by item (:mod:`~engine.compaction.summary_sections`),
  the span's facts extracted from redacted text (:mod:`~engine.compaction.summary_extract`), the two merged with
  nothing dropped (:mod:`~engine.compaction.summary_merge`) and written in the reading agent's format within a
  token budget (:mod:`~engine.compaction.summary_format`).
* ``drop-only``: a one-line placeholder naming the memory archive that holds the span verbatim.

Every builder starts with the same header line, carries pinned messages verbatim, and ends with pi's
``<read-files>``/``<modified-files>`` blocks (except drop-only).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from typing import Final

from engine.capture.whole_text import whole_sentences
from engine.compaction.identifiers import is_identifier, is_location
from engine.compaction.span_text import (
    MessageParts,
    SpanMessage,
    format_file_operations,
    one_line,
    tool_call_line,
)
from engine.compaction.summary_extract import ASK_CHARS, SpanFacts, span_facts, turn_context
from engine.compaction.summary_format import (
    OPENCLAW_HEADINGS,
    TURN_CONTEXT,
    RenderedSummary,
    SummaryParts,
    render_summary,
)
from engine.compaction.summary_merge import merge_items
from engine.compaction.summary_sections import HEADER_PREFIX, SummaryItem, parse_summary
from engine.config.compaction_settings import PruneOutputSettings

__all__ = [
    "CLEARED",
    "HEADER_PREFIX",
    "SUMMARY_HEADINGS",
    "TURN_CONTEXT",
    "SpanMessage",
    "SummaryHeader",
    "drop_placeholder",
    "header_layer",
    "prune_summary",
    "structured_summary",
]

SUMMARY_HEADINGS: Final = OPENCLAW_HEADINGS
"""OpenClaw's safeguard summary headings, each once and in this order (its quality audit checks both)."""
CLEARED: Final = "[Old tool result content cleared]"
AUDIT_VALUES_PREFIX: Final = "Values quoted in the last messages (kept verbatim for OpenClaw's summary check):"
"""Opens the status line that carries the plain values OpenClaw's quality audit looks for."""

_KEEP_SHORT_OUTPUT: Final = 200
"""Tool outputs this short (characters) are kept whole: the placeholder would be no shorter."""
_FILE_BLOCK: Final = re.compile(r"<(read-files|modified-files)>.*?</\1>", re.DOTALL)


@dataclass(frozen=True, slots=True)
class SummaryHeader:
    """What every summary says about itself on its first line."""

    layer: str
    messages: int
    tokens: int
    first_kept_entry_id: str
    focus: str | None = None

    def lines(self) -> list[str]:
        """The header line, then the focus line when there is a focus."""
        head = (
            f"{HEADER_PREFIX} | layer: {self.layer} | {self.messages} messages (~{self.tokens:,} tokens) summarized"
            f" | kept from entry {self.first_kept_entry_id}]"
        )
        return [head, f"Focus: {one_line(self.focus, 400)}"] if self.focus else [head]


_HEADER_LAYER = re.compile(re.escape(HEADER_PREFIX) + r" \| layer: ([a-z-]+) \|")


def header_layer(summary: str) -> str | None:
    """The layer a summary written by ctxscope names on its first line, or ``None`` when ctxscope did not write it."""
    match = _HEADER_LAYER.match(summary)
    return match.group(1) if match else None


def _role_label(parts: MessageParts) -> str:
    return {
        "user": "User",
        "assistant": "Assistant",
        "toolResult": f"Tool result {parts.tool_name or ''}".rstrip(),
        "bashExecution": "Bash",
        "custom": f"Custom {parts.tool_name or ''}".rstrip(),
        "branchSummary": "Branch summary",
        "compactionSummary": "Earlier summary",
    }.get(parts.role, parts.role)


def _verbatim(span: SpanMessage) -> str:
    parts = span.parts
    body = [parts.text] if parts.text else []
    if parts.command is not None:
        body.insert(0, f"$ {parts.command}")
    body += [f"[tool call] {tool_call_line(name, args, limit=100_000)}" for name, args in parts.tool_calls]
    return "\n".join(body)


def _pinned_block(span: Sequence[SpanMessage]) -> list[str]:
    pinned = [s for s in span if s.pin is not None]
    lines: list[str] = []
    for s in pinned:
        entry = s.message.entry
        lines += ["", f"### {s.pin} · {_role_label(s.parts)} · entry {entry.id} · {entry.timestamp or '-'}",
                  _verbatim(s)]
    return lines


def _trim(text: str, settings: PruneOutputSettings) -> str:
    cut = len(text) - settings.head_chars - settings.tail_chars
    if len(text) <= settings.max_chars or cut <= 0:
        return text
    head = text[: settings.head_chars]
    tail = text[len(text) - settings.tail_chars :] if settings.tail_chars else ""
    return f"{head}\n[… {cut:,} chars trimmed …]\n{tail}"


def prune_summary(
    header: SummaryHeader,
    span: Sequence[SpanMessage],
    settings: PruneOutputSettings,
    *,
    read_files: Sequence[str],
    modified_files: Sequence[str],
    turn_start: int | None = None,
    targets: Collection[str] | None = None,
) -> str:
    """The prune layer: the span serialized like pi's summarizer input, with tool outputs shortened.

    The newest ``settings.keep_last`` tool outputs are trimmed to head + tail, older ones are cleared; pinned
    messages, user text and assistant text are kept whole, thinking is dropped. ``turn_start`` is the index
    in ``span`` where a split turn's prefix begins. With ``targets`` (entry ids), only those messages are
    shortened — tool outputs cleared, other text trimmed to head + tail — and every other message is kept whole.
    """
    if targets is not None:
        return _targeted_prune(header, span, settings, targets, read_files, modified_files, turn_start)
    outputs = [i for i, s in enumerate(span) if s.parts.role in ("toolResult", "bashExecution")]
    trimmed = set(outputs[len(outputs) - settings.keep_last :]) if settings.keep_last else set()
    counts = {"cleared": 0, "trimmed": 0, "whole": 0}
    body: list[str] = []
    for i, s in enumerate(span):
        parts = s.parts
        if turn_start is not None and i == turn_start:
            body.append(TURN_CONTEXT)
        if s.pin is not None:
            body.append(f"[Pinned: {s.pin}] [{_role_label(parts)}]: {_verbatim(s)}")
            continue
        if parts.role == "compactionSummary":
            body.append(f"[Earlier summary]:\n{_FILE_BLOCK.sub('', parts.text).strip()}")
        elif parts.role in ("toolResult", "bashExecution"):
            label = _role_label(parts) + (" (error)" if parts.is_error else "")
            prefix = f"[{label}]: " + (f"$ {parts.command}\n" if parts.command else "")
            if i in trimmed or parts.is_error or len(parts.text) <= _KEEP_SHORT_OUTPUT:
                shortened = _trim(parts.text, settings)
                counts["trimmed" if shortened != parts.text else "whole"] += 1
                body.append(prefix + shortened)
            else:
                counts["cleared"] += 1
                body.append(f"{prefix}{CLEARED} ({len(parts.text):,} chars)")
        elif parts.role == "assistant":
            if parts.text:
                body.append(f"[Assistant]: {parts.text}")
            if parts.tool_calls:
                body.append("[Assistant tool calls]: " + "; ".join(tool_call_line(n, a) for n, a in parts.tool_calls))
        elif parts.role == "custom":
            body.append(f"[{_role_label(parts)}]: {_trim(parts.text, settings)}")
        elif parts.text or parts.images:
            body.append(f"[{_role_label(parts)}]: {parts.text}" + (" [image]" * parts.images))
    note = (f"Tool outputs: {counts['cleared']} cleared, {counts['trimmed']} trimmed to head+tail, "
            f"{counts['whole']} kept whole; thinking omitted.")
    text = "\n".join([*header.lines(), note, "", "\n\n".join(body)])
    return text.rstrip() + format_file_operations(read_files, modified_files)


def _carried_pinned(previous: str | None) -> list[str]:
    return list(parse_summary(previous).pinned) if previous else []


def _targeted_prune(
    header: SummaryHeader,
    span: Sequence[SpanMessage],
    settings: PruneOutputSettings,
    targets: Collection[str],
    read_files: Sequence[str],
    modified_files: Sequence[str],
    turn_start: int | None,
) -> str:
    """The prune layer for chosen messages only (see :func:`prune_summary`)."""
    cleared = trimmed = short = 0
    body: list[str] = []
    for i, s in enumerate(span):
        parts = s.parts
        if turn_start is not None and i == turn_start:
            body.append(TURN_CONTEXT)
        if parts.role == "compactionSummary":
            body.append(f"[Earlier summary]:\n{_FILE_BLOCK.sub('', parts.text).strip()}")
            continue
        label = _role_label(parts) + (" (error)" if parts.is_error else "")
        if (s.message.entry.id or "") not in targets or s.pin is not None:
            body.append(f"[{label}]: {_verbatim(s)}")
        elif parts.role in ("toolResult", "bashExecution"):
            cleared += 1
            command = f"$ {parts.command}\n" if parts.command else ""
            body.append(f"[{label}]: {command}{CLEARED} ({len(parts.text):,} chars)")
        else:
            shortened = _trim(parts.text, settings)
            if shortened != parts.text:
                trimmed += 1
            else:
                short += 1
            calls = "".join(f"\n[tool call] {tool_call_line(n, a)}" for n, a in parts.tool_calls)
            body.append(f"[{label}]: {shortened}{calls}")
    too_short = f", {short} too short to trim" if short else ""
    note = (f"Pruned on request: {cleared} tool output(s) cleared, {trimmed} message(s) trimmed to head+tail"
            f"{too_short}; every other message kept whole; thinking omitted.")
    text = "\n".join([*header.lines(), note, "", "\n\n".join(body)])
    return text.rstrip() + format_file_operations(read_files, modified_files)


def _for_openclaws_audit(items: list[SummaryItem], facts: SpanFacts) -> tuple[list[SummaryItem], tuple[str, ...]]:
    """Items OpenClaw's quality audit needs, and the texts the size budget must keep: the whole tokens holding
    the span's first opaque identifiers, and the latest user message (under the asks when it asks something,
    else as a status line, so the audit finds its words).

    The audit also asks for plain values (a log line's ``1772441000208``, a count such as ``191960``): they are
    no identifiers a continuation needs, so they go on one status line that says why it is there, not under
    ``## Exact identifiers`` (docs/compaction.md, OpenClaw's quality audit)."""
    known = {item.text for item in items}
    end = max((item.order for item in items), default=0) + 1
    names = [token for token in facts.audit_ids if is_identifier(token) or is_location(token)]
    values = [token for token in facts.audit_ids if token not in names]
    items = items + [SummaryItem(token, "identifiers", order=end + n)
                     for n, token in enumerate(names) if token not in known]
    required = list(names)
    if values:
        line = f"{AUDIT_VALUES_PREFIX} {', '.join(values)}"
        items.append(SummaryItem(line, "status", order=end + len(names)))
        required.append(line)
    latest = facts.latest_user
    if latest:
        ask = next((i for i in items if i.kind in ("asks", "done") and i.text.startswith(latest[:200])), None)
        if ask is None:
            line = f"Latest user message: {whole_sentences(latest, ASK_CHARS)}"
            items.append(SummaryItem(line, "status", order=end + len(facts.audit_ids) + 1))
            ask = items[-1]
        required.append(ask.text)
    return items, tuple(required)


def structured_summary(
    header: SummaryHeader,
    span: Sequence[SpanMessage],
    *,
    fmt: str,
    read_files: Sequence[str],
    modified_files: Sequence[str],
    turn_start: int | None = None,
    max_tokens: int | None = None,
    count: Callable[[str], int] | None = None,
    kept: Sequence[SpanMessage] = (),
    transcript: str = "",
) -> RenderedSummary:
    """The summarize/full layers: earlier summaries in ``span`` merged item by item with the span's facts,
    written in ``fmt`` (``pi`` or ``openclaw``) within ``max_tokens`` (counted with ``count``).

    ``span`` must already be redacted (:func:`~engine.compaction.summary_extract.redacted_parts`): every item
    and identifier is extracted from it. Earlier summaries are the compaction summary that opens the span and
    any branch summaries in it; their pinned messages are carried whole, as are the span's pinned messages.
    ``kept`` (redacted too) are the messages after the cut: they only close or supersede items. ``transcript``
    (the session file) is named where the summary says which entries hold the items it left out for size.
    """
    previous: list[SummaryItem] = []
    pinned: list[str] = []
    files_read, files_modified = list(read_files), list(modified_files)
    for s in span:
        if s.parts.role not in ("compactionSummary", "branchSummary"):
            continue
        kind = "compaction entry" if s.parts.role == "compactionSummary" else "branch summary entry"
        parsed = parse_summary(s.parts.text, source=f"{kind} {s.message.entry.id or s.message.entry_id}")
        offset = len(previous)
        previous += [replace(item, order=offset + item.order) for item in parsed.items]
        pinned += parsed.pinned
        files_modified += [f for f in parsed.modified_files if f not in files_modified]
        files_read += [f for f in parsed.read_files if f not in files_read and f not in files_modified]
    facts = span_facts([s for s in span if s.parts.role not in ("compactionSummary", "branchSummary")],
                       audit=fmt == "openclaw")
    turn = turn_context(span[turn_start:]) if turn_start is not None else None
    items = merge_items(previous, facts, span_facts(kept) if kept else None)
    required: tuple[str, ...] = ()
    if fmt == "openclaw":
        items, required = _for_openclaws_audit(items, facts)
    carried = "\n".join(pinned).strip("\n")
    pinned_lines = ([carried] if carried else []) + _pinned_block(span)
    parts = SummaryParts(tuple(header.lines()), tuple(items), tuple(pinned_lines), turn,
                         tuple(sorted(set(files_read) - set(files_modified))), tuple(sorted(set(files_modified))),
                         required, transcript)
    return render_summary(parts, fmt, max_tokens=max_tokens, count=count)


def drop_placeholder(
    header: SummaryHeader, archive_ref: str, span: Sequence[SpanMessage], previous_summary: str | None = None
) -> str:
    """The drop-only layer: one line naming the archive, plus pinned messages (which are never dropped, and
    include those an earlier summary carried)."""
    focus = f" Focus: {one_line(header.focus, 200)}." if header.focus else ""
    line = (
        f"{HEADER_PREFIX} | layer: drop-only] {header.messages} earlier messages (~{header.tokens:,} tokens) were "
        f"dropped from context and archived verbatim to {archive_ref}; search memory when you need them.{focus}"
    )
    carried = "\n".join(_carried_pinned(previous_summary)).strip("\n")
    pinned = _pinned_block(span)
    if not carried and not pinned:
        return line
    return "\n".join([line, "", "## Pinned messages", *([carried] if carried else []), *pinned])
