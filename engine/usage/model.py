"""The values of a usage report: totals per group, the rows, the report (``docs/usage.md``).

All money is USD, all counts are tokens unless named otherwise. A call's cost comes from the first source that
has it: the cost the agent recorded (``usage.cost.total``), OpenClaw's per-session ``estimatedCostUsd`` shared
out over the calls that recorded none, the price table (:mod:`engine.session.cost`); a call none of them can
price is counted in :attr:`UsageTotals.unpriced_calls` and left out of the cost.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

from engine.index.record_types import CompactionRecord, UsageRecord

__all__ = ["GROUPINGS", "CostSource", "GroupBy", "SessionUsage", "UsageReport", "UsageRow", "UsageTotals"]

GroupBy = Literal["day", "week", "month", "model", "project", "agent", "session"]
GROUPINGS: tuple[GroupBy, ...] = ("day", "week", "month", "model", "project", "agent", "session")
CostSource = Literal["recorded", "estimated", "price-table", "mixed", "unknown", "none"]


@dataclass(frozen=True, slots=True)
class UsageTotals:
    """Tokens, cost and compactions of a set of calls."""

    calls: int = 0
    input: int = 0
    """Non-cached input tokens."""
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost_recorded_usd: float = 0.0
    """From ``usage.cost.total`` as the agent recorded it."""
    cost_estimated_usd: float = 0.0
    """OpenClaw's ``estimatedCostUsd`` of a session, shared out over its calls that recorded no cost."""
    cost_table_usd: float = 0.0
    """From the price table (the call's model, 5-minute cache writes)."""
    unpriced_calls: int = 0
    """Calls with tokens that no source could price (their tokens count, their cost does not); in a
    recorded-only report, the calls whose agent recorded no cost (estimates and list prices are left out)."""
    compactions: int = 0
    compaction_cost_usd: float = 0.0
    """Writing each compaction's new prefix to the cache once (the first call after it re-sends the prefix).
    Part of :attr:`cost_usd`, not added to it."""
    unpriced_compactions: int = 0
    """Compactions whose cost is unknown: no call after them yet, or no price for that call's model."""

    @property
    def tokens(self) -> int:
        """All tokens billed: input, output, cache reads and cache writes."""
        return self.input + self.output + self.cache_read + self.cache_write

    @property
    def cost_usd(self) -> float:
        return self.cost_recorded_usd + self.cost_estimated_usd + self.cost_table_usd

    @property
    def cache_hit_ratio(self) -> float | None:
        """Share of prompt tokens read from the cache: ``cache_read / (input + cache_read + cache_write)``."""
        prompt = self.input + self.cache_read + self.cache_write
        return self.cache_read / prompt if prompt else None

    @property
    def cost_source(self) -> CostSource:
        """Where the cost came from: one source, ``mixed``, ``unknown`` (nothing priced) or ``none`` (no calls)."""
        parts = [name for name, value in (("recorded", self.cost_recorded_usd), ("estimated", self.cost_estimated_usd),
                                          ("price-table", self.cost_table_usd)) if value > 0]
        if len(parts) > 1:
            return "mixed"
        if parts:
            return parts[0]  # type: ignore[return-value]
        return "unknown" if self.unpriced_calls else "none"

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly figures (money rounded to 1e-6 USD)."""
        hit = self.cache_hit_ratio
        return {
            "calls": self.calls,
            "input_tokens": self.input,
            "output_tokens": self.output,
            "cache_read_tokens": self.cache_read,
            "cache_write_tokens": self.cache_write,
            "total_tokens": self.tokens,
            "cost_usd": round(self.cost_usd, 6),
            "cost_source": self.cost_source,
            "cost_recorded_usd": round(self.cost_recorded_usd, 6),
            "cost_estimated_usd": round(self.cost_estimated_usd, 6),
            "cost_table_usd": round(self.cost_table_usd, 6),
            "unpriced_calls": self.unpriced_calls,
            "cache_hit_ratio": None if hit is None else round(hit, 4),
            "compactions": self.compactions,
            "compaction_cost_usd": round(self.compaction_cost_usd, 6),
            "unpriced_compactions": self.unpriced_compactions,
        }


@dataclass(frozen=True, slots=True)
class UsageRow:
    """One group of a report: a day, an ISO week, a month, a model, a project, an agent or a session."""

    key: str
    totals: UsageTotals


@dataclass(frozen=True, slots=True)
class UsageReport:
    """Usage grouped one way, with the grand total."""

    by: GroupBy
    rows: tuple[UsageRow, ...]
    total: UsageTotals
    sessions: int
    """Sessions read (archives included)."""
    duplicate_calls: int
    """Calls found in more than one place (forks, copies, archives, an import) and counted once."""
    timezone: str
    """The zone days, weeks and months are cut in (``UTC``, an IANA name, or the local zone's name)."""
    since: date | None = None
    until: date | None = None
    recorded_only: bool = False
    """Costs are only those the agents recorded; estimates and list prices are left out (``unpriced_calls``)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "by": self.by,
            "timezone": self.timezone,
            "since": self.since.isoformat() if self.since else None,
            "until": self.until.isoformat() if self.until else None,
            "recorded_only": self.recorded_only,
            "sessions": self.sessions,
            "duplicate_calls": self.duplicate_calls,
            "rows": [{self.by: row.key, **row.totals.to_dict()} for row in self.rows],
            "total": self.total.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class SessionUsage:
    """What a report needs of one session: who it belongs to, and its indexed calls and compactions."""

    key: str
    agent: str
    """The OpenClaw agent id; ``pi`` for a plain pi session."""
    project: str
    """The directory the agent worked in (the session header's ``cwd``), ``-`` when unknown."""
    calls: tuple[UsageRecord, ...]
    compactions: tuple[CompactionRecord, ...] = ()
    estimated_cost_usd: float | None = None
    """OpenClaw's ``estimatedCostUsd`` for this session (live sessions only: it belongs to the store entry)."""
    archived: bool = False
