"""The values a compaction plan is composed of, one per planning stage (docs/compaction.md, Plan first).

:mod:`engine.compaction.plan_stages` computes them in order — :class:`PlannedCut`, :class:`SummaryDraft`,
:class:`PlanFigures`, :class:`PlanAssessment`, :class:`PlanVerdict` — and
:class:`~engine.compaction.plan.CompactionPlan` holds them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.accounting.context import ContextMessage
from engine.checkpoints.render import RenderedCheckpoint
from engine.checkpoints.store import LoadedCheckpoint
from engine.compaction.archive import ArchivedMessage, render_archive_record
from engine.compaction.budget import ProtectedBudget
from engine.compaction.degradation import DegradationAssessment, DegradationReport, GuardDecision
from engine.session.cost import RewriteCost

__all__ = [
    "ArchivePlan",
    "MessagePreview",
    "PlanAssessment",
    "PlanFigures",
    "PlanVerdict",
    "PlannedCut",
    "SummaryDraft",
]


@dataclass(frozen=True, slots=True)
class MessagePreview:
    """One message a compaction takes out of the context, for the preview."""

    entry_id: str
    role: str
    tokens: int
    line: int
    """Line in the transcript (``seq`` for SQLite)."""
    first_line: str
    """The start of its text on one line (at most 100 characters)."""


@dataclass(frozen=True, slots=True)
class ArchivePlan:
    """The drop-only archive record that would be appended before the compaction entry."""

    path: Path
    """``<workspace>/memory/YYYY-MM-DD.md``."""
    record_id: str
    messages: tuple[ArchivedMessage, ...]
    """The dropped messages, verbatim (redacted when rendered)."""
    session_key: str
    created_at: str
    first_kept_entry_id: str | None
    tokens: int
    workspace: Path | None = None
    """The validated workspace: no symlink below it is followed when the record is written."""

    def record(self) -> bytes:
        """The complete record, markers included, secrets redacted (rendered on demand: redaction is not free)."""
        return render_archive_record(
            self.record_id,
            self.messages,
            session_key=self.session_key,
            created_at=self.created_at,
            first_kept_entry_id=self.first_kept_entry_id,
            tokens=self.tokens,
        )


@dataclass(frozen=True, slots=True)
class PlannedCut:
    """Where the context is cut and what falls on each side (the cut stage)."""

    keep_recent_tokens: int
    """The protected budget used for the cut (the layer's, or ``--keep-recent``), pi-estimate tokens."""
    first_kept_entry_id: str | None
    """``None`` where pi's ``prepareCompaction`` returns nothing (the path already ends on a compaction)."""
    first_kept_line: int | None
    split_turn: bool
    """pi's flag, also when the cut lands on its own turn start (an empty prefix): inspect reports the same."""
    turn_start_entry_id: str | None
    turn_start_index: int | None
    """Path index of the turn the cut splits (``None``: it splits none)."""
    summarized: tuple[ContextMessage, ...]
    """Context messages taken out (the previous summary included)."""
    kept: tuple[ContextMessage, ...]
    """Messages kept verbatim after the summary (the protected tail), in order."""
    new_material: tuple[ContextMessage, ...]
    """pi's ``messagesToSummarize`` and turn prefix: the messages from the boundary on, the previous summary aside
    (for a targeted prune: every summarized message)."""
    targets: tuple[str, ...]
    """The entry ids a prune was asked to shorten, as found in the context (empty: the layer's own choice)."""
    problems: tuple[str, ...]
    """What stands in the way of the chosen messages (a targeted prune only)."""
    nothing_to_compact: str | None
    """Why ctxscope's own cut takes nothing out (``None``: it takes something, or the prune is targeted)."""
    protected: ProtectedBudget | None = None
    """Where :attr:`keep_recent_tokens` comes from (engine/compaction/budget.py)."""

    @property
    def kept_ids(self) -> tuple[str, ...]:
        return tuple(m.entry_id for m in self.kept)

    @property
    def budget_note(self) -> str | None:
        """What the tail kept comes to against the protected budget, and which budgets give this same cut.

        pi's cut walks back to the message that reaches the budget, then forward to the first place a cut may fall
        (docs/compaction.md, Protected budget): the message at the cut is kept whole, and tool results just before
        it go with the summary. Every budget reached inside that stretch cuts at the same place, so two layers'
        budgets (full 15,000, summarize capped at 16,384) can keep exactly the same messages. ``None`` without a
        cut of the layer's own.
        """
        if self.nothing_to_compact is not None or self.targets or not self.summarized or not self.kept:
            return None
        kept = sum(m.entry.pi_tokens for m in self.kept if m.entry.type == "message")
        first = self.kept[0].entry
        low = kept - (first.pi_tokens if first.type == "message" else 0)
        high = kept
        for message in reversed(self.summarized):  # the tool results the cut moved past (never a cut point)
            if message.role != "toolResult":
                break
            high += message.entry.pi_tokens
        return (f"keeps {kept:,} for {self.keep_recent_tokens:,} protected (pi's estimate); any budget from "
                f"{low + 1:,} to {high:,} cuts here, as a cut never falls on a tool result")


@dataclass(frozen=True, slots=True)
class SummaryDraft:
    """What replaces the summarized messages (the summary stage)."""

    text: str
    """The summary, secrets redacted."""
    read_files: tuple[str, ...]
    modified_files: tuple[str, ...]
    pinned: tuple[str, ...]
    """Ids of pinned messages before the cut, carried verbatim into the summary."""
    dropped: tuple[MessagePreview, ...]
    archive: ArchivePlan | None
    problem: str | None
    """Why the layer could not build its summary from what it was given (blocks the plan)."""
    omitted: int
    """Whole items left out of the summary for size."""
    source: str = "deterministic"
    """``deterministic`` (built by :mod:`engine.compaction.summarizer`), ``llm:<model>`` (:mod:`engine.llm.summary`),
    or either prefixed with ``edited:`` once the user edited it (:mod:`engine.compaction.summary_edit`)."""
    edited: bool = False
    """The user edited the summary before applying (audited with the edited text's hash)."""


@dataclass(frozen=True, slots=True)
class PlanFigures:
    """Tokens before → after and what the rewrite costs (the figures stage)."""

    token_method: str
    tokens_summarized: int
    """Tokens of the summarized messages by :attr:`token_method`."""
    tokens_kept: int
    summary_tokens: int
    checkpoint_tokens: int
    """Tokens of the rendered checkpoint message appended after the compaction entry (0 when none)."""
    overhead_tokens: int
    """Context the transcript does not hold (system prompt, tools): the usage minus the messages, or 0."""
    tokens_before_estimate: int | None
    """pi's estimate of the context now (``estimateContextTokens``), written as the entry's ``tokensBefore``;
    ``None`` where pi's own figure is NaN (a usage record lacks fields, docs/pi.md)."""
    usage_known: bool
    """The session reported its context size since the last compaction (else the figures leave out the prompt)."""
    cost: RewriteCost | None
    checkpoint: LoadedCheckpoint | None = None
    rendered_checkpoint: RenderedCheckpoint | None = None
    checkpoint_left_out: int | None = None
    """Tokens of the latest checkpoint's message when it is left out because the context would not shrink."""

    @property
    def tokens_before(self) -> int:
        """Tokens of the context messages now (summarized + kept), by :attr:`token_method`."""
        return self.tokens_summarized + self.tokens_kept

    @property
    def tokens_after(self) -> int:
        """Estimated tokens of the context messages after: summary + kept (+ checkpoint message)."""
        return self.summary_tokens + self.tokens_kept + self.checkpoint_tokens

    @property
    def context_tokens_before(self) -> int:
        """:attr:`tokens_before` plus the prompt overhead: what the next request would carry now."""
        return self.tokens_before + self.overhead_tokens

    @property
    def context_tokens_after(self) -> int:
        """:attr:`tokens_after` plus the prompt overhead."""
        return self.tokens_after + self.overhead_tokens


@dataclass(frozen=True, slots=True)
class PlanAssessment:
    """The degradation of the session and the guard's decision on compacting it again (the assessment stage)."""

    degradation: DegradationAssessment
    guard: GuardDecision
    following: DegradationReport
    """The degradation after this compaction."""


@dataclass(frozen=True, slots=True)
class PlanVerdict:
    """What the user is told and what refuses the plan (the verdict stage)."""

    warnings: tuple[str, ...]
    blocked: tuple[str, ...]
    """Reasons the plan must not be applied (nothing to compact, read-only store, guard refused, …)."""
