"""How the session list is ordered and filtered: by any column (``s`` cycles), filtered on key, file, model and
project."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Final

from engine import SessionInsight, SessionSnapshot

__all__ = ["SORTS", "matches", "ordered", "project_label"]

_RISK_RANK: Final = {"critical": 0, "high": 1, "medium": 2, "low": 3}

SORTS: Final = ("active", "context", "tokens", "spend", "risk", "compactions", "session", "project", "model")
"""The orders ``s`` cycles through, in that order; ``active`` (most recent first) is the default."""


def project_label(snapshot: SessionSnapshot) -> str:
    """The project a session works on: the last part of its working directory, else its OpenClaw agent."""
    if snapshot.project:
        parts = [p for p in snapshot.project.replace("\\", "/").split("/") if p]
        return parts[-1] if parts else snapshot.project
    return f"agent {snapshot.source.agent_id}" if snapshot.source.agent_id else "-"


def _time(s: SessionSnapshot) -> float:
    return s.last_activity.timestamp() if s.last_activity else float("-inf")


def ordered(snapshots: Sequence[SessionSnapshot], by: str = "active",
            insights: Mapping[str, SessionInsight] | None = None) -> list[SessionSnapshot]:
    """``snapshots`` sorted ``by`` one of :data:`SORTS`: numbers largest first, names A→Z, unknowns last; ties by
    most recent activity, then key."""
    insights = insights or {}

    def spend(s: SessionSnapshot) -> float | None:
        found = insights.get(s.key)
        return found.cost.spend_usd if found is not None else None

    def risk(s: SessionSnapshot) -> float | None:
        found = insights.get(s.key)
        return -_RISK_RANK[found.risk] if found is not None and found.risk in _RISK_RANK else None

    numbers: dict[str, Callable[[SessionSnapshot], float | None]] = {
        "active": lambda s: _time(s) if s.last_activity else None,
        "context": lambda s: s.gauge.utilization,
        "tokens": lambda s: s.gauge.tokens,
        "spend": spend,
        "risk": risk,
        "compactions": lambda s: s.compactions,
    }
    names: dict[str, Callable[[SessionSnapshot], str | None]] = {
        "session": lambda s: s.key.lower(),
        "project": lambda s: project_label(s).lower() if project_label(s) != "-" else None,
        "model": lambda s: (s.model or "").lower() or None,
    }
    if by in numbers:
        number = numbers[by]
        return sorted(snapshots, key=lambda s: (number(s) is None, -(number(s) or 0), -_time(s), s.key))
    if by in names:
        name = names[by]
        return sorted(snapshots, key=lambda s: (name(s) is None, name(s) or "", -_time(s), s.key))
    raise ValueError(f"unknown order {by!r}; choose one of {', '.join(SORTS)}")


def matches(snapshot: SessionSnapshot, query: str) -> bool:
    """Whether the filter ``query`` (case-insensitive substring) matches the key, file name, model or project."""
    if not query:
        return True
    haystack = " ".join((snapshot.key, snapshot.source.path.name, snapshot.model or "", snapshot.project or "",
                         project_label(snapshot))).lower()
    return query.lower() in haystack
