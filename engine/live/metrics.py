"""The per-session values ``ctxscope watch --metrics`` exports and the TUI's metrics columns show (``docs/fleet.md``).

Nothing is computed here: every value is read off the tracker's current snapshot and insight, so the exporter and
the session list cannot disagree. Sessions quiet for longer than ``metrics.idle_after`` are left out, which keeps
the number of label sets bounded on a host that has run agents for months.
"""

from __future__ import annotations

import socket
from collections.abc import MutableMapping
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple, Protocol

from engine.compaction.degradation import Level
from engine.live.insight import SessionInsight
from engine.session.snapshot import SessionSnapshot

__all__ = [
    "DEGRADATION_LEVELS",
    "Reuse",
    "SessionMetrics",
    "SidecarHealth",
    "TrackerView",
    "default_host",
    "exported_sessions",
    "is_idle",
    "session_metrics",
    "sidecar_health",
]

DEGRADATION_LEVELS: tuple[Level, ...] = ("low", "medium", "high", "critical")
"""The degradation levels in order: a level's index is its number in ``ctxscope_session_degradation_level``."""


class SessionMetrics(NamedTuple):
    """One session's exported values; ``None`` means unknown (the sample is left out, never reported as 0).

    A named tuple rather than a frozen dataclass: a scrape of 1,000 changed sessions builds 1,000 of them, and a
    tuple is built several times faster.
    """

    host: str
    agent: str
    session: str
    model: str
    context_tokens: int | None
    """``None`` after a compaction until the agent's next reply reports the size."""
    window_tokens: int
    utilization: float | None
    compaction_line_tokens: int
    compactions: int
    degradation: Level | None
    """``None`` until the session has been assessed."""
    checkpoints_written: int | None
    last_activity: float | None
    """Unix time of the last entry."""
    cost_recorded_usd: float | None
    cost_estimated_usd: float | None
    cache_read_tokens: int | None
    cache_write_tokens: int | None

    @property
    def degradation_level(self) -> int | None:
        """0 (low) … 3 (critical)."""
        return None if self.degradation is None else DEGRADATION_LEVELS.index(self.degradation)


def default_host() -> str:
    """This machine's host name, the ``host`` label unless ``metrics.host`` is configured."""
    return socket.gethostname() or "localhost"


def session_metrics(snapshot: SessionSnapshot, insight: SessionInsight | None, host: str) -> SessionMetrics:
    """The exported values of one session (the one place they are read from the engine's values)."""
    source = snapshot.source
    cost = insight.cost if insight is not None else None
    return SessionMetrics(
        host=host,
        agent=source.agent_id or source.format.split("-")[0],
        session=source.key,
        model=snapshot.model or "unknown",
        context_tokens=snapshot.tokens.tokens,
        window_tokens=snapshot.window.tokens,
        utilization=snapshot.gauge.utilization,
        compaction_line_tokens=snapshot.gauge.compaction_line,
        compactions=snapshot.compactions,
        degradation=insight.degradation.report.level if insight is not None else None,
        checkpoints_written=insight.checkpoints_written if insight is not None else None,
        last_activity=snapshot.last_activity.timestamp() if snapshot.last_activity is not None else None,
        cost_recorded_usd=cost.recorded_usd if cost is not None else None,
        cost_estimated_usd=cost.estimated_usd if cost is not None else None,
        cache_read_tokens=cost.cache_read_tokens if cost is not None else None,
        cache_write_tokens=cost.cache_write_tokens if cost is not None else None,
    )


def is_idle(snapshot: SessionSnapshot, now: datetime, idle_after_seconds: float) -> bool:
    """Quiet for longer than ``idle_after_seconds`` (a session with no known time is never idle)."""
    last = snapshot.last_activity
    return last is not None and (now - last).total_seconds() > idle_after_seconds


class TrackerView(Protocol):
    """What the exporter reads from :class:`~engine.live.tracker.SessionTracker`."""

    @property
    def keys(self) -> tuple[str, ...]: ...

    def snapshot(self, key: str) -> SessionSnapshot | None: ...

    def insight(self, key: str) -> SessionInsight | None: ...


Reuse = MutableMapping[str, tuple[SessionSnapshot, SessionInsight | None, SessionMetrics]]
"""Values read at the previous scrape, by key: kept while the session's snapshot and insight are the same objects."""


def exported_sessions(
    tracker: TrackerView, *, now: datetime, idle_after_seconds: float, host: str, reuse: Reuse | None = None
) -> list[SessionMetrics]:
    """The values of every followed, readable session active within ``idle_after_seconds``, in key order.

    Safe from another thread than the one stepping the tracker: snapshots and insights are immutable values that
    are replaced whole. With ``reuse`` (owned by one caller), a session whose snapshot and insight did not change
    since the previous call returns the same :class:`SessionMetrics` object, so renderings of it can be kept too.
    """
    rows: list[SessionMetrics] = []
    keys: list[str] = []
    for key in sorted(tracker.keys):
        snapshot = tracker.snapshot(key)
        if snapshot is None or is_idle(snapshot, now, idle_after_seconds):
            continue
        insight = tracker.insight(key)
        kept = reuse.get(key) if reuse is not None else None
        keys.append(key)
        if kept is not None and kept[0] is snapshot and kept[1] is insight and kept[2].host == host:
            rows.append(kept[2])
            continue
        row = session_metrics(snapshot, insight, host)
        if reuse is not None:
            reuse[key] = (snapshot, insight, row)
        rows.append(row)
    if reuse is not None:
        for gone in reuse.keys() - set(keys):
            del reuse[gone]
    return _distinct_series(rows, keys)


def _distinct_series(rows: list[SessionMetrics], keys: list[str]) -> list[SessionMetrics]:
    # Copies of one transcript share its header id, so their `session` labels would repeat one series, which
    # Prometheus rejects; those take their identity instead (docs/checkpoints.md, Session identity).
    seen: dict[tuple[str, str], int] = {}
    for row in rows:
        seen[(row.agent, row.session)] = seen.get((row.agent, row.session), 0) + 1
    return [row._replace(session=key) if seen[(row.agent, row.session)] > 1 else row
            for row, key in zip(rows, keys, strict=True)]


@dataclass(frozen=True, slots=True)
class SidecarHealth:
    """The sidecar's own state at one scrape."""

    sessions_followed: int
    sessions_exported: int
    parse_errors: int
    """Malformed lines in the followed sessions' files."""


def sidecar_health(tracker: TrackerView, exported: int) -> SidecarHealth:
    """Sessions followed and malformed lines seen, from the tracker's current snapshots."""
    keys = tracker.keys
    bad = 0
    for key in keys:
        snapshot = tracker.snapshot(key)
        if snapshot is not None:
            bad += len(snapshot.malformed_lines)
    return SidecarHealth(len(keys), exported, bad)
