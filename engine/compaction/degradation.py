"""How degraded a session is after its compactions, and whether another may run.

See docs/compaction.md, Degradation and the guard.

:func:`evaluate_degradation` is the original design's ``evaluateDegradation`` (levels by count, ~10% information
loss per compaction). :func:`assess_degradation` adds what the transcript itself shows: compaction spam
(compactions that summarize nothing new, or several within a few turns — the 32k-window death spiral), OpenClaw's
fallback summaries, a context already over the compaction line right after compacting, and decisions that earlier
checkpoints held but the latest checkpoint or summary no longer does. :func:`check_guard` is the compaction
guard (the design's ``shouldBlockFurtherCompaction`` plus confirmation for manual runs).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from engine.accounting.rounding import percent
from engine.capture.dedup import dedupe, is_semantic_duplicate, normalize
from engine.checkpoints.model import Checkpoint
from engine.stores.entries import Entry

if TYPE_CHECKING:
    from engine.session.snapshot import SessionSnapshot

__all__ = [
    "DEFAULT_MAX_AUTO_COMPACTIONS",
    "FEW_TURNS",
    "HARD_LIMIT",
    "SOFT_LIMIT",
    "DegradationAssessment",
    "DegradationReport",
    "GuardDecision",
    "Level",
    "assess_degradation",
    "check_guard",
    "evaluate_degradation",
]

SOFT_LIMIT = 3
HARD_LIMIT = 5
DEFAULT_MAX_AUTO_COMPACTIONS = 5
FEW_TURNS = 2
"""Compactions at most this many user messages apart count as "within a few turns" of each other."""
_CLOSE_RUN = 3
"""This many compactions in a row, each within :data:`FEW_TURNS` of the previous, is spam."""

Level = Literal["low", "medium", "high", "critical"]


@dataclass(frozen=True, slots=True)
class DegradationReport:
    """The degradation report: risk level, estimated information loss and advice."""

    compaction_count: int
    level: Level
    information_loss: float
    """Estimated fraction of information lost (0.1 per compaction, at most 0.9)."""
    recommendation: str


def evaluate_degradation(compaction_count: int) -> DegradationReport:
    """Levels by compaction count: low, medium (2), high (≥ 3), critical (≥ 5)."""
    count = max(0, compaction_count)
    level: Level
    if count >= HARD_LIMIT:
        level = "critical"
        recommendation = (
            f"CRITICAL: {count} compactions. Context quality significantly degraded.\n"
            "Strongly recommend:\n"
            "  1. ctxscope checkpoint SESSION\n"
            "  2. Start a fresh session\n"
            "  3. ctxscope inject NEW_SESSION"
        )
    elif count >= SOFT_LIMIT:
        level = "high"
        recommendation = (
            f"Session compacted {count} times. Quality may be degrading.\n"
            "Consider: ctxscope checkpoint → fresh session → ctxscope inject"
        )
    else:
        level = "medium" if count >= 2 else "low"
        recommendation = "Context quality is healthy."
    return DegradationReport(count, level, min(0.9, round(0.1 * count, 10)), recommendation)


@dataclass(frozen=True, slots=True)
class DegradationAssessment:
    """The report plus the symptoms visible in the transcript and checkpoints."""

    report: DegradationReport
    compaction_spam: bool
    spam_detail: str | None
    """Why the compactions look like spam, or ``None``."""
    fallback_summaries: int
    """Compactions on the path whose summary is "Summary unavailable due to context limits…"."""
    over_line_after_compaction: bool
    """The context right after the latest compaction was already above the agent's compaction line."""
    lost_decisions_share: float | None
    """Fraction (0–1) of earlier checkpoints' decisions missing from the latest checkpoint/summary; ``None``
    when there is nothing earlier to compare."""
    warnings: tuple[str, ...]
    """One human sentence per symptom, most serious first."""
    noop_compactions: tuple[str, ...] = ()
    """Ids of compactions that summarized nothing new."""
    post_compaction_tokens: int | None = None
    """Context size right after the latest compaction: its first valid usage, else pi's chars/4 estimate."""
    post_compaction_basis: str | None = None
    """What :attr:`post_compaction_tokens` is, said beside it (it is not the gauge's figure and can exceed it):
    ``at the first call after it`` or ``estimated, no call since``."""
    lost_decisions: tuple[str, ...] = ()

    @property
    def loss(self) -> tuple[float, str]:
        """The one information-loss figure every view shows, with its basis: the share of earlier checkpoints'
        decisions missing (measured) when there is something to compare, else the estimate by compaction count
        (10% each). Showing both, as before, put "~30% lost" above "lost 0%" for the same session."""
        if self.lost_decisions_share is not None:
            return self.lost_decisions_share, "of earlier checkpoints' decisions missing"
        return self.report.information_loss, f"estimated from {self.report.compaction_count} compactions"


