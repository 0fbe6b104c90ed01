"""The limits the agent itself works with: its context window, its compaction line, its keep-recent budget.

For sessions pi writes itself (format ``pi-jsonl``), pi's models.json and settings.json decide
(:mod:`engine.agents.pi.config`, docs/pi.md); ctxscope's own config wins where the user set a value explicitly.
OpenClaw sessions keep their store's window and OpenClaw's reserve floor. Every figure says where it came from.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from engine.accounting.gauge import GaugeReading, Thresholds, read_gauge
from engine.accounting.windows import ContextWindow, resolve_context_window
from engine.agents.openclaw.config import configured_window
from engine.agents.pi.config import pi_compaction_settings, pi_model_window
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
    pi_session = source.format == "pi-jsonl"
    agent_window = pi_model_window(provider, model, env) if pi_session else None
    window = resolve_context_window(
        store_context_tokens=store.get("contextTokens"),
        model=model,
        overrides=config.context_windows,
        agent_window=agent_window,
        configured=None if pi_session else configured_window(source.state_dir, provider, model),
    )
    floor = config.reserve_floor_for(source.format)
    if not pi_session:
        return AgentLimits(window, config.thresholds.reserve_tokens, floor, True,
                           "OpenClaw reserve floor" if floor > config.thresholds.reserve_tokens else "ctxscope config",
                           config.keep_recent_tokens, "ctxscope config")
    pi = pi_compaction_settings(cwd, env)
    if "reserve_tokens" in config.explicit:
        reserve, line_source = config.thresholds.reserve_tokens, "ctxscope config reserve_tokens"
    else:
        reserve, line_source = pi.reserve_tokens, f"reserveTokens from {pi.reserve_source}"
    if "keep_recent_tokens" in config.explicit:
        keep, keep_source = config.keep_recent_tokens, "ctxscope config keep_recent_tokens"
    else:
        keep, keep_source = pi.keep_recent_tokens, f"keepRecentTokens from {pi.keep_recent_source}"
    if not pi.enabled:
        line_source = f"auto-compaction disabled in {pi.enabled_source}"
    return AgentLimits(window, reserve, floor, pi.enabled, line_source, keep, keep_source)
