"""The words of the App's notifications: engine values in, one sentence (and a title) out."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual.notifications import SeverityLevel

from engine import CompactionResult, SessionInsight, SessionSnapshot, SidecarEvent, percent
from tui.widgets.levels import LEVEL_TEXT

__all__ = [
    "SIDECAR_TITLES",
    "applied_text",
    "compaction_detected_text",
    "risk_changed_text",
    "startup_checkpoints_text",
    "threshold_text",
]

Label = Callable[[str], str]
"""Session key → the short name the user knows it by."""

SIDECAR_TITLES: dict[str, tuple[str, SeverityLevel]] = {
    "error": ("Sidecar failed", "error"),
    "refused": ("Automatic compaction refused", "warning"),
    "auto-compact": ("Compacted automatically", "information"),
}
"""Sidecar event kind → (title, severity) of its notification."""


def startup_checkpoints_text(events: Sequence[SidecarEvent], label: Label) -> tuple[str, str]:
    """Title and text for the checkpoints written while the sessions were first read."""
    names = ", ".join(f"{label(e.session_key)} ({e.trigger})" for e in events[:4])
    more = f" and {len(events) - 4} more" if len(events) > 4 else ""
    title = f"{len(events)} checkpoint{'s' if len(events) != 1 else ''} written"
    return title, f"{names}{more}: past a checkpoint line when ctxscope started."


def risk_changed_text(key: str, old: SessionInsight, new: SessionInsight, label: Label) -> str:
    """The degradation level moved (usually after a compaction)."""
    report = new.degradation.report
    share, basis = new.degradation.loss
    return (f"{label(key)}: degradation risk {old.risk} → {new.risk} ({report.compaction_count} compactions, "
            f"{percent(share)} lost: {basis}).")


def applied_text(result: CompactionResult, label: Label) -> str:
    """What a confirmed compaction or prune wrote."""
    plan = result.plan
    if result.controller == "gateway":
        text = f"{label(plan.session_key)}: the gateway answered {result.gateway_response}"
    else:
        saved = plan.context_tokens_before - plan.context_tokens_after
        text = (f"{label(plan.session_key)}: {plan.layer} appended {', '.join(result.entry_ids)} after "
                f"{result.parent_id}; {plan.context_tokens_before:,} → {plan.context_tokens_after:,} tokens "
                f"({f'−{saved:,}' if saved > 0 else 'saved nothing'}).")
        if result.replanned:
            text += " The agent wrote meanwhile: the plan was recomputed under the lock."
        if result.archive is not None:
            text += f" Dropped messages archived to {result.archive.path}."
    return text + "".join(f" Warning: {w}" for w in result.warnings)


def compaction_detected_text(snapshot: SessionSnapshot, previous_count: int, label: Label) -> str:
    """Someone (the agent, usually) compacted the session since its previous snapshot."""
    after = "size unknown until the agent's next reply" if snapshot.tokens.tokens is None else (
        f"now {snapshot.tokens.tokens:,} tokens"
    )
    return f"{label(snapshot.key)}: compaction {previous_count} → {snapshot.compactions}; {after}."


def threshold_text(snapshot: SessionSnapshot, label: Label) -> tuple[str, SeverityLevel]:
    """The gauge rose past a line: the sentence and how loud to say it."""
    level = snapshot.gauge.level
    util = snapshot.utilization
    figure = f" ({util:.0%})" if util is not None else ""
    severity: SeverityLevel = "error" if level in ("near-compaction", "over-compaction") else "warning"
    said = snapshot.gauge.unknown_text if level == "unknown" else LEVEL_TEXT[level]
    return f"{label(snapshot.key)}: {said}{figure}.", severity
