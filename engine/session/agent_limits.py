"""The limits the agent itself works with: its context window, its compaction line, its keep-recent budget.

Each agent's folder says what its own files decide (:class:`engine.agents.protocol.EntryAgent`, docs/agents.md):
for sessions pi writes itself, pi's models.json and settings.json (docs/pi.md), where ctxscope's own config wins
where the user set a value explicitly; OpenClaw sessions keep their store's window, ``openclaw.json``'s and
OpenClaw's reserve floor. Every figure says where it came from.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from engine.accounting.gauge import GaugeReading, Thresholds, read_gauge
from engine.accounting.windows import ContextWindow, resolve_context_window
from engine.agents.protocol import WindowHints
from engine.agents.registry import entry_agent
from engine.config.loader import Config
from engine.stores.source import SessionSource

__all__ = ["AgentLimits", "agent_limits"]


@dataclass(frozen=True, slots=True)
class AgentLimits:
    """Window, compaction line and keep-recent budget of one session, each with its origin."""

    window: ContextWindow
    reserve_tokens: int
    reserve_floor: int
    compaction_enabled: bool
    line_source: str
    keep_recent_tokens: int
    keep_recent_source: str

    def gauge(self, tokens: int | None, config: Config) -> GaugeReading:
        """``tokens`` on this session's gauge."""
        thresholds = _with_reserve(config.thresholds, self.reserve_tokens)
        return read_gauge(tokens, self.window, thresholds=thresholds, reserve_floor=self.reserve_floor,
                          compaction_enabled=self.compaction_enabled)


@lru_cache(maxsize=16)
def _with_reserve(thresholds: Thresholds, reserve_tokens: int) -> Thresholds:
    return thresholds if thresholds.reserve_tokens == reserve_tokens else replace(thresholds,
                                                                                 reserve_tokens=reserve_tokens)


def agent_limits(
    source: SessionSource,
    config: Config,
    *,
    model: str | None,
    provider: str | None,
    cwd: str | None,
    env: Mapping[str, str] | None = None,
) -> AgentLimits:
    """Resolve the limits of ``source`` (``cwd``: the session header's, for pi's project settings)."""
    store: Mapping[str, Any] = source.store_entry or {}
    agent = entry_agent(source.format)
    hints = agent.window_hints(source, provider, model, env) if agent is not None else WindowHints()
    window = resolve_context_window(
        store_context_tokens=store.get("contextTokens"),
        model=model,
        overrides=config.context_windows,
        agent_window=hints.agent_window,
        configured=hints.configured,
    )
    floor = config.reserve_floor_for(source.format)
    rule = agent.compaction_rule(cwd, env) if agent is not None else None
    if rule is None:
        floor_source = f"{agent.title if agent else 'agent'} reserve floor"
        return AgentLimits(window, config.thresholds.reserve_tokens, floor, True,
                           floor_source if floor > config.thresholds.reserve_tokens else "ctxscope config",
                           config.keep_recent_tokens, "ctxscope config")
    if "reserve_tokens" in config.explicit:
        reserve, line_source = config.thresholds.reserve_tokens, "ctxscope config reserve_tokens"
    else:
        reserve, line_source = rule.reserve_tokens, f"reserveTokens from {rule.reserve_source}"
    if "keep_recent_tokens" in config.explicit:
        keep, keep_source = config.keep_recent_tokens, "ctxscope config keep_recent_tokens"
    else:
        keep, keep_source = rule.keep_recent_tokens, f"keepRecentTokens from {rule.keep_recent_source}"
    if not rule.enabled:
        line_source = f"auto-compaction disabled in {rule.enabled_source}"
    return AgentLimits(window, reserve, floor, rule.enabled, line_source, keep, keep_source)
