"""Deterministic compaction summaries, no LLM (docs/compaction.md, Summaries): one builder per layer.

* ``prune``: the span itself with tool outputs cleared or trimmed to head + tail (OpenClaw's hard clear and soft
  trim), user/assistant text kept, thinking dropped, tool calls as pi's one-liners.
* ``summarize`` / ``full``: a structured summary built from a checkpoint of the span, under OpenClaw's safeguard
  headings (Decisions, Open TODOs, Constraints/Rules, Pending user asks, Exact identifiers, in that order) with
  the previous summary's items merged in, and pi's split-turn context block.
* ``drop-only``: a one-line placeholder naming the memory archive that holds the span verbatim.

Every builder starts with the same header line, carries pinned messages verbatim, and ends with pi's
``<read-files>``/``<modified-files>`` blocks (except drop-only). Secrets are redacted by the caller.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from engine.accounting.context import ContextMessage
from engine.capture.decisions import is_real_user_message, strip_envelope
from engine.capture.dedup import is_semantic_duplicate
from engine.checkpoints.model import Checkpoint
from engine.compaction.span_text import MessageParts, format_file_operations, one_line, tool_call_line
from engine.config.compaction_settings import PruneOutputSettings

__all__ = [
    "HEADER_PREFIX",
    "SUMMARY_HEADINGS",
    "SpanMessage",
    "SummaryHeader",
    "drop_placeholder",
    "extract_identifiers",
    "prune_summary",
    "structured_summary",
]

HEADER_PREFIX: Final = "[ctxscope compaction"
SUMMARY_HEADINGS: Final = ("Decisions", "Open TODOs", "Constraints/Rules", "Pending user asks", "Exact identifiers")
"""OpenClaw's safeguard summary headings, each once and in this order (its quality audit checks both)."""
CLEARED: Final = "[Old tool result content cleared]"
TURN_CONTEXT: Final = "---\n\n**Turn Context (split turn):**"
"""pi's separator before the summary of a split turn's prefix (docs/compaction.md, Split turns)."""

_NONE: Final = "- None."
_KEEP_SHORT_OUTPUT: Final = 200
"""Tool outputs this short (characters) are kept whole: the placeholder would be no shorter."""
_FILE_BLOCK: Final = re.compile(r"<(read-files|modified-files)>.*?</\1>", re.DOTALL)
_URL: Final = re.compile(r"https?://[^\s<>()\[\]{}\"'`]+")
_PATH: Final = re.compile(
    r"(?<![\w/.:-])(?:(?:~|\.{1,2})?/[\w@.+-]+(?:/[\w@.+-]+)*|[\w@.+-]+(?:/[\w@.+-]+)+\.[A-Za-z0-9]{1,8})"
)
_HEX: Final = re.compile(r"(?<![\w-])(?=[0-9a-fA-F-]*\d)(?=[0-9a-fA-F-]*[a-fA-F])[0-9a-fA-F]{8,}(?:-[0-9a-fA-F]{4,})*")
_HOST_PORT: Final = re.compile(r"(?<![\w.-])(?:[A-Za-z][\w-]*\.)*[A-Za-z][\w-]*:\d{2,5}(?![\w])")


@dataclass(frozen=True, slots=True)
class SpanMessage:
    """One summarized message with its parts and pin."""

    message: ContextMessage
    parts: MessageParts
    pin: str | None = None
    """Why the message is pinned (its pi label, or ``config``); ``None`` when it is not."""


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


@dataclass(frozen=True, slots=True)
class _Caps:
    decisions: int
    todos: int
    rules: int
    asks: int
    identifiers: int
    exchanges: int
    item_chars: int
    earlier_chars: int


