"""Usage of Claude Code and Codex sessions: their readings (engine/agents) as the records a report aggregates.

Each request the agent made is one call, keyed by its own identity (Claude Code's message and request ids,
Codex's response id) so a copy of a file is counted once (docs/usage.md).
"""

from __future__ import annotations

from engine.agents.protocol import AgentReading
from engine.index.records import CompactionRecord, UsageRecord
from engine.session.agent_glance import read_agent_session
from engine.stores.source import SessionSource
from engine.usage.model import SessionUsage

__all__ = ["UnreadableSessionError", "agent_session_usage"]

_PROVIDERS = {"claude-code": "anthropic", "codex": "openai"}


class UnreadableSessionError(ValueError):
    """A file discovery took for an agent's session holds nothing that agent's reader recognises."""


def _usage_of(source: SessionSource, reading: AgentReading) -> SessionUsage:
    provider = _PROVIDERS.get(reading.agent)
    calls = tuple(UsageRecord(c.line, c.key, None, c.timestamp, c.model, provider, c.input, c.output, c.cache_read,
                              c.cache_write, None, None) for c in reading.calls)
    compactions = tuple(CompactionRecord(c.line_no, f"{reading.agent}:{reading.session_id}:{c.line_no}", c.id,
                                         c.timestamp, c.tokens_before, None, None, False)
                        for c in reading.compactions)
    return SessionUsage(key=source.key, agent=reading.agent, project=reading.cwd or "-", calls=calls,
                        compactions=compactions, estimated_cost_usd=None, archived=source.kind != "live")


def agent_session_usage(source: SessionSource) -> SessionUsage:
    """The calls and compactions of one Claude Code or Codex session.

    Raises:
        UnreadableSessionError: the file holds no record its agent's reader recognises.
        OSError: the file cannot be read.
    """
    reading = read_agent_session(source)
    if not reading.is_session:
        raise UnreadableSessionError(f"not a {reading.agent} session ctxscope can read ({reading.records} records, "
                                     f"{len(reading.problems)} bad lines)")
    return _usage_of(source, reading)
