"""What to compact with: the layer the triggers call for, and the controller that may apply it (or why none may).

Pure reads of a snapshot and its source (docs/compaction.md, Layers; Controllers); :mod:`engine.compaction.planner`
plans with the answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.agents.registry import agent_of
from engine.config.loader import Config
from engine.session.snapshot import SessionSnapshot
from engine.stores.source import SessionSource

__all__ = [
    "choose_controller",
    "default_layer",
    "jsonl_problems",
    "openclaw_budget_of",
    "select_compaction_layer",
    "tool_output_tokens",
]


def select_compaction_layer(
    utilization: float | None, tool_output_tokens: int, config: Config | None = None
) -> str | None:
    """The layer the layer triggers call for at ``utilization`` (fraction), or ``None`` below every trigger.

    Defaults: ``full`` at ≥ 95%; ``prune`` at ≥ 80% when tool outputs exceed 50k tokens; ``summarize`` at ≥ 88%.
    """
    if utilization is None:
        return None
    settings = (config or Config()).compaction
    full, prune, summarize = settings.full, settings.prune, settings.summarize
    if full.trigger is not None and utilization >= full.trigger:
        return "full"
    if prune.trigger is not None and utilization >= prune.trigger and tool_output_tokens > prune.min_tool_output_tokens:
        return "prune"
    if summarize.trigger is not None and utilization >= summarize.trigger:
        return "summarize"
    return None


def default_layer(snapshot: SessionSnapshot, config: Config | None = None) -> str:
    """The layer a compaction of ``snapshot`` uses when the user names none: the one place that decides it.

    A session in OpenClaw's SQLite store is compacted by the gateway, which only summarizes (it picks its own
    cut), so it is always ``summarize``; otherwise the layer the triggers call for at the current utilization,
    and ``summarize`` below every trigger. The CLI (``--layer auto``), the TUI's compact dialog and automatic
    compaction all call this.
    """
    if snapshot.source.in_database:
        return "summarize"
    return select_compaction_layer(snapshot.utilization, tool_output_tokens(snapshot), config) or "summarize"


def tool_output_tokens(snapshot: SessionSnapshot) -> int:
    """Tool output in the context, in pi-estimate tokens (the prune layer's condition)."""
    return sum(m.entry.pi_tokens for m in snapshot.view.messages if m.role in ("toolResult", "bashExecution"))


def choose_controller(source: SessionSource, requested: str = "auto") -> tuple[str, str | None]:
    """The controller for ``source`` given the requested one, and why it must refuse (``None`` if it may act)."""
    if source.kind == "legacy":
        return "none", (
            f"{source.path} is a legacy JSONL transcript beside OpenClaw's SQLite store: OpenClaw 2026.8 and later "
            "no longer read it, so it is shown read-only and never compacted (docs/openclaw.md)"
        )
    if source.in_database and source.kind != "live":
        what = "was moved to cold storage" if source.cold_archive else "is archived in OpenClaw"
        return "none", f"{source.key} {what}; archived sessions are shown read-only and never compacted"
    if source.in_database:
        if requested in ("auto", "gateway"):
            return "gateway", None
        return "none", (
            f"{source.key} lives in OpenClaw's SQLite store, which only the gateway writes; "
            "compact it with --controller gateway"
        )
    if requested == "none":
        return "none", "the configured controller is 'none': compaction is disabled for this session"
    agent = agent_of(source.format)
    if requested == "gateway":
        if agent is None or not agent.gateway_addresses(source):
            return "gateway", (
                f"{source.key} is not an OpenClaw session with a session key in sessions.json, "
                "so the gateway cannot address it; use --controller jsonl"
            )
        return "gateway", None
    if source.kind != "live":
        return "none", f"{source.path} is an archived transcript; nothing reads it any more, so it is never compacted"
    if source.read_only_reason is not None:
        return "none", source.read_only_reason
    # Each agent's own: a compaction entry pi and OpenClaw read, a boundary Claude Code reads on resume
    # (docs/claude-code.md), a compacted record Codex reads on resume (docs/codex.md); docs/agents.md.
    return (agent.controller if agent is not None else "jsonl"), None


def jsonl_problems(snapshot: SessionSnapshot) -> list[str]:
    path = snapshot.source.path
    if snapshot.headerless:
        return [f"{path} has no session header; pi would discard it and start a new session, "
                "so ctxscope only reads it (docs/formats.md, Header)"]
    if snapshot.version < 3:
        return [f"{path} is a version {snapshot.version} session; pi migrates and rewrites such files when it "
                "opens them, so ctxscope only reads them (docs/formats.md, Versions and migration). "
                "Open it once in pi or OpenClaw first."]
    return []


def openclaw_budget_of(source: SessionSource) -> dict[str, Any] | None:
    """OpenClaw's own figures for a session from its store row: ``contextBudgetStatus`` and ``totalTokens``."""
    entry = source.store_entry or {}
    status = entry.get("contextBudgetStatus")
    figures: dict[str, Any] = {}
    if isinstance(status, Mapping):
        for name in ("estimatedPromptTokens", "promptBudgetBeforeReserve", "reserveTokens", "contextTokenBudget",
                     "remainingPromptBudgetTokens", "shouldCompact", "source", "updatedAt"):
            if name in status and _bounded(status[name]):
                figures[name] = status[name]
    for name in ("totalTokens", "totalTokensFresh", "contextTokens", "compactionCount"):
        if name in entry and _bounded(entry[name]):
            figures[name] = entry[name]
    return figures or None


def _bounded(value: Any) -> bool:
    # A store's number is shown only when it is a finite count or time stamp (docs/formats.md, Number bounds):
    # 2**70 broke JSON output, 1e308 printed as inf.
    if isinstance(value, bool) or not isinstance(value, int | float):
        return True
    return 0 <= value <= 2**53
