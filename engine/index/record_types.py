"""The records an index keeps and a usage report sums: a billed call, a compaction (``docs/index.md``).

Their own module, apart from the rules that make them from a transcript's entries (:mod:`engine.index.records`,
which re-exports them): a report over Claude Code or Codex files builds them from those agents' readers and does
not import the entry parser (docs/usage.md, Speed).
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["CompactionRecord", "UsageRecord"]


class UsageRecord(NamedTuple):
    """One assistant call that reached a model and reported tokens (or a cost)."""

    line: int
    """Physical line number in the file (``seq`` for SQLite): the call's place in file order."""
    key: str | None
    """Request key (see the module docstring); ``None`` when the entry has neither id nor timestamp."""
    entry_id: str | None
    timestamp: str | None
    """ISO-8601 time of the entry (the message's epoch-ms time when the entry has none)."""
    model: str | None
    provider: str | None
    input: int
    """Non-cached input tokens."""
    output: int
    cache_read: int
    cache_write: int
    cost: float | None
    """USD the agent recorded in ``usage.cost.total`` (``None`` when absent)."""
    stop_reason: str | None


class CompactionRecord(NamedTuple):
    """One ``compaction`` entry."""

    line: int
    key: str | None
    entry_id: str | None
    timestamp: str | None
    tokens_before: int | None
    first_kept_entry_id: str | None
    from_hook: bool | None
    fallback_summary: bool
