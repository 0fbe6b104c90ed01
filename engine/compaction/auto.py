"""Automatic compaction for the sidecar: off unless enabled, guarded, JSONL sessions only.

See docs/compaction.md, Automatic compaction.

When utilization crosses ``auto_compact.threshold``, the layer is the configured one, or with ``layer: auto`` the
one :func:`~engine.compaction.choice.default_layer` picks (the one place that decides it for the CLI and the TUI
too). The guard refuses once ``max_auto_compactions`` automatic compactions of the session are in the audit
log, so the limit survives restarts of the sidecar.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from engine.compaction.choice import default_layer
from engine.compaction.controllers import CompactionError, CompactionResult, apply_compaction
from engine.compaction.plan import CompactionPlan
from engine.compaction.planner import plan_compaction
from engine.config.loader import Config
from engine.fs.audit import read_audit
from engine.fs.jsonl_append import AppendError
from engine.fs.session_lock import LockError
from engine.session.snapshot import SessionFollower, SessionSnapshot

__all__ = ["AutoCompactOutcome", "auto_compaction_layer", "count_auto_compactions", "run_auto_compaction"]


@dataclass(frozen=True, slots=True)
class AutoCompactOutcome:
    """What one automatic compaction attempt did."""

    kind: str
    """``auto-compact`` (done), ``refused`` (blocked or guard), ``skipped`` (not a JSONL session) or ``error``."""
    message: str
    plan: CompactionPlan | None = None
    result: CompactionResult | None = None


def auto_compaction_layer(snapshot: SessionSnapshot, config: Config) -> str | None:
    """The layer to compact with now, or ``None`` while utilization is below the threshold (or unknown)."""
    auto = config.compaction.auto
    utilization = snapshot.gauge.utilization
    if utilization is None or utilization < auto.threshold:
        return None
    if auto.layer != "auto":
        return auto.layer
    return default_layer(snapshot, config)


def count_auto_compactions(state_dir: Path, key: str) -> int:
    """Automatic compactions of session ``key`` that succeeded, from the audit log."""
    return sum(
        1
        for record in read_audit(state_dir)
        if record.session_key == key and record.action in ("compact", "prune") and record.result == "ok"
        and record.params.get("automatic") is True
    )


def run_auto_compaction(
    follower: SessionFollower,
    state_dir: Path,
    config: Config,
    layer: str,
    *,
    now: datetime | None = None,
    lock_timeout: float = 2.0,
) -> AutoCompactOutcome:
    """Plan and apply one automatic compaction through the jsonl controller (never raises for expected failures)."""
    snapshot = follower.snapshot or follower.refresh()
    source = snapshot.source
    if not source.writable:
        return AutoCompactOutcome("skipped", f"auto-compact skipped: {source.key} is not a writable JSONL transcript "
                                  "(SQLite sessions are compacted by the gateway)")
    done = count_auto_compactions(state_dir, source.key)
    plan = plan_compaction(snapshot, layer, config=config, load=follower.reader.read_object, state_dir=state_dir,
                           controller="jsonl", automatic=True, auto_compactions=done, now=now,
                           token_cache=follower.token_cache)
    if plan.blocked:
        return AutoCompactOutcome("refused", f"auto-compact ({layer}) refused: {'; '.join(plan.blocked)}", plan)
    try:
        result = apply_compaction(plan, follower=follower, config=config, state_dir=state_dir,
                                  lock_timeout=lock_timeout)
    except (CompactionError, AppendError, LockError, OSError) as exc:
        return AutoCompactOutcome("error", f"auto-compact ({layer}) failed: {exc}", plan)
    applied = result.plan
    return AutoCompactOutcome(
        "auto-compact",
        f"{applied.layer}: {applied.tokens_before:,} → {applied.tokens_after:,} message tokens, "
        f"compaction {result.entry_ids[0]} (automatic {done + 1} of {config.compaction.max_auto_compactions})",
        applied,
        result,
    )
