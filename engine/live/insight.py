"""What the engine concludes about a session beyond its snapshot: degradation, cost and who holds its lock.

Computed in the follow worker's thread after a refresh (engine calls only, no math here); the cards, the
session list and the availability of the control keys render it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from engine.checkpoints.model import Checkpoint, CheckpointFormatError
from engine.checkpoints.store import list_checkpoints, read_checkpoint
from engine.compaction.degradation import DegradationAssessment, assess_degradation
from engine.fs.session_lock import LockInfo, inspect_lock
from engine.session.cost import SessionCost
from engine.session.snapshot import SessionSnapshot
from engine.stores.source import SessionSource
from engine.usage.spend import session_cost

__all__ = ["CheckpointCache", "SessionInsight", "assess_session", "blocking_lock", "read_lock"]


@dataclass(frozen=True, slots=True)
class SessionInsight:
    """The degradation report, the cost and the lock of one session at one snapshot."""

    degradation: DegradationAssessment
    cost: SessionCost
    lock: LockInfo | None
    """The transcript's write lock as judged at the refresh, or ``None`` when there is none."""
    checkpoints: int
    """Valid checkpoints of the session in its state dir."""
    checkpoints_written: int = 0
    """Checkpoints ever written for the session: the highest sequence number on disk (retention deletes the
    oldest files, the numbers keep counting)."""

    @property
    def risk(self) -> str:
        """The degradation level: ``low``, ``medium``, ``high`` or ``critical``."""
        return self.degradation.report.level


def blocking_lock(lock: LockInfo | None) -> LockInfo | None:
    """``lock`` when a live process other than this one holds it (ctxscope never breaks such a lock), or when the
    ``.lock`` path is not a lock file at all (nobody can take it; :attr:`LockInfo.problem` says why)."""
    if lock is None or (lock.problem is None and (lock.stale or lock.pid == os.getpid())):
        return None
    return lock


def read_lock(source: SessionSource) -> LockInfo | None:
    """Judge the transcript's lock now (SQLite stores have none)."""
    return None if source.lock_path is None else inspect_lock(source.path)


@dataclass
class CheckpointCache:
    """Parsed checkpoints by file, re-read only when a file's size or mtime changed (retention keeps few)."""

    _parsed: dict[Path, tuple[tuple[int, int], Checkpoint | None]] = field(default_factory=dict)

    def load(self, state_dir: Path, key: str) -> tuple[Checkpoint, ...]:
        """The session's valid checkpoints, oldest first (blocking)."""
        found: list[Checkpoint] = []
        for ref in list_checkpoints(state_dir, key):
            try:
                stat = ref.path.stat()
            except OSError:
                continue
            stamp = (stat.st_mtime_ns, stat.st_size)
            cached = self._parsed.get(ref.path)
            if cached is None or cached[0] != stamp:
                try:
                    parsed: Checkpoint | None = read_checkpoint(ref)
                except (OSError, CheckpointFormatError):
                    parsed = None  # the checkpoints tab names the problem; degradation just skips the file
                cached = self._parsed[ref.path] = (stamp, parsed)
            if cached[1] is not None:
                found.append(cached[1])
        return tuple(found)


def assess_session(
    snapshot: SessionSnapshot,
    state_dir: Path,
    *,
    now: datetime,
    checkpoints: Callable[[Path, str], tuple[Checkpoint, ...]] | None = None,
) -> SessionInsight:
    """Assess ``snapshot`` with the engine (blocking: reads the state dir and the lock file)."""
    load = checkpoints or CheckpointCache().load
    found = load(state_dir, snapshot.source.identity)
    return SessionInsight(
        degradation=assess_degradation(snapshot, checkpoints=found),
        cost=session_cost(snapshot, now=now),
        lock=read_lock(snapshot.source),
        checkpoints=len(found),
        checkpoints_written=max((_sequence(cp.meta.checkpoint_id) for cp in found), default=0),
    )


def _sequence(checkpoint_id: str) -> int:
    """3 for ``cp_003`` (validated checkpoints only carry ids of that shape)."""
    return int(checkpoint_id[3:])
