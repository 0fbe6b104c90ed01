"""Today's deterministic summarizer, frozen as the retention benchmark's baseline (``bench/retention.py``).

A copy of ``engine/compaction/summarizer.py``'s summarize/full builder and of the glue in
``engine/compaction/layer_summary.py`` as they were at commit 57192ba, before issue 13: fixed caps per section,
earlier summaries flattened under "Earlier summary" and cut at 2,400 characters, items cut mid-word. It is not
used by the product; only the benchmark calls it, so the comparison stays honest as the engine changes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Final

import orjson

from engine.accounting.context import context_from_path
from engine.capture.decisions import is_real_user_message, strip_envelope
from engine.capture.dedup import is_semantic_duplicate
from engine.capture.state import CapturedState, capture
from engine.checkpoints.builder import build_checkpoint
from engine.checkpoints.model import Checkpoint
from engine.checkpoints.store import LoadedCheckpoint
from engine.compaction.span_text import MessageParts, format_file_operations
from engine.compaction.summarizer import SpanMessage, SummaryHeader
from engine.session.snapshot import SessionSnapshot
from engine.stores.entries import Entry

__all__ = ["baseline_summary"]

HEADER_PREFIX: Final = "[ctxscope compaction"
SUMMARY_HEADINGS: Final = ("Decisions", "Open TODOs", "Constraints/Rules", "Pending user asks", "Exact identifiers")


def one_line(text: str, limit: int) -> str:
    """Whitespace collapsed to single spaces and cut to ``limit`` characters with an ellipsis (mid-word)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: max(1, limit - 1)].rstrip() + "…"


def tool_call_line(name: str, arguments: Mapping[str, Any], limit: int = 120) -> str:
    """pi's serialization of a tool call, each value cut to ``limit`` characters."""
    parts = []
    for key, value in arguments.items():
        try:
            rendered = orjson.dumps(value).decode()
        except TypeError:
            rendered = repr(value)
        parts.append(f"{key}={one_line(rendered, limit)}")
    return f"{name}({', '.join(parts)})"


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


def baseline_summary(
    snapshot: SessionSnapshot,
    span: Sequence[SpanMessage],
    load: Callable[[Entry], Mapping[str, Any]],
    header: SummaryHeader,
    latest: LoadedCheckpoint | None,
    now: datetime,
    files: tuple[tuple[str, ...], tuple[str, ...]],
    turn_start: int | None,
) -> str:
    """The summary today's summarizer writes for ``span`` (the old ``layer_summary._structured``)."""
    path = snapshot.view.path[: span[-1].message.path_index + 1] if span else ()
    prefix = replace(snapshot, view=context_from_path(path, path[-1] if path else None))
    state = capture(CapturedState(), [s.message.entry for s in span if s.message.role != "compactionSummary"], load)
    checkpoint = build_checkpoint(prefix, state, load, trigger="compaction",
                                  previous=latest.checkpoint if latest else None, now=now,
                                  interrupted=turn_start is not None)
    previous = span[0].parts.text if span and span[0].message.role == "compactionSummary" else None
    return structured_summary(header, checkpoint, span, previous_summary=previous, read_files=files[0],
                              modified_files=files[1], turn_start=turn_start)
