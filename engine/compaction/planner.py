"""Layered compaction planning (SPEC §6.1–§6.3; seeds 003, 004): pure, deterministic, no writes.

:func:`plan_compaction` cuts the context by pi's rules (:func:`~engine.accounting.context.find_cut_point`: boundary
after the
previous compaction, never at a tool result, split turns) with the layer's protected budget, builds the layer's
summary (:mod:`~engine.compaction.summarizer`), and measures tokens before → after with the engine's tokenizer.
Everything
in the context before the cut is folded into the new summary: the previous summary, the messages it kept, and
the new span — pi itself drops the previously kept messages, which loses them.

Layer choice (:func:`select_compaction_layer`): seed 003's loop tries prune → summarize → full and returns the
first match, so ``full`` could never win; ctxscope takes ``full`` at its trigger, else ``prune`` when tool
outputs are large, else ``summarize``.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.accounting.context import ContextMessage, find_cut_point
from engine.accounting.measure import TokenCache, message_tokens, text_of
from engine.accounting.tokens import TokenCounter, get_counter
from engine.capture.redact import redact_secrets
from engine.checkpoints.render import render_checkpoint
from engine.checkpoints.store import latest_checkpoint
from engine.compaction.degradation import assess_degradation, check_guard, evaluate_degradation
from engine.compaction.layer_summary import build_span, layer_summary, pins_on_path, preview
from engine.compaction.plan import CompactionPlan, not_smaller_reason
from engine.compaction.span_text import Loader, file_operations
from engine.compaction.summarizer import SummaryHeader
from engine.compaction.summary_sections import parse_summary
from engine.config.compaction_settings import LAYERS
from engine.config.loader import Config, resolve_state_dir
from engine.fs.session_lock import inspect_lock
from engine.session.cost import rewrite_cost
from engine.session.snapshot import SessionSnapshot
from engine.stores.entries import IMAGE_CHARS, Entry
from engine.stores.reader import open_reader
from engine.stores.source import SessionSource

__all__ = [
    "AGENT_ACTIVE_SECONDS",
    "LAYERS",
    "choose_controller",
    "plan_compaction",
    "select_compaction_layer",
    "tool_output_tokens",
]

AGENT_ACTIVE_SECONDS = 5.0
"""A transcript written this recently probably has an agent mid-run."""


def select_compaction_layer(
    utilization: float | None, tool_output_tokens: int, config: Config | None = None
) -> str | None:
    """The layer the seed-003 triggers call for at ``utilization`` (fraction), or ``None`` below every trigger.

    Defaults: ``full`` at ≥ 95%; ``prune`` at ≥ 80% when tool outputs exceed 50k tokens; ``summarize`` at ≥ 88%.
    """
    if utilization is None:
        return None
    settings = (config or Config()).compaction
    full, prune, summarize = settings.full, settings.prune, settings.summarize
    if full.trigger is not None and utilization >= full.trigger:
        return "full"
    if prune.trigger is not None and utilization >= prune.trigger and tool_output_tokens > prune.min_tool_output_tokens:
        return "prune"
    if summarize.trigger is not None and utilization >= summarize.trigger:
        return "summarize"
    return None


def tool_output_tokens(snapshot: SessionSnapshot) -> int:
    """Tool output in the context, in pi-estimate tokens (the prune layer's condition)."""
    return sum(m.entry.pi_tokens for m in snapshot.view.messages if m.role in ("toolResult", "bashExecution"))


def choose_controller(source: SessionSource, requested: str = "auto") -> tuple[str, str | None]:
    """The controller for ``source`` given the requested one, and why it must refuse (``None`` if it may act)."""
    if source.in_database:
        if requested in ("auto", "gateway"):
            return "gateway", None
        return "none", (
            f"{source.key} lives in OpenClaw's SQLite store, which only the gateway writes; "
            "compact it with --controller gateway"
        )
    if requested == "none":
        return "none", "the configured controller is 'none': compaction is disabled for this session"
    if requested == "gateway":
        if source.format != "openclaw-jsonl" or source.store_entry is None:
            return "gateway", (
                f"{source.key} is not an OpenClaw session with a session key in sessions.json, "
                "so the gateway cannot address it; use --controller jsonl"
            )
        return "gateway", None
    if source.kind != "live":
        return "none", f"{source.path} is an archived transcript; nothing reads it any more, so it is never compacted"
    return "jsonl", None


def _jsonl_problems(snapshot: SessionSnapshot) -> list[str]:
    path = snapshot.source.path
    if snapshot.headerless:
        return [f"{path} has no session header; pi would discard it and start a new session, "
                "so ctxscope only reads it (FORMATS §1.2)"]
    if snapshot.version < 3:
        return [f"{path} is a version {snapshot.version} session; pi migrates and rewrites such files when it "
                "opens them, so ctxscope only reads them (FORMATS §1.8). Open it once in pi or OpenClaw first."]
    return []


class _Objects:
    """Loads each entry's JSON once per plan (summary, tokens, archive and pins all read the same objects)."""

    def __init__(self, load: Loader) -> None:
        self._load = load
        self._cache: dict[tuple[int, int], dict[str, Any]] = {}

    def read_object(self, entry: Entry) -> dict[str, Any]:
        key = (entry.line_no, entry.offset)
        cached = self._cache.get(key)
        if cached is None:
            cached = self._cache[key] = dict(self._load(entry))
        return cached

    def __call__(self, entry: Entry) -> dict[str, Any]:
        return self.read_object(entry)


def _default_loader(source: SessionSource) -> Loader:
    return open_reader(source).read_object


def _count_tokens_in_background(
    messages: list[ContextMessage], objects: _Objects, counter: TokenCounter, cache: TokenCache
) -> Callable[[], None]:
    """Start counting the uncached messages on a worker thread; returns the join that fills ``cache``.

    tiktoken releases the GIL, so counting overlaps the summary work; the cache keys and formula are
    :func:`engine.accounting.measure.message_tokens`'s, which then finds every count cached.
    """
    keys: list[tuple[int, int, str]] = []
    texts: list[str] = []
    images: list[int] = []
    for m in messages:
        key = (m.entry.offset, m.entry.length, m.role)
        if key in cache:
            continue
        text, count = text_of(m, objects(m.entry))
        keys.append(key)
        texts.append(text)
        images.append(count)
    results: list[int] = []
    worker = threading.Thread(target=lambda: results.extend(counter.count(t) for t in texts), daemon=True)
    worker.start()

    def join() -> None:
        worker.join()
        for key, tokens, count in zip(keys, results, images, strict=True):
            cache[key] = tokens + count * (IMAGE_CHARS // 4)

    return join


def plan_compaction(
    snapshot: SessionSnapshot,
    layer: str,
    focus: str | None = None,
    *,
    keep_recent: int | None = None,
    config: Config | None = None,
    load: Loader | None = None,
    state_dir: Path | None = None,
    controller: str | None = None,
    automatic: bool = False,
    auto_compactions: int = 0,
    now: datetime | None = None,
    token_cache: TokenCache | None = None,
    summary_format: str | None = None,
) -> CompactionPlan:
    """Plan a compaction of ``snapshot`` with ``layer``; reads the transcript and state dir, writes nothing.

    Args:
        keep_recent: protected budget in pi-estimate tokens, overriding the layer's (which is capped at half
            the window, as in seed 003).
        load: re-reads an entry's JSON (the follower's ``reader.read_object``); default: a fresh reader.
        state_dir: where checkpoints live (default: :func:`engine.config.loader.resolve_state_dir`).
        controller: ``auto``/``jsonl``/``gateway``/``none`` (default: the config's).
        automatic: planned by the sidecar; the guard then counts ``auto_compactions``.
        summary_format: ``pi`` or ``openclaw`` to override the format of the session's agent (summarize/full).

    Raises:
        ValueError: unknown ``layer`` or a negative ``keep_recent``.
    """
    if layer not in LAYERS:
        raise ValueError(f"unknown compaction layer {layer!r}; choose one of {', '.join(LAYERS)}")
    if keep_recent is not None and keep_recent < 0:
        raise ValueError(f"keep_recent must be >= 0, got {keep_recent}")
    config = config or Config()
    settings = config.compaction
    now = now or datetime.now(UTC)
    source, view = snapshot.source, snapshot.view
    path = view.path
    objects = _Objects(load or _default_loader(source))
    state_dir = state_dir or resolve_state_dir(source.state_dir, config)
    chosen, refusal = choose_controller(source, controller or settings.controller)
    blocked = [refusal] if refusal else []
    warnings: list[str] = []
    if chosen == "jsonl":
        blocked += _jsonl_problems(snapshot)

    budget = keep_recent if keep_recent is not None else min(
        settings.layer(layer).protect_recent, max(1, snapshot.window.tokens // 2))
    cut = find_cut_point(path, budget)
    first = cut.first_kept_index
    has_cut = first < len(path) and path[first].id is not None and path[-1].type != "compaction"
    summarized = [m for m in view.messages if has_cut and m.path_index < first]
    kept = [m for m in view.messages if not has_cut or m.path_index >= first]
    new_material = [m for m in summarized if m.path_index >= cut.boundary_start]
    if path and path[-1].type == "compaction":
        blocked.append("nothing to compact: the session already ends on a compaction (pi: \"Already compacted\")")
    elif not new_material:
        since = sum(m.entry.pi_tokens for m in view.messages if m.path_index >= cut.boundary_start)
        where = "since the last compaction" if view.compaction is not None else "in the context"
        blocked.append(f"nothing to compact: the {since:,} tokens {where} fit in the protected budget of {budget:,}; "
                       "pass --keep-recent with a smaller budget to compact anyway")

    counter = get_counter()
    cache: TokenCache = token_cache if token_cache is not None else {}
    join_counts = _count_tokens_in_background(list(view.messages), objects, counter, cache)
    span = build_span(summarized, objects, pins_on_path(path, settings.pinned))
    turn_start = None
    if cut.is_split_turn and has_cut:
        turn_start = next((i for i, s in enumerate(span) if s.message.path_index >= cut.turn_start_index), None)
    previous = objects(view.compaction) if view.compaction is not None and summarized else {}
    files = _with_summary_files(file_operations((s.parts for s in span), previous.get("details")),
                                previous.get("summary"))
    first_kept = path[first] if has_cut else None
    latest = latest_checkpoint(state_dir, source.key)
    join_counts()
    tokens = {id(m): message_tokens(m, objects, counter=counter, cache=cache) for m in view.messages}
    tokens_summarized = sum(tokens[id(m)] for m in summarized)
    tokens_kept = sum(tokens[id(m)] for m in kept)
    # One figure for the summarized tokens: the header states the plan's own count.
    header = SummaryHeader(layer, len(summarized), tokens_summarized, (first_kept.id or "") if first_kept else "",
                           focus)
    after_cut = build_span(kept, objects, {}) if layer in ("summarize", "full") else []
    built = layer_summary(layer, snapshot, span, header, config=config, files=files, turn_start=turn_start,
                          now=now, count=counter.count, fmt=summary_format, kept=after_cut)
    if built.problem and summarized:
        blocked.append(built.problem)
    if built.omitted:
        warnings.append(f"{built.omitted} whole items of the summary were left out for size; the summary names "
                        "the entries that hold them verbatim")
    summary = redact_secrets(built.text)
    summary_tokens = counter.count(summary)

    loaded = latest if chosen == "jsonl" else None
    rendered = render_checkpoint(loaded.checkpoint) if loaded is not None else None
    checkpoint_tokens = rendered.tokens if rendered is not None else 0
    if loaded is not None and summary_tokens + checkpoint_tokens >= tokens_summarized:
        warnings.append(f"the checkpoint message ({checkpoint_tokens:,} tokens) is left out: with it the context "
                        "would not shrink")
        loaded, rendered, checkpoint_tokens = None, None, 0
    if new_material and summary_tokens >= tokens_summarized:
        blocked.append(not_smaller_reason(layer, summary_tokens, tokens_summarized))

    measured = snapshot.tokens.tokens
    overhead = max(0, measured - sum(tokens.values())) if measured is not None else 0
    if measured is None:
        warnings.append("context size unknown since the last compaction (no usage yet): figures are tokenizer "
                        "counts of the transcript, without the system prompt")
    before = tokens_summarized + tokens_kept + overhead
    after = summary_tokens + tokens_kept + checkpoint_tokens + overhead
    cost = rewrite_cost(snapshot.model, snapshot.provider, before, after)
    assessment = assess_degradation(snapshot, checkpoints=(latest.checkpoint,) if latest else (), summary_text=summary)
    report = assessment.report
    guard = check_guard(report, automatic=automatic, auto_compactions=auto_compactions,
                        max_auto_compactions=settings.max_auto_compactions)
    if not guard.allowed:
        blocked.append(guard.reason)
    elif guard.needs_confirmation:
        warnings.append(guard.reason)
    warnings += list(assessment.warnings)
    following = evaluate_degradation(report.compaction_count + 1)
    if following.level != report.level:
        warnings.append(f"this will be compaction #{report.compaction_count + 1}: degradation risk "
                        f"{report.level} → {following.level}")
    if layer == "full":
        warnings.append(f"full compaction: only the last ~{budget:,} tokens stay verbatim; everything before is "
                        "replaced by the summary")
    if chosen == "gateway":
        warnings.append("the gateway runs its own (LLM) compaction: the summary below is ctxscope's preview, not "
                        "what the gateway will write")
    warnings += _activity_warnings(snapshot, chosen, now)
    return CompactionPlan(
        source=source,
        layer=layer,
        focus=focus,
        controller=chosen,
        leaf_id=view.leaf.id if view.leaf else None,
        first_kept_entry_id=first_kept.id if first_kept else None,
        first_kept_line=first_kept.line_no if first_kept else None,
        split_turn=turn_start is not None,
        turn_start_entry_id=path[cut.turn_start_index].id if turn_start is not None else None,
        keep_recent_tokens=budget,
        messages_summarized=len(summarized),
        messages_kept=len(kept),
        tokens_summarized=tokens_summarized,
        tokens_kept=tokens_kept,
        summary=summary,
        summary_tokens=summary_tokens,
        checkpoint_tokens=checkpoint_tokens,
        overhead_tokens=overhead,
        tokens_before_estimate=snapshot.tokens.agent_estimate,
        token_method=counter.method,
        read_files=files[0],
        modified_files=files[1],
        pinned=tuple(s.message.entry.id or "" for s in span if s.pin is not None),
        dropped=tuple(preview(s, tokens[id(s.message)]) for s in span),
        kept_ids=tuple(m.entry_id for m in kept),
        cost=cost,
        degradation=assessment,
        guard=guard,
        warnings=tuple(warnings),
        blocked=tuple(blocked),
        checkpoint=loaded,
        rendered_checkpoint=rendered,
        archive=built.archive,
        created_at=now.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        automatic=automatic,
        model=snapshot.model,
        provider=snapshot.provider,
    )


def _with_summary_files(
    files: tuple[tuple[str, ...], tuple[str, ...]], summary: Any
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """pi's file lists with those the previous summary's ``<read-files>``/``<modified-files>`` blocks name
    (a compaction without ``details``, as pi's legacy files have, keeps its lists only there)."""
    if not isinstance(summary, str) or "-files>" not in summary:
        return files
    parsed = parse_summary(summary)
    modified = set(files[1]) | set(parsed.modified_files)
    read = (set(files[0]) | set(parsed.read_files)) - modified
    return tuple(sorted(read)), tuple(sorted(modified))


def _activity_warnings(snapshot: SessionSnapshot, controller: str, now: datetime) -> list[str]:
    warnings: list[str] = []
    source = snapshot.source
    if controller == "jsonl":
        info = inspect_lock(source.path)
        if info is not None and info.pid == os.getpid():
            pass  # our own lock: the controller re-plans while holding it
        elif info is not None and not info.stale:
            warnings.append(f"{info.path.name} is held by pid {info.pid} since {info.created_at or '?'}: applying "
                            "waits for it and never breaks a live lock")
        elif info is not None:
            warnings.append(f"a stale lock ({info.reason}, pid {info.pid}) will be taken over")
    try:
        age = now.timestamp() - source.path.stat().st_mtime
    except OSError:
        age = None
    if age is not None and 0 <= age < AGENT_ACTIVE_SECONDS:  # a future mtime is clock skew, not activity
        warnings.append(f"the transcript changed {max(age, 0.0):.1f} s ago: the agent may be mid-run")
    return warnings

