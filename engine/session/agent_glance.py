"""Claude Code and Codex sessions at a glance: their reading (engine/agents) on the gauge every view uses.

The figures are the agent's own (docs/claude-code.md, docs/codex.md): the tokens as it counts them, its window
and its compaction line, each with its source. The row has the keys of every other ``status`` row.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from engine.accounting.gauge import GaugeReading, Thresholds, read_gauge
from engine.accounting.windows import ContextWindow, window_for_model
from engine.agents.protocol import AgentReading, Figure
from engine.agents.registry import adapter_named
from engine.config.loader import Config
from engine.stores.source import SessionSource
from engine.stores.timestamps import parse_iso

__all__ = ["AgentGlance", "agent_gauge", "agent_glance", "read_agent_session"]


def read_agent_session(source: SessionSource, env: Mapping[str, str] | None = None) -> AgentReading:
    """The agent's reading of ``source`` (one full read; read-only).

    Raises:
        ValueError: ``source`` is not a Claude Code or Codex session.
        OSError: the file cannot be read.
    """
    adapter = adapter_named(source.format)
    if adapter is None:
        raise ValueError(f"{source.path}: {source.format} is not read through engine.agents")
    return adapter.reader(source.path, os.environ if env is None else env).read_new()


def _window(reading: AgentReading) -> ContextWindow:
    if reading.window.tokens:
        return ContextWindow(reading.window.tokens, reading.window.source)
    known = window_for_model(reading.model)
    if known is not None:
        return ContextWindow(known[0], f"{known[1]} (the agent recorded none)")
    return ContextWindow(200_000, "default (the agent recorded none)")


@dataclass(frozen=True, slots=True)
class AgentGlance:
    """One Claude Code or Codex session on the gauge."""

    source: SessionSource
    reading: AgentReading
    window: ContextWindow
    gauge: GaugeReading
    line: Figure
    writer: str | None = None
    """Who is writing the session now (docs/claude-code.md, docs/codex.md), ``None`` when nobody is."""

    def to_status(self) -> dict[str, Any]:
        """The ``ctxscope status --json`` row (the same keys as a pi or OpenClaw row)."""
        reading, util = self.reading, self.gauge.utilization
        last = parse_iso(reading.last_timestamp) if reading.last_timestamp else None
        if last is None:
            try:
                last = datetime.fromtimestamp(self.source.path.stat().st_mtime, UTC)
            except OSError:
                last = None
        return {
            "key": self.source.key,
            "path": str(self.source.path),
            "format": self.source.format,
            "kind": self.source.kind,
            "agent": reading.agent,
            "session_id": reading.session_id or self.source.session_id,
            "model": reading.model,
            "context_window": self.window.tokens,
            "context_window_source": self.window.source,
            "context_tokens": reading.context_tokens.tokens,
            "context_tokens_source": reading.context_tokens.source,
            "token_method": "agent",
            "agent_estimate": None,
            "agent_estimate_known": False,
            "utilization": None if util is None else round(util, 4),
            "compaction_threshold_tokens": self.line.tokens,
            "compaction_threshold_source": self.line.source,
            "gauge_level": self.gauge.level,
            "gauge_line": self.gauge.line(),
            "compactions": len(reading.compactions),
            "compactions_in_file": len(reading.compactions),
            "store_compaction_count": None,
            "leaf_id": reading.leaf_id,
            "last_activity": last.isoformat().replace("+00:00", "Z") if last else None,
            "malformed_lines": [{"line": p.line_no, "offset": p.offset, "reason": p.reason} for p in reading.problems],
            "version": None,
            "headerless": False,
            "pi_loadable": None,
            "scan": "full",
            "sidechain": reading.sidechain,
            "agent_writing": self.writer,
        }


def agent_glance(source: SessionSource, config: Config | None = None,
                 env: Mapping[str, str] | None = None) -> AgentGlance:
    """Read ``source`` and place it on the gauge with the agent's own window and compaction line.

    Raises:
        ValueError: ``source`` is not a Claude Code or Codex session.
        OSError: the file cannot be read.
    """
    config = config or Config()
    env = os.environ if env is None else env
    reading = read_agent_session(source, env)
    window, gauge = agent_gauge(reading, config)
    adapter = adapter_named(source.format)
    writer = adapter.writer(source.path, reading.session_id, env) if adapter is not None else None
    return AgentGlance(source, reading, window, gauge, reading.compaction_line, writer)


def agent_gauge(reading: AgentReading, config: Config) -> tuple[ContextWindow, GaugeReading]:
    """The window and the gauge of an agent's reading: its tokens against its own window and compaction line
    (no compaction marker when the agent's line is unknown)."""
    window = _window(reading)
    line = reading.compaction_line
    why = "after compaction" if reading.compactions else "before the first usage"
    if line.tokens is not None and 0 < line.tokens <= window.tokens:
        thresholds: Thresholds = replace(config.thresholds, reserve_tokens=window.tokens - line.tokens)
        return window, read_gauge(reading.context_tokens.tokens, window, thresholds=thresholds, unknown_reason=why)
    return window, read_gauge(reading.context_tokens.tokens, window, thresholds=config.thresholds,
                              compaction_enabled=False, line_known=False, unknown_reason=why)
