"""The agents ctxscope reads through :mod:`engine.agents`, and which one a file belongs to."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.agents.claude_code import ADAPTER as CLAUDE_CODE
from engine.agents.codex import ADAPTER as CODEX
from engine.agents.protocol import AgentAdapter

__all__ = ["ADAPTERS", "adapter_for", "adapter_named", "agent_formats"]

ADAPTERS: tuple[AgentAdapter, ...] = (CLAUDE_CODE, CODEX)


def adapter_for(first: Mapping[str, Any], path: Path) -> AgentAdapter | None:
    """The agent whose session a file is, from its first record; ``None`` for pi/OpenClaw and unknown files."""
    return next((a for a in ADAPTERS if a.claims(first, path)), None)


def adapter_named(format_or_name: str) -> AgentAdapter | None:
    """The adapter of a session format (``claude-code-jsonl``) or agent name (``claude-code``)."""
    return next((a for a in ADAPTERS if format_or_name in (a.format, a.name)), None)


def agent_formats() -> frozenset[str]:
    """The session formats read through :mod:`engine.agents`."""
    return frozenset(a.format for a in ADAPTERS)
