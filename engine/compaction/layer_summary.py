"""The summary each compaction layer writes, from the summarized span: the planner's layer step.

Gathers what :mod:`engine.compaction.summarizer` needs — the span's messages split into parts, their pins (pi
``label`` entries and configured ids), for summarize/full the span redacted before anything is extracted from it,
the reading agent's format and the size budget, for drop-only the memory-archive record — and returns the summary
text with the archive plan. The planner redacts the finished text once more.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Final

import orjson

from engine.accounting.context import ContextMessage
from engine.agents.registry import agent_of
from engine.capture.redact import redact_secrets
from engine.compaction.archive import ArchivedMessage, archive_file, validate_workspace
from engine.compaction.plan import ArchivePlan, MessagePreview
from engine.compaction.span_text import message_parts, one_line, tool_call_line
from engine.compaction.summarizer import SpanMessage, SummaryHeader, drop_placeholder, prune_summary, structured_summary
from engine.compaction.summary_extract import redacted_parts
from engine.config.loader import Config
from engine.session.snapshot import SessionSnapshot
from engine.stores.entries import Entry
from engine.stores.source import SessionSource

__all__ = [
    "SMALL_WINDOW_SHARE",
    "SMALL_WINDOW_TOKENS",
    "SUMMARY_SHARE",
    "LayerSummary",
    "build_span",
    "layer_summary",
    "pins_on_path",
    "preview",
    "session_workspace",
    "summary_budget",
    "summary_format_for",
]

SUMMARY_SHARE: Final = 0.03
"""The share of the context window a structured summary may take: 3% (6,000 tokens at 200k; docs/compaction.md says
why it is no longer 6%) ..."""
SMALL_WINDOW_TOKENS: Final = 2_000
SMALL_WINDOW_SHARE: Final = 0.06
"""... but never less than 2,000 tokens or 6% of the window, whichever is less: 3% of a 32k window (983 tokens)
leaves decisions out to keep node_modules paths."""


@dataclass(frozen=True, slots=True)
class LayerSummary:
    """What a layer writes: the summary text (unredacted) and, for drop-only, the archive record."""

    text: str
    archive: ArchivePlan | None = None
    problem: str | None = None
    """Why the layer cannot be applied (e.g. drop-only without a workspace)."""
    omitted: int = 0
    """Whole items the summary's size budget left out (the summary says which and where they are kept)."""


def pins_on_path(path: Sequence[Entry], configured: Sequence[str]) -> dict[str, str]:
    """Entry id → why it is pinned: pi ``label`` entries on the path (last one wins, an empty label clears,
    docs/formats.md, Labels) and ids listed in the config."""
    pins = {entry_id: "pinned in config" for entry_id in configured}
    labels: dict[str, str] = {}
    for entry in path:
        if entry.type == "label" and entry.target_id:
            if entry.label:
                labels[entry.target_id] = entry.label
            else:
                labels.pop(entry.target_id, None)
    pins.update({target: f"label {name!r}" for target, name in labels.items()})
    return pins


def build_span(
    messages: Sequence[ContextMessage], load: Callable[[Entry], Mapping[str, Any]], pins: Mapping[str, str]
) -> list[SpanMessage]:
    """The summarized messages with their parts and pins."""
    return [SpanMessage(m, message_parts(m, load(m.entry)), pins.get(m.entry.id or "")) for m in messages]


def preview(span: SpanMessage, tokens: int) -> MessagePreview:
    """One line about a dropped message for the plan's preview."""
    parts = span.parts
    text = parts.text or " ".join(tool_call_line(n, a, limit=40) for n, a in parts.tool_calls) or parts.thinking
    # Redact a bounded prefix: the preview shows 100 characters, and no secret shape is 400 long.
    return MessagePreview(span.message.entry_id, span.message.role, tokens, span.message.entry.line_no,
                          one_line(redact_secrets(text[:400]), 100))


def _archive_text(span: SpanMessage) -> str:
    parts = span.parts
    chunks = [f"$ {parts.command}"] if parts.command is not None else []
    if parts.thinking:
        chunks.append("[thinking]\n" + parts.thinking)
    if parts.text:
        chunks.append(parts.text)
    chunks += [f"[tool call] {tool_call_line(name, args, limit=10**9)}" for name, args in parts.tool_calls]
    chunks += ["[image omitted]"] * parts.images
    return "\n\n".join(chunks)


