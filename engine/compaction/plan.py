"""The compaction plan value: everything a compaction would do, computed before anything is written.

See docs/compaction.md, Plan first.

A :class:`CompactionPlan` names the layer, the cut (``firstKeptEntryId``), what is summarized and what is kept,
tokens before → after, the exact summary, the files read/modified, the cache cost, the degradation report and
guard decision, and every warning. ``blocked`` lists the reasons a controller must refuse it; a plan with no
blocking reason is applied exactly as shown (the controller re-plans only if the agent moved the leaf).

The plan is composed of the planning stages' values (:mod:`engine.compaction.plan_parts`); the flat attributes
(``plan.summary``, ``plan.tokens_summarized``, …) read them, and :meth:`CompactionPlan.to_dict` is laid out by
:data:`~engine.compaction.plan_json.PLAN_JSON`. A changed summary (LLM, hand edit) replaces the ``draft``,
``figures`` and ``verdict`` values with :func:`dataclasses.replace`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.checkpoints.inject import checkpoint_message_entry
from engine.checkpoints.render import RenderedCheckpoint
from engine.checkpoints.store import LoadedCheckpoint
from engine.compaction.budget import ProtectedBudget
from engine.compaction.degradation import DegradationAssessment, GuardDecision
from engine.compaction.plan_json import PLAN_JSON, laid_out
from engine.compaction.plan_parts import (
    ArchivePlan,
    MessagePreview,
    PlanAssessment,
    PlanFigures,
    PlannedCut,
    PlanVerdict,
    SummaryDraft,
)
from engine.compaction.request import CompactionRequest
from engine.session.cost import RewriteCost
from engine.stores.source import SessionSource

__all__ = ["ArchivePlan", "CompactionPlan", "MessagePreview", "not_smaller_reason"]


def not_smaller_reason(layer: str, summary_tokens: int, tokens_summarized: int) -> str:
    """Why a plan whose summary does not shrink the context is blocked."""
    return (f"the {layer} summary ({summary_tokens:,} tokens) is not smaller than what it replaces "
            f"({tokens_summarized:,} tokens); choose a smaller --keep-recent or another layer")


@dataclass(frozen=True, slots=True)
class CompactionPlan:
    """What a compaction of one session would write, and why it might not (see :attr:`blocked`)."""

    source: SessionSource
    request: CompactionRequest
    """What was asked: layer, focus, protected budget, chosen messages, automatic."""
    controller: str
    """``jsonl``, ``gateway`` or ``none``."""
    leaf_id: str | None
    """The leaf the plan was computed for; the jsonl controller re-plans if it moved."""
    cut: PlannedCut
    draft: SummaryDraft
    figures: PlanFigures
    assessment: PlanAssessment
    verdict: PlanVerdict
    openclaw_budget: Mapping[str, Any] | None = None
    """For the gateway controller: OpenClaw's own figures from its store (``contextBudgetStatus``,
    ``totalTokens``); OpenClaw, not ctxscope, chooses the cut and writes the summary."""
    model: str | None = None
    provider: str | None = None
    """The session's model and provider, to price the rewrite again when the summary changes."""

    # The plan's figures by their flat names (what the views, the CLI and the controllers read).

    @property
    def layer(self) -> str:
        return self.request.layer

    @property
    def focus(self) -> str | None:
        return self.request.focus

    @property
    def automatic(self) -> bool:
        return self.request.automatic

    @property
    def created_at(self) -> str:
        return self.request.created_at

    @property
    def first_kept_entry_id(self) -> str | None:
        return self.cut.first_kept_entry_id

    @property
    def first_kept_line(self) -> int | None:
        return self.cut.first_kept_line

    @property
    def split_turn(self) -> bool:
        return self.cut.split_turn

    @property
    def turn_start_entry_id(self) -> str | None:
        return self.cut.turn_start_entry_id

    @property
    def keep_recent_tokens(self) -> int:
        return self.cut.keep_recent_tokens

    @property
    def protected(self) -> ProtectedBudget | None:
        """Where :attr:`keep_recent_tokens` comes from (the layer setting and the window cap, or --keep-recent)."""
        return self.cut.protected

    @property
    def budget_note(self) -> str | None:
        """Why the tail kept falls short of the protected budget (:attr:`PlannedCut.budget_note`)."""
        return self.cut.budget_note

    @property
    def messages_summarized(self) -> int:
        """Context messages taken out (the previous summary included)."""
        return len(self.cut.summarized)

    @property
    def messages_kept(self) -> int:
        return len(self.cut.kept)

    @property
    def kept_ids(self) -> tuple[str, ...]:
        return self.cut.kept_ids

    @property
    def targets(self) -> tuple[str, ...]:
        return self.cut.targets

    @property
    def summary(self) -> str:
        return self.draft.text

    @property
    def summary_source(self) -> str:
        return self.draft.source

    @property
    def summary_edited(self) -> bool:
        return self.draft.edited

    @property
    def read_files(self) -> tuple[str, ...]:
        return self.draft.read_files

    @property
    def modified_files(self) -> tuple[str, ...]:
        return self.draft.modified_files

    @property
    def pinned(self) -> tuple[str, ...]:
        return self.draft.pinned

    @property
    def dropped(self) -> tuple[MessagePreview, ...]:
        return self.draft.dropped

    @property
    def archive(self) -> ArchivePlan | None:
        return self.draft.archive

    @property
    def token_method(self) -> str:
        return self.figures.token_method

    @property
    def tokens_summarized(self) -> int:
        return self.figures.tokens_summarized

    @property
    def tokens_kept(self) -> int:
        return self.figures.tokens_kept

    @property
    def summary_tokens(self) -> int:
        return self.figures.summary_tokens

    @property
    def checkpoint_tokens(self) -> int:
        return self.figures.checkpoint_tokens

    @property
    def overhead_tokens(self) -> int:
        return self.figures.overhead_tokens

    @property
    def tokens_before_estimate(self) -> int | None:
        return self.figures.tokens_before_estimate

    @property
    def cost(self) -> RewriteCost | None:
        return self.figures.cost

    @property
    def checkpoint(self) -> LoadedCheckpoint | None:
        return self.figures.checkpoint

    @property
    def rendered_checkpoint(self) -> RenderedCheckpoint | None:
        return self.figures.rendered_checkpoint

    @property
    def degradation(self) -> DegradationAssessment | None:
        return self.assessment.degradation

    @property
    def guard(self) -> GuardDecision | None:
        return self.assessment.guard

    @property
    def warnings(self) -> tuple[str, ...]:
        return self.verdict.warnings

    @property
    def blocked(self) -> tuple[str, ...]:
        return self.verdict.blocked

    @property
    def summary_sha256(self) -> str:
        """SHA-256 of the summary text (UTF-8), for the audit log: it records which text was written, not the text."""
        return hashlib.sha256(self.summary.encode("utf-8", "surrogatepass")).hexdigest()

    @property
    def session_key(self) -> str:
        """The session's stable key (the OpenClaw session key for gateway calls)."""
        return self.source.key

    @property
    def path(self) -> Path:
        """The transcript (or SQLite database)."""
        return self.source.path

    @property
    def tokens_before(self) -> int:
        return self.figures.tokens_before

    @property
    def tokens_after(self) -> int:
        return self.figures.tokens_after

    @property
    def context_tokens_before(self) -> int:
        return self.figures.context_tokens_before

    @property
    def context_tokens_after(self) -> int:
        return self.figures.context_tokens_after

    @property
    def applicable(self) -> bool:
        """Whether a controller may apply the plan (nothing blocks it)."""
        return not self.blocked

    @property
    def needs_confirmation(self) -> bool:
        """The guard asks the user to confirm (manual compaction at high/critical degradation)."""
        return self.guard is not None and self.guard.needs_confirmation

    @property
    def action(self) -> str:
        """The audit action: ``prune`` for the prune layer, ``compact`` otherwise."""
        return "prune" if self.layer == "prune" else "compact"

    def compaction_entry(self) -> dict[str, Any]:
        """The ``compaction`` entry to append (the writer adds ``id``/``parentId``/``timestamp``)."""
        return {
            "type": "compaction",
            "summary": self.summary,
            "firstKeptEntryId": self.first_kept_entry_id,
            # pi renders tokensBefore with toLocaleString(): a null would break its view of the summary, so where
            # pi's own figure is NaN the entry carries ctxscope's count of the context instead.
            "tokensBefore": self.tokens_before_estimate if self.tokens_before_estimate is not None
            else self.context_tokens_before,
            "details": {"readFiles": list(self.read_files), "modifiedFiles": list(self.modified_files)},
            # false: pi carries details.readFiles/modifiedFiles forward only from compactions it did not get from
            # an extension (docs/pi.md), and ctxscope's lists must survive pi's next compaction.
            "fromHook": False,
        }

    def entries(self) -> list[dict[str, Any]]:
        """Everything the jsonl controller appends in one write: the compaction, then the checkpoint message."""
        entries = [self.compaction_entry()]
        if self.checkpoint is not None and self.rendered_checkpoint is not None:
            entries.append(checkpoint_message_entry(self.checkpoint, self.rendered_checkpoint))
        return entries

    def audit_summary(self) -> dict[str, Any]:
        """The plan in brief for the audit log (never transcript text)."""
        return {
            "layer": self.layer,
            "controller": self.controller,
            "leaf_id": self.leaf_id,
            "first_kept_entry_id": self.first_kept_entry_id,
            "split_turn": self.split_turn,
            "messages_summarized": self.messages_summarized,
            "messages_kept": self.messages_kept,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "summary_tokens": self.summary_tokens,
            "checkpoint_id": self.checkpoint.ref.checkpoint_id if self.checkpoint else None,
            "archive": {"path": str(self.archive.path), "record_id": self.archive.record_id}
            if self.archive
            else None,
            "pinned": list(self.pinned),
            "warnings": list(self.warnings),
            "automatic": self.automatic,
            "targets": list(self.targets),
            "summary_source": self.summary_source,
            "summary_edited": self.summary_edited,
            "summary_sha256": self.summary_sha256,
        }

    def to_dict(self) -> dict[str, Any]:
        """The plan as JSON-friendly values (``ctxscope compact --dry-run --json``), laid out by
        :data:`~engine.compaction.plan_json.PLAN_JSON`."""
        return laid_out(self, PLAN_JSON)
