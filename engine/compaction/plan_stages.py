"""The planning stages, cut → summary → figures → assessment → verdict (docs/compaction.md, Plan first).

Each stage computes one value of :mod:`engine.compaction.plan_parts` from the request, the snapshot, the inputs
gathered at the edge (:mod:`engine.compaction.plan_inputs`) and the earlier stages' values; none touches the file
system except through the inputs' :class:`~engine.compaction.plan_inputs.EntryObjects` (each transcript entry
loaded once) and, for drop-only, :func:`~engine.compaction.layer_summary.layer_summary`'s workspace check (the
header's ``cwd``, the workspace resolved without following symlinks), which still runs inside the summary stage.

The cut follows pi (:func:`~engine.accounting.context.find_cut_point`: the search starts at the previous
compaction's first kept entry, never cuts at a tool result, splits turns); everything in the context before the
cut is folded into the new summary — the previous summary, the messages it kept, and the new span — as
pi 0.63.1 and later do (docs/pi.md).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from engine.accounting.context import ContextView, CutPoint, cut_after, find_cut_point, has_pi_cut, pi_branch
from engine.accounting.measure import text_of
from engine.capture.redact import redact_secrets
from engine.checkpoints.render import render_checkpoint
from engine.compaction.budget import protected_budget
from engine.compaction.degradation import assess_degradation, check_guard, evaluate_degradation
from engine.compaction.layer_summary import build_span, layer_summary, pins_on_path, preview
from engine.compaction.plan import not_smaller_reason
from engine.compaction.plan_inputs import PlanInputs, TokenCounts
from engine.compaction.plan_parts import PlanAssessment, PlanFigures, PlannedCut, PlanVerdict, SummaryDraft
from engine.compaction.request import CompactionRequest
from engine.compaction.span_text import Loader, file_operations, redacted_loader
from engine.compaction.summarizer import SpanMessage, SummaryHeader
from engine.compaction.summary_sections import parse_summary
from engine.config.compaction_settings import CompactionSettings
from engine.config.loader import Config
from engine.session.cost import rewrite_cost
from engine.session.snapshot import SessionSnapshot
from engine.stores.source import AGENT_FORMATS

__all__ = [
    "AGENT_ACTIVE_SECONDS",
    "SummaryMaterial",
    "assess",
    "cut_context",
    "decide",
    "draft_summary",
    "measure",
    "summary_material",
]

AGENT_ACTIVE_SECONDS = 5.0
"""A transcript written this recently probably has an agent mid-run."""


def cut_context(snapshot: SessionSnapshot, request: CompactionRequest, settings: CompactionSettings) -> PlannedCut:
    """The cut stage: pi's cut with the layer's protected budget, or right after the chosen messages."""
    view, path = snapshot.view, snapshot.view.path
    protected = protected_budget(request.layer, snapshot.window.tokens, settings, request.keep_recent)
    budget = protected.tokens
    cut = find_cut_point(path, budget)
    chosen: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    if request.targets is not None:
        cut, chosen, problems = _targeted_cut(view, request.targets)
    first = cut.first_kept_index
    has_cut = has_pi_cut(pi_branch(view), cut)
    # pi never keeps an earlier summary verbatim, even when the cut lies before that compaction: it goes into the
    # new summary (docs/pi.md, Cut point).
    summarized = tuple(m for m in view.messages if has_cut and (m.path_index < first or m.role == "compactionSummary"))
    kept = tuple(m for m in view.messages if not has_cut or (m.path_index >= first and m.role != "compactionSummary"))
    # Chosen messages (prune targets) are material wherever they sit.
    new_material = summarized if request.targets is not None else tuple(
        m for m in summarized if m.path_index >= cut.boundary_start and m.role != "compactionSummary")
    nothing = None
    if path and path[-1].type == "compaction":
        nothing = "nothing to compact: the session already ends on a compaction (pi: \"Already compacted\")"
    elif path and not pi_branch(view):
        nothing = ("nothing to compact: the last entry has no id, so pi has no leaf to compact from (pi: \"Nothing to "
                   "compact\")")
    elif request.targets is None and not new_material:
        since = sum(m.entry.pi_tokens for m in view.messages
                    if m.path_index >= cut.boundary_start and m.role != "compactionSummary")
        where = "since the last compaction" if view.compaction is not None else "in the context"
        # The cut is pi's for every agent (docs/compaction.md), but only a pi user knows "pi's estimate".
        how = "at 4 characters a token" if snapshot.source.format in AGENT_FORMATS else "pi's estimate"
        nothing = (f"nothing to compact: the {since:,} tokens {where} ({how}, the earlier summary aside) "
                   f"fit in the protected budget of {protected.describe()}; a smaller protected budget "
                   "(--keep-recent; the dialog's keep recent field) compacts anyway")
    first_kept = path[first] if has_cut else None
    split = cut.is_split_turn and has_cut
    return PlannedCut(
        keep_recent_tokens=budget,
        protected=protected,
        first_kept_entry_id=first_kept.id if first_kept else None,
        first_kept_line=first_kept.line_no if first_kept else None,
        split_turn=split,
        turn_start_entry_id=path[cut.turn_start_index].id if split else None,
        turn_start_index=cut.turn_start_index if split else None,
        summarized=summarized,
        kept=kept,
        new_material=new_material,
        targets=chosen,
        problems=problems,
        nothing_to_compact=nothing,
    )


def _targeted_cut(view: ContextView, targets: Collection[str]) -> tuple[CutPoint, tuple[str, ...], tuple[str, ...]]:
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
        return end, (), tuple(problems)
    cut = cut_after(view.path, max(m.path_index for m in found))
    if cut is None:
        problems.append("the chosen messages end the context: a compaction must keep a message after them; "
                        "prune them after the agent's next reply")
        return end, tuple(m.entry.id or "" for m in found), tuple(problems)
    return cut, tuple(m.entry.id or "" for m in found), tuple(problems)


@dataclass(frozen=True, slots=True)
class SummaryMaterial:
    """What the summary is built from, prepared while the tokens are still being counted."""

    span: tuple[SpanMessage, ...]
    """The summarized messages pi sends, redacted, with their pins."""
    turn_start: int | None
    """Index in :attr:`span` of the split turn's start."""
    files: tuple[tuple[str, ...], tuple[str, ...]]
    redacted: Loader


