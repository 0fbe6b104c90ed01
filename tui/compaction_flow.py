"""How ``k`` and ``p`` reach the engine: whether they may run, the dialog's planner, applying the confirmed plan.

Functions here are blocking where they touch files (call them from workers); the App wires them to keys,
the dialog and notifications. Every decision is the engine's: :func:`engine.compaction.planner.choose_controller`
refuses archives and read-only stores, :mod:`engine.fs.session_lock` says who holds the lock,
:func:`~engine.compaction.planner.plan_compaction` plans and
:func:`~engine.compaction.controllers.apply_compaction` writes.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from engine.compaction.controllers import CompactionError, CompactionRefusedError, apply_compaction
from engine.compaction.plan import CompactionPlan
from engine.compaction.planner import choose_controller, plan_compaction
from engine.config.loader import Config
from engine.fs.jsonl_append import AppendError, AppendRefusedError
from engine.fs.session_lock import LockError, LockHeldError, LockInfo
from engine.live.insight import blocking_lock
from engine.live.tracker import SessionTracker
from engine.session.snapshot import SessionFollower, SessionSnapshot
from tui.dialogs.compact import Planner, PlanRequest
from tui.messages import CompactionApplied, CompactionFailed

__all__ = ["apply_plan", "compaction_refusal", "make_planner"]


def compaction_refusal(
    snapshot: SessionSnapshot, action: str, lock: LockInfo | None, config: Config, label: str
) -> str | None:
    """Why ``snapshot`` cannot be compacted (``action`` ``compact``) or pruned (``prune``) now, or ``None``."""
    controller, refusal = choose_controller(snapshot.source, config.compaction.controller)
    if refusal is not None:
        return refusal
    if action == "prune" and controller == "gateway":
        where = "lives in OpenClaw's SQLite store, which only the gateway writes" if (
            snapshot.source.in_database) else "is compacted through the gateway"
        return f"{label} {where}, and the gateway cannot prune; press k to ask it to compact"
    holder = blocking_lock(lock) if controller == "jsonl" else None
    if holder is not None:
        return (f"pid {holder.pid} holds {holder.path.name}: an agent is writing this session and ctxscope "
                "never breaks a live lock; retry when its run ends")
    return None


def make_planner(
    tracker: SessionTracker, key: str, config: Config, clock: Callable[[], datetime]
) -> Planner:
    """The dialog's dry run for ``key``: the engine's plan on the follower's latest snapshot, under its lock."""
    state_dir = tracker.state_dir(key)

    def plan(request: PlanRequest) -> CompactionPlan:
        def run(follower: SessionFollower) -> CompactionPlan:
            snapshot = follower.snapshot  # never refresh here: the sidecar must see every new entry first
            if snapshot is None:
                raise RuntimeError("the session has not been read yet")
            return plan_compaction(
                snapshot, request.layer, request.focus, keep_recent=request.keep_recent, config=config,
                load=follower.reader.read_object, state_dir=state_dir, now=clock(), token_cache=follower.token_cache,
            )

        return tracker.with_follower(key, run)

    return plan


def apply_plan(
    plan: CompactionPlan, config: Config, state_dir: Path, lock_timeout: float
) -> CompactionApplied | CompactionFailed:
    """Apply a confirmed plan with its controller (the engine audits it); the outcome as a message (blocking)."""
    try:
        result = apply_compaction(plan, config=config, state_dir=state_dir, lock_timeout=lock_timeout)
    except (CompactionRefusedError, LockHeldError, AppendRefusedError) as exc:
        return CompactionFailed(plan, str(exc), refused=True)
    except (CompactionError, AppendError, LockError, OSError) as exc:
        return CompactionFailed(plan, f"{type(exc).__name__}: {exc}", refused=False)
    return CompactionApplied(result)
