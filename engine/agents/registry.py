"""The agents ctxscope reads through :mod:`engine.agents`, and which one a file belongs to."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from engine.agents.claude_code import ADAPTER as CLAUDE_CODE
from engine.agents.codex import ADAPTER as CODEX
from engine.agents.protocol import AgentAdapter

__all__ = ["ADAPTERS", "adapter_for", "adapter_named", "agent_formats", "sniff_format"]

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")

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


_SNIFF_BYTES = 1 << 16
_FIRST_READ = 1 << 12
"""A first line is mostly shorter: reading 64 KiB of every file made discovery read most of a small session."""


def sniff_format(path: Path) -> tuple[str, str | None] | None:
    """``(format, session id)`` of a file an agent here claims, from its first line; ``None`` otherwise.

    The session id is the agent's own: the file's UUID name (Claude Code ``<uuid>.jsonl``, a sub-agent's
    ``agent-<id>.jsonl`` keeps its name; Codex ``rollout-<time>-<uuid>.jsonl``).
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            head = os.pread(fd, _FIRST_READ, 0)
            if b"\n" not in head and len(head) == _FIRST_READ:
                head = os.pread(fd, _SNIFF_BYTES, 0)
            first = head.partition(b"\n")[0]
        finally:
            os.close(fd)
        obj = orjson.loads(first.removeprefix(b"\xef\xbb\xbf"))
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(obj, dict):
        return None
    adapter = adapter_for(obj, path)
    if adapter is None:
        return None
    stem = path.name.removesuffix(".jsonl")
    match = _UUID.search(stem)
    if adapter.name == "claude-code" and path.parent.name == "subagents":
        return adapter.format, f"{path.parent.parent.name}/{stem}"
    return adapter.format, match.group(0) if match else stem