def summary_material(
    snapshot: SessionSnapshot, cut: PlannedCut, inputs: PlanInputs, settings: CompactionSettings
) -> SummaryMaterial:
    """The first half of the summary stage: the span, the split turn's start and pi's file lists."""
    view, objects = snapshot.view, inputs.objects
    # Derivations read redacted objects; the token counts read the transcript as it is.
    redacted = redacted_loader(objects)
    # Messages pi never sends (``!!`` commands, unknown roles) are not summarized either.
    span = tuple(build_span([m for m in cut.summarized if m.sent], redacted, pins_on_path(view.path, settings.pinned)))
    turn_start = None
    if cut.turn_start_index is not None:
        turn_start = next((i for i, s in enumerate(span) if s.message.path_index >= cut.turn_start_index), None)
    previous = objects(view.compaction) if view.compaction is not None and cut.summarized else {}
    files = _with_summary_files(file_operations((s.parts for s in span), previous.get("details")),
                                previous.get("summary"))
    return SummaryMaterial(span, turn_start, files, redacted)


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


def draft_summary(
    snapshot: SessionSnapshot, request: CompactionRequest, cut: PlannedCut, material: SummaryMaterial,
    counts: TokenCounts, inputs: PlanInputs, config: Config,
) -> SummaryDraft:
    """The summary stage: the layer's summary of the cut (:mod:`engine.compaction.layer_summary`)."""
    # One figure for the summarized tokens: the header states the plan's own count.
    header = SummaryHeader(request.layer, len(cut.summarized), counts.total(cut.summarized),
                           cut.first_kept_entry_id or "", request.focus)
    after_cut = build_span(cut.kept, material.redacted, {}) if request.layer in ("summarize", "full") else []
    built = layer_summary(request.layer, snapshot, material.span, header, config=config, files=material.files,
                          turn_start=material.turn_start, now=request.now, count=inputs.counter.count,
                          fmt=request.summary_format, kept=after_cut,
                          targets=cut.targets if request.targets is not None else None)
    return SummaryDraft(
        text=redact_secrets(built.text),
        read_files=material.files[0],
        modified_files=material.files[1],
        pinned=tuple(s.message.entry.id or "" for s in material.span if s.pin is not None),
        dropped=tuple(preview(s, counts.of(s.message)) for s in material.span),
        # Through the gateway OpenClaw writes the summary; nothing of ctxscope's is archived.
        archive=built.archive if inputs.controller != "gateway" else None,
        problem=built.problem,
        omitted=built.omitted,
    )


def measure(
    snapshot: SessionSnapshot, cut: PlannedCut, draft: SummaryDraft, counts: TokenCounts, inputs: PlanInputs
) -> PlanFigures:
    """The figures stage: tokens before → after (with the checkpoint message if it still shrinks) and the cost."""
    tokens_summarized, tokens_kept = counts.total(cut.summarized), counts.total(cut.kept)
    summary_tokens = inputs.counter.count(draft.text)
    loaded = inputs.latest if inputs.controller == "jsonl" else None
    rendered = render_checkpoint(loaded.checkpoint) if loaded is not None else None
    checkpoint_tokens = rendered.tokens if rendered is not None else 0
    left_out = None
    if loaded is not None and summary_tokens + checkpoint_tokens >= tokens_summarized:
        left_out, loaded, rendered, checkpoint_tokens = checkpoint_tokens, None, None, 0
    measured = snapshot.tokens.tokens
    overhead = max(0, measured - counts.context) if measured is not None else 0
    before = tokens_summarized + tokens_kept + overhead
    after = summary_tokens + tokens_kept + checkpoint_tokens + overhead
    return PlanFigures(
        token_method=counts.method,
        tokens_summarized=tokens_summarized,
        tokens_kept=tokens_kept,
        summary_tokens=summary_tokens,
        checkpoint_tokens=checkpoint_tokens,
        overhead_tokens=overhead,
        tokens_before_estimate=snapshot.tokens.agent_estimate,
        usage_known=measured is not None,
        cost=rewrite_cost(snapshot.model, snapshot.provider, before, after),
        checkpoint=loaded,
        rendered_checkpoint=rendered,
        checkpoint_left_out=left_out,
    )