_CAPS: Final = {
    "summarize": _Caps(30, 15, 15, 4, 40, 8, 240, 2400),
    "full": _Caps(15, 8, 8, 2, 20, 4, 160, 1200),
}


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
) -> str:
    """The prune layer: the span serialized like pi's summarizer input, with tool outputs shortened.

    The newest ``settings.keep_last`` tool outputs are trimmed to head + tail, older ones are cleared; pinned
    messages, user text and assistant text are kept whole, thinking is dropped. ``turn_start`` is the index
    in ``span`` where a split turn's prefix begins.
    """
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


def extract_identifiers(texts: Sequence[str], cap: int) -> tuple[str, ...]:
    """Exact identifiers worth keeping (URLs, paths, hex ids, host:port): the newest ``cap``, oldest first.

    Scans from the newest text back and stops once ``cap`` are found, so a long span costs little.
    """
    unique: list[str] = []
    seen: set[str] = set()
    for text in reversed(texts):
        found = [m.group(0) for m in _URL.finditer(text)]
        rest = _URL.sub(" ", text) if found else text
        for pattern in (_PATH, _HEX, _HOST_PORT):
            found += [m.group(0) for m in pattern.finditer(rest)]
        for raw in reversed(found):
            item = raw.rstrip(".,;:")
            if len(item) >= 4 and item not in seen:
                seen.add(item)
                unique.append(item)
                if len(unique) >= cap:
                    return tuple(reversed(unique))
    return tuple(reversed(unique))


def _previous_sections(summary: str | None) -> tuple[dict[str, list[str]], list[str], str]:
    """Split a previous summary into canonical items, pinned lines, and everything else (flattened)."""
    items: dict[str, list[str]] = {h: [] for h in SUMMARY_HEADINGS}
    pinned: list[str] = []
    rest: list[str] = []
    if not summary:
        return items, pinned, ""
    heading: str | None = None
    for raw in _FILE_BLOCK.sub("", summary).splitlines():
        line = raw.rstrip()
        if line.startswith(HEADER_PREFIX) or (line.startswith("Focus: ") and heading is None):
            continue
        if line.startswith("## "):
            heading = line[3:].strip()
            continue
        if heading == "Pinned messages":
            pinned.append(line)
        elif heading in items:
            item = line.lstrip("-*0123456789. ").strip()
            if item and item.lower().rstrip(".") not in ("none", "none recorded", "(none)"):
                items[heading].append(item)
        elif line.strip() and line.strip() != "---":
            rest.append(line.strip())
    return items, pinned, " ".join(rest)


def _merge(previous: Sequence[str], new: Sequence[str], cap: int, chars: int, *, semantic: bool) -> list[str]:
    merged: list[str] = []
    for item in [*previous, *new]:
        item = one_line(item, chars)
        if not item or item in merged:
            continue
        if semantic and any(is_semantic_duplicate(item, kept) for kept in merged):
            continue
        merged.append(item)
    return merged[-cap:]


def _bullets(items: Sequence[str]) -> list[str]:
    return [f"- {item}" for item in items] or [_NONE]


def _latest_asks(span: Sequence[SpanMessage], cap: int) -> list[str]:
    asks: list[str] = []
    for s in reversed(span):
        if s.parts.role == "user" and is_real_user_message(s.parts.text):
            asks.append(strip_envelope(s.parts.text))
            if len(asks) >= cap:
                break
    return asks


def _turn_context(prefix: Sequence[SpanMessage], chars: int) -> list[str]:
    request = next((s.parts.text for s in prefix if s.parts.role in ("user", "bashExecution", "custom")), "")
    progress: list[str] = []
    for s in prefix:
        if s.parts.role == "assistant":
            if s.parts.text.strip():
                progress.append(one_line(s.parts.text, chars))
            progress += [tool_call_line(n, a, limit=80) for n, a in s.parts.tool_calls]
    return ["", TURN_CONTEXT, "", "## Original Request", one_line(strip_envelope(request), 600) or "(none)", "",
            "## Early Progress", *_bullets(progress[-12:]), "", "## Context for Suffix",
            "- The kept messages continue this turn from the point of the cut."]