def session_workspace(source: SessionSource, config: Config) -> Path | None:
    """Where ``memory/`` lives: the configured workspace, else the session header's ``cwd``."""
    if config.compaction.workspace is not None:
        return config.compaction.workspace
    if source.in_database:
        return None
    try:
        with source.path.open("rb") as handle:
            first = handle.readline(1 << 20)
        header = orjson.loads(first.removeprefix(b"\xef\xbb\xbf"))
    except (OSError, orjson.JSONDecodeError):
        return None
    cwd = header.get("cwd") if isinstance(header, dict) else None
    if not isinstance(cwd, str) or not cwd:
        return None
    workspace = Path(cwd).expanduser()
    # A header written on another OS (``C:\\Users\\…`` read on Linux) is not a path here: archiving under it
    # would land relative to our working directory. Without a usable workspace, drop-only is refused.
    return workspace if workspace.is_absolute() else None


def _drop_only(
    snapshot: SessionSnapshot, config: Config, header: SummaryHeader, span: Sequence[SpanMessage], now: datetime
) -> LayerSummary:
    candidate = session_workspace(snapshot.source, config)
    workspace, refusal = (None, None) if candidate is None else validate_workspace(
        candidate, configured=config.compaction.workspace is not None, roots=config.compaction.workspace_roots)
    if workspace is None:
        return LayerSummary(
            drop_placeholder(header, "memory/ (no workspace known)", span),
            problem="drop-only needs a workspace for memory/: set compaction.workspace in the config "
            + (f"({refusal})" if refusal else "(the session header has no cwd usable on this machine)"),
        )
    target = archive_file(workspace, now)
    messages = tuple(
        ArchivedMessage(s.message.role, s.message.entry.id, s.message.entry.timestamp, _archive_text(s)) for s in span
    )
    seed = f"{snapshot.source.key}\0{header.first_kept_entry_id}\0{now.isoformat()}".encode()
    record_id = "ctx-" + hashlib.sha256(seed).hexdigest()[:16]
    created = now.isoformat(timespec="seconds").replace("+00:00", "Z")
    plan = ArchivePlan(target, record_id, messages, snapshot.source.key, created, header.first_kept_entry_id or None,
                       header.tokens, workspace)
    previous = span[0].parts.text if span and span[0].message.role == "compactionSummary" else None
    reference = f"memory/{target.name} (record {record_id})"
    return LayerSummary(drop_placeholder(header, reference, span, previous), plan)


def summary_format_for(source: SessionSource) -> str:
    """The summary format the session's agent reads (``Agent.summary_format``: docs/agents.md); ``openclaw`` for a
    format no agent claims."""
    agent = agent_of(source.format)
    return agent.summary_format if agent is not None else "openclaw"


def summary_budget(window: int) -> int:
    """The most tokens a summary (the summarize and full layers alike) may take in a ``window``-token context: 3%
    of it, at least 2,000 tokens or 6% of it, whichever is less (docs/compaction.md)."""
    return max(1, int(max(window * SUMMARY_SHARE, min(window * SMALL_WINDOW_SHARE, SMALL_WINDOW_TOKENS))))


def layer_summary(
    layer: str,
    snapshot: SessionSnapshot,
    span: Sequence[SpanMessage],
    header: SummaryHeader,
    *,
    config: Config,
    files: tuple[tuple[str, ...], tuple[str, ...]],
    turn_start: int | None,
    now: datetime,
    count: Callable[[str], int],
    fmt: str | None = None,
    kept: Sequence[SpanMessage] = (),
    targets: Collection[str] | None = None,
) -> LayerSummary:
    """The summary ``layer`` writes for ``span`` (``files`` = read-only and modified files).

    ``fmt`` overrides the summary format of the session's agent (:func:`summary_format_for`); ``count`` is the
    token counter the summarize/full budget is measured with; ``kept`` are the messages after the cut (they
    only close or supersede summary items); ``targets``: the entry ids a prune shortens, all tool outputs
    when ``None``.
    """
    if layer == "drop-only":
        return _drop_only(snapshot, config, header, span, now)
    if layer == "prune":
        return LayerSummary(prune_summary(header, span, config.compaction.prune_output, read_files=files[0],
                                          modified_files=files[1], turn_start=turn_start, targets=targets))
    redacted = [replace(s, parts=redacted_parts(s.parts)) for s in span]
    built = structured_summary(header, redacted, fmt=fmt or summary_format_for(snapshot.source),
                               read_files=files[0], modified_files=files[1], turn_start=turn_start,
                               max_tokens=summary_budget(snapshot.window.tokens), count=count,
                               kept=[replace(s, parts=redacted_parts(s.parts)) for s in kept],
                               transcript=str(snapshot.source.path))
    return LayerSummary(built.text, omitted=len(built.omitted))