def assess(
    snapshot: SessionSnapshot, request: CompactionRequest, inputs: PlanInputs, cut: PlannedCut, draft: SummaryDraft,
    figures: PlanFigures, settings: CompactionSettings,
) -> PlanAssessment:
    """The assessment stage: the session's degradation, the guard's decision and the degradation after."""
    latest = inputs.latest
    # What the context still holds beside the summary: a checkpoint decision said in a kept message is not lost.
    kept = [text_of(m, inputs.objects(m.entry))[0] for m in cut.kept]
    if figures.rendered_checkpoint is not None:
        kept.append(figures.rendered_checkpoint.text)
    degradation = assess_degradation(snapshot, checkpoints=(latest.checkpoint,) if latest else (),
                                     summary_text=draft.text, kept_text="\n".join(kept))
    report = degradation.report
    guard = check_guard(report, automatic=request.automatic, auto_compactions=request.auto_compactions,
                        max_auto_compactions=settings.max_auto_compactions, loss=degradation.loss)
    return PlanAssessment(degradation, guard, evaluate_degradation(report.compaction_count + 1))


def decide(
    request: CompactionRequest, inputs: PlanInputs, cut: PlannedCut, draft: SummaryDraft, figures: PlanFigures,
    assessment: PlanAssessment,
) -> PlanVerdict:
    """The verdict stage: every warning and every reason the plan must not be applied, in the order shown."""
    warnings: list[str] = []
    if draft.omitted:
        warnings.append(f"{draft.omitted} whole items of the summary were left out for size; the summary names "
                        "the entries that hold them verbatim")
    if figures.checkpoint_left_out is not None:
        warnings.append(f"the checkpoint message ({figures.checkpoint_left_out:,} tokens) is left out: with it the "
                        "context would not shrink")
    if not figures.usage_known:
        warnings.append("context size unknown since the last compaction (no usage yet): figures are tokenizer "
                        "counts of the transcript, without the system prompt")
    guard, report = assessment.guard, assessment.degradation.report
    if guard.allowed and guard.needs_confirmation:
        warnings.append(guard.reason)
    warnings += assessment.degradation.warnings
    if assessment.following.level != report.level:
        warnings.append(f"this will be compaction #{report.compaction_count + 1}: degradation risk "
                        f"{report.level} → {assessment.following.level}")
    if request.layer == "full":
        warnings.append(f"full compaction: only the last ~{cut.keep_recent_tokens:,} tokens stay verbatim; "
                        "everything before is replaced by the summary")
    blocked = [*inputs.controller_problems, *cut.problems]
    if not guard.allowed:
        blocked.append(guard.reason)
    if inputs.controller == "gateway":
        warnings.append("OpenClaw chooses the cut and writes the summary itself; ctxscope only asks the gateway and "
                        "reports what it did")
        if request.layer != "summarize":
            blocked.append(f"the gateway only summarizes (OpenClaw's own compaction); the {request.layer} layer is "
                           "something only the jsonl controller writes")
    else:  # ctxscope's own budget decides only what ctxscope writes; through the gateway, OpenClaw decides.
        if cut.nothing_to_compact is not None:
            blocked.append(cut.nothing_to_compact)
        if draft.problem and cut.summarized:
            blocked.append(draft.problem)
        if cut.new_material and figures.summary_tokens >= figures.tokens_summarized:
            blocked.append(not_smaller_reason(request.layer, figures.summary_tokens, figures.tokens_summarized))
    warnings += _activity_warnings(inputs)
    return PlanVerdict(tuple(warnings), tuple(blocked))


def _activity_warnings(inputs: PlanInputs) -> list[str]:
    warnings: list[str] = []
    info = inputs.lock
    if info is None or info.problem is not None:
        pass  # no lock, or blocked: nobody can take that lock
    elif info.pid == inputs.own_pid:
        pass  # our own lock: the controller re-plans while holding it
    elif not info.stale:
        warnings.append(f"{info.path.name} is held by pid {info.pid} since {info.created_at or '?'}: applying "
                        "waits for it and never breaks a live lock")
    else:
        warnings.append(f"a stale lock ({info.reason}, pid {info.pid}) will be taken over")
    age = inputs.transcript_age
    if age is not None and 0 <= age < AGENT_ACTIVE_SECONDS:  # a future mtime is clock skew, not activity
        warnings.append(f"the transcript changed {max(age, 0.0):.1f} s ago: the agent may be mid-run")
    return warnings