@dataclass(frozen=True, slots=True)
class _Compaction:
    entry: Entry
    index: int
    users_since_previous: int | None
    noop: bool


def _compactions(path: tuple[Entry, ...]) -> list[_Compaction]:
    index_of = {e.id: i for i, e in enumerate(path) if e.id is not None}
    found: list[_Compaction] = []
    boundary = 0
    previous_kept: str | None = None
    users = 0
    for i, entry in enumerate(path):
        if entry.type == "message" and entry.role == "user":
            users += 1
        if entry.type != "compaction":
            continue
        kept = index_of.get(entry.first_kept_entry_id or "")
        # Nothing new is summarized when no context message lies between the previous boundary and the
        # first kept entry (pi would only re-summarize the previous summary — oc#12170).
        noop = kept is not None and (
            entry.first_kept_entry_id == previous_kept or not any(e.in_context for e in path[boundary:kept])
        )
        found.append(_Compaction(entry, i, users if found else None, noop))
        boundary, previous_kept, users = i + 1, entry.first_kept_entry_id, 0
    return found


def _spam(compactions: list[_Compaction]) -> tuple[bool, str | None]:
    reasons: list[str] = []
    noops = [c for c in compactions if c.noop]
    if len(noops) >= 2:
        reasons.append(f"{len(noops)} compactions summarized nothing new")
    run = best = 1 if compactions else 0
    for c in compactions[1:]:
        run = run + 1 if c.users_since_previous is not None and c.users_since_previous <= FEW_TURNS else 1
        best = max(best, run)
    if best >= _CLOSE_RUN:
        reasons.append(f"{best} compactions in a row with at most {FEW_TURNS} user messages between them")
    return bool(reasons), "; ".join(reasons) or None


def _post_compaction_tokens(snapshot: SessionSnapshot) -> tuple[int, str] | None:
    view = snapshot.view
    if view.compaction is None:
        return None
    for entry in view.path[view.compaction_index + 1 :]:
        if entry.has_valid_usage and entry.usage is not None:
            return entry.usage.context_tokens, "at the first call after it"
    # No call since: estimate what the agent will send, never reuse the stale pre-compaction usage.
    return sum(m.entry.pi_tokens for m in view.messages), "estimated, no call since"


# Lines and sentence ends only: a dot inside ``httpx.AsyncClient`` or ``v1.2`` must not split a decision.
_SENTENCE = re.compile(r"\n+|(?<=[.!?])\s+")


def _summary_units(text: str) -> tuple[str, ...]:
    return tuple(u for u in (s.strip(" -*#\t") for s in _SENTENCE.split(text)) if u)


def _lost_decisions(
    checkpoints: Sequence[Checkpoint], summary_text: str | None, kept_text: str = ""
) -> tuple[float | None, tuple[str, ...]]:
    ordered = sorted(checkpoints, key=lambda cp: (cp.meta.created_at, cp.meta.checkpoint_id))
    if summary_text is not None:
        earlier_cps, reference = ordered, _summary_units(summary_text)
    elif len(ordered) >= 2:
        earlier_cps, reference = ordered[:-1], tuple(d.what for d in ordered[-1].decisions)
    else:
        return None, ()
    earlier = dedupe(d.what for cp in earlier_cps for d in cp.decisions)
    if not earlier:
        return None, ()
    # Kept text is matched verbatim only: a decision a checkpoint captured is a sentence of the message it quotes.
    flat = normalize(f"{summary_text or ''}\n{kept_text}")
    lost = tuple(
        d
        for d in earlier
        if not any(is_semantic_duplicate(d, r) for r in reference) and not (flat and normalize(d) in flat)
    )
    return len(lost) / len(earlier), lost