def structured_summary(
    header: SummaryHeader,
    checkpoint: Checkpoint,
    span: Sequence[SpanMessage],
    *,
    previous_summary: str | None,
    read_files: Sequence[str],
    modified_files: Sequence[str],
    turn_start: int | None = None,
) -> str:
    """The summarize/full layers: OpenClaw's headings filled from ``checkpoint`` and the span (no LLM).

    ``checkpoint`` is built over the summarized span (decisions, open items, learnings, thread, tools);
    ``previous_summary`` (the compaction being folded in) contributes its items under the same headings and
    the rest of its text, capped, under "Earlier summary"; its pinned messages are carried whole.
    """
    caps = _CAPS.get(header.layer, _CAPS["summarize"])
    chars = caps.item_chars
    prior, prior_pinned, prior_rest = _previous_sections(previous_summary)
    decisions = _merge(prior["Decisions"], [d.what for d in checkpoint.decisions], caps.decisions, chars,
                       semantic=True)
    todos = list(checkpoint.open_items)
    if checkpoint.working.next_action and checkpoint.working.next_action not in todos:
        todos.append(checkpoint.working.next_action)
    todos = _merge(prior["Open TODOs"], todos, caps.todos, chars, semantic=True)
    rules = _merge(prior["Constraints/Rules"], list(checkpoint.learnings), caps.rules, chars, semantic=True)
    questions = [item for item in checkpoint.open_items if item.endswith("?")]
    asks = _merge(prior["Pending user asks"], [*questions[-2:], *reversed(_latest_asks(span, caps.asks))],
                  caps.asks, 600, semantic=False)
    texts: list[str] = []
    for s in span:
        if s.parts.role in ("user", "assistant", "branchSummary"):
            texts.append(s.parts.text)
            texts += [tool_call_line(n, a, limit=300) for n, a in s.parts.tool_calls]
    identifiers = _merge(prior["Exact identifiers"], extract_identifiers(texts, caps.identifiers),
                         caps.identifiers, 300, semantic=False)
    goal = checkpoint.thread.summary or checkpoint.working.topic
    out = [*header.lines(), "", "## Goal", one_line(goal, 400) or "(unknown)"]
    for heading, items in zip(SUMMARY_HEADINGS, (decisions, todos, rules, asks, identifiers), strict=True):
        out += ["", f"## {heading}", *_bullets(items)]
    exchanges = [f"{e.role}: {one_line(e.gist, 130)}" for e in checkpoint.thread.key_exchanges][-caps.exchanges :]
    if exchanges:
        out += ["", "## Key exchanges", *_bullets(exchanges)]
    progress = []
    if checkpoint.resources.tools_used:
        progress.append("Tools used: " + ", ".join(checkpoint.resources.tools_used[-15:]))
    if checkpoint.working.last_tool_call is not None:
        call = checkpoint.working.last_tool_call
        progress.append(f"Last tool call: {call.name}({one_line(call.params_summary, 120)})")
    progress.append(f"Status when compacted: {checkpoint.working.status}")
    out += ["", "## Progress", *_bullets(progress)]
    pinned = _pinned_block(span)
    carried = "\n".join(prior_pinned).strip("\n")
    if carried or pinned:
        out += ["", "## Pinned messages", *([carried] if carried else []), *pinned]
    if prior_rest:
        out += ["", "## Earlier summary", one_line(prior_rest, caps.earlier_chars)]
    if turn_start is not None:
        out += _turn_context(span[turn_start:], chars)
    text = "\n".join(out).rstrip()
    return text + format_file_operations(read_files, modified_files)


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
    carried = "\n".join(_previous_sections(previous_summary)[1]).strip("\n")
    pinned = _pinned_block(span)
    if not carried and not pinned:
        return line
    return "\n".join([line, "", "## Pinned messages", *([carried] if carried else []), *pinned])
