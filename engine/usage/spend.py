"""What a session has cost, whichever agent wrote it: the one function ``inspect``, the TUI and the metrics call.

pi and OpenClaw sessions are read as entries that carry their usage (and often their cost):
:func:`engine.session.cost.entries_cost`. Claude Code and Codex record no cost, so their calls are priced as
``report`` prices them: :func:`engine.usage.agent_cost.agent_session_cost` (docs/usage.md). The choice sits here,
above both, because pricing calls belongs to ``engine.usage``, which ``engine.session`` must not import.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING

from engine.session.cost import DEFAULT_CACHE_TTL_SECONDS, SessionCost, entries_cost
from engine.usage.agent_cost import agent_session_cost

if TYPE_CHECKING:
    from engine.session.snapshot import SessionSnapshot
    from engine.stores.entries import Entry

__all__ = ["session_cost"]


def session_cost(snapshot: SessionSnapshot, *, now: datetime, cache_ttl_seconds: int = DEFAULT_CACHE_TTL_SECONDS,
                 entries: Iterable[Entry] | None = None) -> SessionCost:
    """Spend and next-turn cost of a session (``entries``: pi/OpenClaw calls to sum in place of the context path)."""
    if snapshot.agent_calls is not None:
        return agent_session_cost(snapshot, now=now, cache_ttl_seconds=cache_ttl_seconds)
    return entries_cost(snapshot, now=now, cache_ttl_seconds=cache_ttl_seconds, entries=entries)
