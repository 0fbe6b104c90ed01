"""The compaction plan value: everything a compaction would do, computed before anything is written.

See docs/compaction.md, Plan first.

A :class:`CompactionPlan` names the layer, the cut (``firstKeptEntryId``), what is summarized and what is kept,
tokens before → after, the exact summary, the files read/modified, the cache cost, the degradation report and
guard decision, and every warning. ``blocked`` lists the reasons a controller must refuse it; a plan with no
blocking reason is applied exactly as shown (the controller re-plans only if the agent moved the leaf).
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
from engine.compaction.archive import ArchivedMessage, render_archive_record
from engine.compaction.budget import ProtectedBudget
from engine.compaction.degradation import DegradationAssessment, GuardDecision
from engine.session.cost import RewriteCost
from engine.stores.source import SessionSource

__all__ = ["ArchivePlan", "CompactionPlan", "MessagePreview", "not_smaller_reason"]


def not_smaller_reason(layer: str, summary_tokens: int, tokens_summarized: int) -> str:
    """Why a plan whose summary does not shrink the context is blocked."""
    return (f"the {layer} summary ({summary_tokens:,} tokens) is not smaller than what it replaces "
            f"({tokens_summarized:,} tokens); choose a smaller --keep-recent or another layer")


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
class CompactionPlan:
    """What a compaction of one session would write, and why it might not (see :attr:`blocked`)."""

    source: SessionSource
    layer: str
    focus: str | None
    controller: str
    """``jsonl``, ``gateway`` or ``none``."""
    leaf_id: str | None
    """The leaf the plan was computed for; the jsonl controller re-plans if it moved."""
    first_kept_entry_id: str | None
    first_kept_line: int | None
    split_turn: bool
    turn_start_entry_id: str | None
    keep_recent_tokens: int
    """The protected budget used for the cut (the layer's, or ``--keep-recent``), pi-estimate tokens."""
    messages_summarized: int
    """Context messages taken out (the previous summary included)."""
    messages_kept: int
    tokens_summarized: int
    """Tokens of the summarized messages by :attr:`token_method`."""
    tokens_kept: int
    summary: str
    summary_tokens: int
    checkpoint_tokens: int
    """Tokens of the rendered checkpoint message appended after the compaction entry (0 when none)."""
    overhead_tokens: int
    """Context the transcript does not hold (system prompt, tools): the usage minus the messages, or 0."""
    tokens_before_estimate: int
    """pi's estimate of the context now (``estimateContextTokens``), written as the entry's ``tokensBefore``."""
    token_method: str
    read_files: tuple[str, ...]
    modified_files: tuple[str, ...]
    pinned: tuple[str, ...]
    """Ids of pinned messages before the cut, carried verbatim into the summary."""
    dropped: tuple[MessagePreview, ...]
    kept_ids: tuple[str, ...]
    """Entry ids of the messages kept verbatim after the summary (the protected tail), in order."""
    cost: RewriteCost | None
    degradation: DegradationAssessment | None
    guard: GuardDecision | None
    warnings: tuple[str, ...]
    blocked: tuple[str, ...]
    """Reasons the plan must not be applied (nothing to compact, read-only store, guard refused, …)."""
    checkpoint: LoadedCheckpoint | None = None
    rendered_checkpoint: RenderedCheckpoint | None = None
    archive: ArchivePlan | None = None
    openclaw_budget: Mapping[str, Any] | None = None
    """For the gateway controller: OpenClaw's own figures from its store (``contextBudgetStatus``,
    ``totalTokens``); OpenClaw, not ctxscope, chooses the cut and writes the summary."""
    created_at: str = ""
    automatic: bool = False
    summary_source: str = "deterministic"
    """``deterministic`` (built by :mod:`engine.compaction.summarizer`), ``llm:<model>`` (:mod:`engine.llm.summary`),
    or either prefixed with ``edited:`` once the user edited it (:mod:`engine.compaction.summary_edit`)."""
    targets: tuple[str, ...] = ()
    """The entry ids a prune was asked to shorten (empty: the layer's own choice of tool outputs)."""
    summary_edited: bool = False
    """The user edited the summary before applying (audited with the edited text's hash)."""
    model: str | None = None
    provider: str | None = None
    """The session's model and provider, to price the rewrite again when the summary changes."""
    protected: ProtectedBudget | None = None
    """Where :attr:`keep_recent_tokens` comes from (the layer's setting and the window cap, or ``--keep-recent``)."""

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
            "tokensBefore": self.tokens_before_estimate,
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
        """The plan as JSON-friendly values (``ctxscope compact --dry-run --json``)."""
        cost = self.cost
        degradation = self.degradation
        return {
            "session_key": self.session_key,
            "path": str(self.path),
            "format": self.source.format,
            "layer": self.layer,
            "focus": self.focus,
            "controller": self.controller,
            "leaf_id": self.leaf_id,
            # null where pi's prepareCompaction returns nothing (the path already ends on a compaction).
            "cut_point": None if self.first_kept_entry_id is None else {
                "first_kept_entry_id": self.first_kept_entry_id,
                "first_kept_line": self.first_kept_line,
                "split_turn": self.split_turn,
                "turn_start_entry_id": self.turn_start_entry_id,
                "keep_recent_tokens": self.keep_recent_tokens,
                "tokens_before": self.tokens_before_estimate,
            },
            "keep_recent_tokens": self.keep_recent_tokens,
            "protected_budget": self.protected.to_dict() if self.protected is not None else None,
            "messages": {"summarized": self.messages_summarized, "kept": self.messages_kept},
            "tokens": {
                "method": self.token_method,
                "summarized": self.tokens_summarized,
                "kept": self.tokens_kept,
                "summary": self.summary_tokens,
                "checkpoint_message": self.checkpoint_tokens,
                "before": self.tokens_before,
                "after": self.tokens_after,
                "overhead": self.overhead_tokens,
                "context_before": self.context_tokens_before,
                "context_after": self.context_tokens_after,
                "agent_estimate_before": self.tokens_before_estimate,
            },
            "summary": self.summary,
            "summary_source": self.summary_source,
            "summary_edited": self.summary_edited,
            "read_files": list(self.read_files),
            "modified_files": list(self.modified_files),
            "pinned": list(self.pinned),
            "dropped": [
                {"entry_id": d.entry_id, "role": d.role, "tokens": d.tokens, "line": d.line, "first_line": d.first_line}
                for d in self.dropped
            ],
            "kept_ids": list(self.kept_ids),
            "cost": None if cost is None else {
                "cache_write_cost_usd": cost.cache_write_cost_usd,
                "tokens_saved_per_turn": cost.tokens_saved_per_turn,
                "saved_per_turn_usd": cost.saved_per_turn_usd,
                "break_even_turns": cost.break_even_turns,
                "price_source": cost.price_source,
            },
            "degradation": None if degradation is None else {
                "level": degradation.report.level,
                "compaction_count": degradation.report.compaction_count,
                "information_loss": degradation.report.information_loss,
                "recommendation": degradation.report.recommendation,
                "warnings": list(degradation.warnings),
            },
            "guard": None if self.guard is None else {
                "allowed": self.guard.allowed,
                "reason": self.guard.reason,
                "needs_confirmation": self.guard.needs_confirmation,
            },
            "checkpoint_id": self.checkpoint.ref.checkpoint_id if self.checkpoint else None,
            "archive": None if self.archive is None else {
                "path": str(self.archive.path),
                "record_id": self.archive.record_id,
                "messages": len(self.archive.messages),
            },
            "openclaw_budget": dict(self.openclaw_budget) if self.openclaw_budget is not None else None,
            "warnings": list(self.warnings),
            "blocked": list(self.blocked),
            "applicable": self.applicable,
            "needs_confirmation": self.needs_confirmation,
            "automatic": self.automatic,
            "created_at": self.created_at,
        }
