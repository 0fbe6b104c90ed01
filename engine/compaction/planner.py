"""Layered compaction planning (docs/compaction.md): pure, deterministic, no writes.

:func:`plan_compaction` cuts the context by pi's rules (:func:`~engine.accounting.context.find_cut_point`: the
search starts at the previous compaction's first kept entry, never cuts at a tool result, splits turns) with the
layer's protected budget, builds the layer's summary (:mod:`~engine.compaction.summarizer`), and measures tokens
before → after with the engine's tokenizer. Everything in the context before the cut is folded into the new
summary: the previous summary, the messages it kept, and the new span, as pi 0.63.1 and later do (docs/pi.md).

Layer choice (:func:`select_compaction_layer`): the original loop tries prune → summarize → full and returns the
first match, so ``full`` could never win; ctxscope takes ``full`` at its trigger, else ``prune`` when tool
outputs are large, else ``summarize``.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Collection
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.accounting.context import ContextMessage, ContextView, CutPoint, cut_after, find_cut_point
from engine.accounting.measure import TokenCache, message_tokens, text_of
from engine.accounting.tokens import TokenCounter, get_counter
from engine.capture.redact import redact_secrets
from engine.checkpoints.render import render_checkpoint
from engine.checkpoints.store import latest_checkpoint
from engine.compaction.budget import protected_budget
from engine.compaction.choice import (
    choose_controller,
    jsonl_problems,
    openclaw_budget_of,
    select_compaction_layer,
    tool_output_tokens,
)
from engine.compaction.degradation import assess_degradation, check_guard, evaluate_degradation
from engine.compaction.layer_summary import build_span, layer_summary, pins_on_path, preview
from engine.compaction.plan import CompactionPlan, not_smaller_reason
from engine.compaction.span_text import Loader, file_operations, redacted_loader
from engine.compaction.summarizer import SummaryHeader
from engine.compaction.summary_sections import parse_summary
from engine.config.compaction_settings import LAYERS
from engine.config.loader import Config, resolve_state_dir
from engine.fs.session_lock import inspect_lock
from engine.session.cost import rewrite_cost
from engine.session.snapshot import SessionSnapshot
from engine.stores.entries import Entry
from engine.stores.message_content import IMAGE_CHARS
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
    targets: Collection[str] | None = None,
) -> CompactionPlan:
    """Plan a compaction of ``snapshot`` with ``layer``; reads the transcript and state dir, writes nothing.

    Args:
        keep_recent: protected budget in pi-estimate tokens, overriding the layer's (which is capped at half
            the window; docs/compaction.md, Layers).
        load: re-reads an entry's JSON (the follower's ``reader.read_object``); default: a fresh reader.
        state_dir: where checkpoints live (default: :func:`engine.config.loader.resolve_state_dir`).
        controller: ``auto``/``jsonl``/``gateway``/``none`` (default: the config's).
        automatic: planned by the sidecar; the guard then counts ``auto_compactions``.
        summary_format: ``pi`` or ``openclaw`` to override the format of the session's agent (summarize/full).
        targets: prune exactly these context messages (entry ids, e.g. the largest ones): the cut goes right
            after the last of them, they are cleared or trimmed, and every other message is carried whole.
            Only with the ``prune`` layer; ``keep_recent`` is then ignored.

    Raises:
        ValueError: unknown ``layer``, a negative ``keep_recent``, or ``targets`` with another layer.
    """
    if layer not in LAYERS:
        raise ValueError(f"unknown compaction layer {layer!r}; choose one of {', '.join(LAYERS)}")
    if keep_recent is not None and keep_recent < 0:
        raise ValueError(f"keep_recent must be >= 0, got {keep_recent}")
    if targets is not None and layer != "prune":
        raise ValueError(f"only the prune layer takes chosen messages, not {layer!r}")
    config = config or Config()
    settings = config.compaction
    now = now or datetime.now(UTC)
    # The focus goes into the summary, the audit log and the LLM prompt: a pasted secret must not.
    focus = redact_secrets(focus) if focus else focus
    source, view = snapshot.source, snapshot.view
    path = view.path
    objects = _Objects(load or _default_loader(source))
    state_dir = state_dir or resolve_state_dir(source.state_dir, config)
    chosen, refusal = choose_controller(source, controller or settings.controller)
    blocked = [refusal] if refusal else []
    warnings: list[str] = []
    if chosen == "jsonl":
        blocked += jsonl_problems(snapshot)
        lock = inspect_lock(source.path)
        if lock is not None and lock.problem is not None:
            blocked.append(lock.problem)

    protected = protected_budget(layer, snapshot.window.tokens, settings, keep_recent)
    budget = protected.tokens
    cut = find_cut_point(path, budget)
    chosen_ids: tuple[str, ...] = ()
    if targets is not None:
        cut, chosen_ids, problems = _targeted_cut(view, targets)
        blocked += problems
    first = cut.first_kept_index
    has_cut = first < len(path) and path[first].id is not None and path[-1].type != "compaction"
    summarized = [m for m in view.messages if has_cut and m.path_index < first]
    kept = [m for m in view.messages if not has_cut or m.path_index >= first]
    # pi's messagesToSummarize and turn prefix: the messages from the boundary on, the previous summary aside.
    # Chosen messages (prune targets) are material wherever they sit.
    new_material = summarized if targets is not None else [
        m for m in summarized if m.path_index >= cut.boundary_start and m.role != "compactionSummary"]
    # ctxscope's own budget decides only what ctxscope writes; through the gateway, OpenClaw decides.
    own: list[str] = []
    if path and path[-1].type == "compaction":
        own.append("nothing to compact: the session already ends on a compaction (pi: \"Already compacted\")")
    elif targets is not None:
        pass  # _targeted_cut said what, if anything, stands in the way
    elif not new_material:
        since = sum(m.entry.pi_tokens for m in view.messages
                    if m.path_index >= cut.boundary_start and m.role != "compactionSummary")
        where = "since the last compaction" if view.compaction is not None else "in the context"
        own.append(f"nothing to compact: the {since:,} tokens {where} (pi's estimate, the earlier summary aside) "
                   f"fit in the protected budget of {protected.describe()}; a smaller protected budget (--keep-recent; "
                   "the dialog's keep recent field) compacts anyway")

    counter = get_counter()
    cache: TokenCache = token_cache if token_cache is not None else {}
    join_counts = _count_tokens_in_background(list(view.messages), objects, counter, cache)
    # Derivations read redacted objects; the token counts above and below read the transcript as it is.
    redacted = redacted_loader(objects)
    # Messages pi never sends (``!!`` commands, unknown roles) are not summarized either.
    span = build_span([m for m in summarized if m.sent], redacted, pins_on_path(path, settings.pinned))
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
    after_cut = build_span(kept, redacted, {}) if layer in ("summarize", "full") else []
    built = layer_summary(layer, snapshot, span, header, config=config, files=files, turn_start=turn_start,
                          now=now, count=counter.count, fmt=summary_format, kept=after_cut,
                          targets=chosen_ids if targets is not None else None)
    if built.problem and summarized:
        own.append(built.problem)
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
        own.append(not_smaller_reason(layer, summary_tokens, tokens_summarized))

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
                        max_auto_compactions=settings.max_auto_compactions, loss=assessment.loss)
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
    archive = built.archive
    openclaw_budget = None
    if chosen == "gateway":
        warnings.append("OpenClaw chooses the cut and writes the summary itself; ctxscope only asks the gateway and "
                        "reports what it did")
        if layer != "summarize":
            blocked.append(f"the gateway only summarizes (OpenClaw's own compaction); the {layer} layer is "
                           "something only the jsonl controller writes")
        archive = None
        openclaw_budget = openclaw_budget_of(source)
    else:
        blocked += own
    warnings += _activity_warnings(snapshot, chosen, now)
    return CompactionPlan(
        source=source,
        layer=layer,
        focus=focus,
        controller=chosen,
        leaf_id=view.leaf.id if view.leaf else None,
        first_kept_entry_id=first_kept.id if first_kept else None,
        first_kept_line=first_kept.line_no if first_kept else None,
        # pi's flag, also when the cut lands on its own turn start (an empty prefix): inspect reports the same.
        split_turn=cut.is_split_turn and has_cut,
        turn_start_entry_id=path[cut.turn_start_index].id if cut.is_split_turn and has_cut else None,
        keep_recent_tokens=budget,
        protected=protected,
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
        archive=archive,
        openclaw_budget=openclaw_budget,
        created_at=now.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        automatic=automatic,
        targets=chosen_ids,
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


def _targeted_cut(view: ContextView, targets: Collection[str]) -> tuple[CutPoint, tuple[str, ...], list[str]]:
    """The cut right after the last chosen message, the chosen ids found in context, and what blocks it."""
    wanted = set(targets)
    found = [m for m in view.messages if m.role != "compactionSummary" and m.entry.id in wanted]
    problems: list[str] = []
    missing = sorted(wanted - {m.entry.id for m in found if m.entry.id})
    if missing:
        problems.append(f"not in the current context (already compacted, or on another branch): {', '.join(missing)}")
    end = CutPoint(len(view.path), -1, False, len(view.path))
    if not found:
        problems.append("no chosen message to prune")
        return end, (), problems
    last = max(m.path_index for m in found)
    cut = cut_after(view.path, last)
    if cut is None:
        problems.append("the chosen messages end the context: a compaction must keep a message after them; "
                        "prune them after the agent's next reply")
        return end, tuple(m.entry.id or "" for m in found), problems
    return cut, tuple(m.entry.id or "" for m in found), problems


def _activity_warnings(snapshot: SessionSnapshot, controller: str, now: datetime) -> list[str]:
    warnings: list[str] = []
    source = snapshot.source
    if controller == "jsonl":
        info = inspect_lock(source.path)
        if info is not None and info.problem is not None:
            pass  # blocked above: nobody can take that lock
        elif info is not None and info.pid == os.getpid():
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