def assess_degradation(
    snapshot: SessionSnapshot, *, checkpoints: Sequence[Checkpoint] = (), summary_text: str | None = None,
    kept_text: str = "",
) -> DegradationAssessment:
    """The degradation report of ``snapshot`` plus the symptoms of a degrading session.

    Args:
        checkpoints: this session's checkpoints in any order (sorted by ``created_at``).
        summary_text: the latest compaction summary. When given, decisions of every checkpoint are looked for
            in it; otherwise those of earlier checkpoints are looked for in the latest checkpoint.
        kept_text: with ``summary_text``, what else the context keeps after that compaction (the messages kept
            verbatim, the checkpoint message): a decision still there is not missing.
    """
    report = evaluate_degradation(snapshot.compactions)
    compactions = _compactions(snapshot.view.path)
    spam, detail = _spam(compactions)
    fallbacks = sum(1 for c in compactions if c.entry.fallback_summary)
    measured = _post_compaction_tokens(snapshot)
    post, basis = measured if measured is not None else (None, None)
    line = snapshot.gauge.compaction_line
    over = post is not None and line > 0 and post > line
    share, lost = _lost_decisions(checkpoints, summary_text, kept_text if summary_text is not None else "")
    warnings: list[str] = []
    if spam:
        warnings.append(f"Compaction spam: {detail}.")
    if over:
        warnings.append(
            f"The context after the latest compaction ({post:,} tokens) is already above the agent's compaction "
            f"line ({line:,}): it will compact again on the next turn."
        )
    if fallbacks:
        noun = "summary" if fallbacks == 1 else "summaries"
        warnings.append(
            f"{fallbacks} fallback {noun} (\"Summary unavailable due to context limits\"): "
            "those compactions kept no record of what they dropped."
        )
    noops = tuple(c.entry.id or f"line:{c.entry.line_no}" for c in compactions if c.noop)
    if noops and not spam:
        warnings.append(f"Compaction {noops[0]} summarized nothing new.")
    if share:
        # Two different figures, named apart: the Overview's (the latest checkpoint against the earlier ones) and a
        # plan's (the summary it would write against the checkpoints so far).
        where = ("this summary" + (" and the messages it keeps" if kept_text else "") if summary_text is not None
                 else "the latest checkpoint")
        warnings.append(f"{round(share * 100)}% of earlier checkpoints' decisions are missing from {where}.")
    if report.level in ("high", "critical"):
        warnings.append(report.recommendation.splitlines()[0])
    return DegradationAssessment(
        report=report,
        compaction_spam=spam,
        spam_detail=detail,
        fallback_summaries=fallbacks,
        over_line_after_compaction=over,
        lost_decisions_share=share,
        warnings=tuple(warnings),
        noop_compactions=noops,
        post_compaction_tokens=post,
        post_compaction_basis=basis,
        lost_decisions=lost,
    )


@dataclass(frozen=True, slots=True)
class GuardDecision:
    """Whether a compaction may run, and whether the user must confirm it first."""

    allowed: bool
    reason: str
    needs_confirmation: bool


def check_guard(
    report: DegradationReport,
    *,
    automatic: bool,
    auto_compactions: int,
    max_auto_compactions: int = DEFAULT_MAX_AUTO_COMPACTIONS,
    loss: tuple[float, str] | None = None,
) -> GuardDecision:
    """The compaction guard: refuse automatic runs past ``max_auto_compactions``; confirm manual ones at high risk.

    Args:
        auto_compactions: automatic compactions already run on this session.
        loss: :attr:`DegradationAssessment.loss` (the figure the views show); else the count's estimate.
    """
    if automatic:
        if auto_compactions >= max_auto_compactions:
            return GuardDecision(
                False,
                f"Automatic compaction refused: {auto_compactions} automatic compactions already "
                f"(limit {max_auto_compactions}). Compact manually or start a fresh session.",
                False,
            )
        return GuardDecision(True, f"Automatic compaction {auto_compactions + 1} of {max_auto_compactions}.", False)
    if report.level in ("high", "critical"):
        share, basis = loss or (report.information_loss, f"estimated from {report.compaction_count} compactions")
        return GuardDecision(
            True,
            f"Degradation risk is {report.level} ({report.compaction_count} compactions; lost "
            f"{percent(share)} {basis}); confirm to compact again.",
            True,
        )
    return GuardDecision(True, f"Degradation risk is {report.level}.", False)
