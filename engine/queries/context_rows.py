"""The messages in context one by one: tokens, and whether a compaction now would keep them verbatim; the largest.

Behind the Context tab, the Top consumers card and ``ctxscope inspect``. Whether a message is protected follows pi's cut
(``docs/context-accounting.md``): the messages from the cut at the recent budget on are kept; a session whose path
ends on a compaction, or whose last entry has no id, has no cut (pi's ``prepareCompaction`` returns nothing), so
nothing is compactable.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.accounting.consumers import Consumer, top_consumers
from engine.accounting.context import CutPoint, find_cut_point, has_pi_cut, pi_branch
from engine.config.loader import Config
from engine.session.snapshot import SessionFollower, SessionSnapshot

__all__ = ["ContextRow", "KeepRecent", "context_cut", "keep_recent_budget", "measure_rows", "read_top_consumers"]


@dataclass(frozen=True, slots=True)
class ContextRow:
    """One context message."""

    entry_id: str
    role: str
    tokens: int
    """Tokens of the message by the engine's offline tokenizer."""
    protected: bool
    """Inside the recent budget a compaction keeps verbatim."""
    tools: tuple[str, ...]
    pi_estimate: int = 0
    """pi's own estimate of the message's tokens."""
    sent: bool = True
    """Whether the agent sends it to the model."""
    line: int = 0
    """The transcript line it was read from."""


@dataclass(frozen=True, slots=True)
class KeepRecent:
    """The recent budget a compaction keeps verbatim, and where it came from."""

    tokens: int
    source: str
    """The agent's setting it was read from (pi's ``keepRecentTokens``), or ``ctxscope config``."""


def keep_recent_budget(snapshot: SessionSnapshot, config: Config) -> KeepRecent:
    """The agent's own recent budget (pi's ``keepRecentTokens`` for pi sessions), else the config's."""
    if snapshot.limits is not None:
        return KeepRecent(snapshot.limits.keep_recent_tokens, snapshot.limits.keep_recent_source)
    return KeepRecent(config.keep_recent_tokens, "ctxscope config")


def context_cut(snapshot: SessionSnapshot, keep_recent: int) -> CutPoint | None:
    """pi's cut at ``keep_recent``; ``None`` where pi's prepareCompaction has none (an empty branch, a path that
    ends on a compaction, a first kept entry without an id; docs/pi.md)."""
    branch = pi_branch(snapshot.view)
    cut = find_cut_point(branch, keep_recent)
    return cut if has_pi_cut(branch, cut) else None


def measure_rows(snapshot: SessionSnapshot, follower: SessionFollower, keep_recent: int) -> tuple[ContextRow, ...]:
    """Measure every context message of ``snapshot`` (blocking: re-reads text, run it in a thread)."""
    cut = context_cut(snapshot, keep_recent)
    first_kept = cut.first_kept_index if cut is not None else 0
    return tuple(
        ContextRow(
            message.entry_id,
            message.shown_role,
            follower.message_tokens(message),
            cut is None or (message.role != "compactionSummary" and message.path_index >= first_kept),
            message.entry.tool_calls,
            message.entry.pi_tokens,
            message.sent,
            message.entry.line_no,
        )
        for message in snapshot.view.messages
    )


def read_top_consumers(snapshot: SessionSnapshot, follower: SessionFollower, limit: int = 12) -> tuple[Consumer, ...]:
    """The ``limit`` largest context messages, largest first, counted like :func:`measure_rows` (blocking)."""
    return top_consumers(snapshot.view, follower.objects, cache=follower.token_cache, limit=limit)
