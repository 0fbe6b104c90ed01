"""The agents ctxscope knows (docs/agents.md), which one a format or a file belongs to."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from engine.agents.claude_code import ADAPTER as CLAUDE_CODE
from engine.agents.codex import ADAPTER as CODEX
from engine.agents.openclaw import ADAPTER as OPENCLAW
from engine.agents.pi import ADAPTER as PI
from engine.stores.source import SessionSource

if TYPE_CHECKING:
    # Only the types: naming the agents loads none of their readers (docs/usage.md, Speed).
    from engine.agents.protocol import Agent, AgentAdapter, EntryAgent

__all__ = [
    "ADAPTERS",
    "ENTRY_AGENTS",
    "READERS",
    "adapter_for",
    "adapter_named",
    "agent_formats",
    "agent_of",
    "archive_source",
    "entry_agent",
    "own_roots",
    "read_head",
    "shaped_session",
    "sniff_format",
]

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")

ENTRY_AGENTS: tuple[EntryAgent, ...] = (OPENCLAW, PI)
"""Agents whose sessions :mod:`engine.stores` parses as entries."""
READERS: tuple[AgentAdapter, ...] = (CLAUDE_CODE, CODEX)
"""Agents read through their own reader."""
ADAPTERS: tuple[Agent, ...] = (*ENTRY_AGENTS, *READERS)
"""Every agent, in the order discovery walks their default roots."""


def agent_of(format_or_name: str) -> Agent | None:
    """The agent of a session format (``openclaw-sqlite``) or agent name (``openclaw``)."""
    return next((a for a in ADAPTERS if format_or_name in a.formats or format_or_name == a.name), None)


def entry_agent(format_or_name: str) -> EntryAgent | None:
    """The pi or OpenClaw adapter of a session format or agent name; ``None`` for the others."""
    return next((a for a in ENTRY_AGENTS if format_or_name in a.formats or format_or_name == a.name), None)


def adapter_for(first: Mapping[str, Any] | None, path: Path) -> AgentAdapter | None:
    """The agent read through its own reader whose session a file is, from its first record (``None``: unread or
    unparsable, judged from where the file lies); ``None`` for pi/OpenClaw (discovery recognises theirs:
    docs/formats.md, Discovery) and unknown files."""
    return next((a for a in READERS if a.claims(first, path)), None)


def archive_source(path: Path) -> SessionSource:
    """A source for an archived transcript discovery set aside: the first entry agent whose layout holds it
    (OpenClaw's before pi's, which takes any), its first record unread."""
    for agent in ENTRY_AGENTS:
        source = agent.archive_source(path)
        if source is not None:
            return source
    # Only when a registry holds no catch-all agent: the file is still counted, as its path.
    return SessionSource(key=str(path), path=path, format="pi-jsonl", kind="archive")


def adapter_named(format_or_name: str) -> AgentAdapter | None:
    """The reading adapter of a session format (``claude-code-jsonl``) or agent name (``claude-code``)."""
    return next((a for a in READERS if format_or_name in (a.format, a.name)), None)


def agent_formats() -> frozenset[str]:
    """The session formats read through an agent's own reader."""
    return frozenset(a.format for a in READERS)


_SNIFF_BYTES = 1 << 16
_FIRST_READ = 1 << 12
"""A first line is mostly shorter: reading 64 KiB of every file made discovery read most of a small session."""


def read_head(path: Path) -> bytes | None:
    """The first bytes of a file as :func:`sniff_format` reads them (4 KiB, or 64 KiB when its first line is
    longer); ``None`` when it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            head = os.pread(fd, _FIRST_READ, 0)
            if b"\n" not in head and len(head) == _FIRST_READ:
                head = os.pread(fd, _SNIFF_BYTES, 0)
            return head
        finally:
            os.close(fd)
    except OSError:
        return None


_CLAUDE_CODE_NAME = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\.jsonl")
_CODEX_NAME = re.compile(r"rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-"
                         r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl")
_DAY_PARTS = (4, 2, 2)


def own_roots(env: Mapping[str, str]) -> frozenset[str]:
    """The Claude Code projects and Codex sessions directories ``env`` names (:func:`shaped_session`)."""
    return frozenset(str(root) for root in (*CLAUDE_CODE.default_roots(env), *CODEX.default_roots(env)[:1]))


def shaped_session(path: str, roots: frozenset[str] = frozenset()) -> tuple[str, str] | None:
    """``(format, session id)`` of a file whose place and name are an agent's own, without reading it; ``None``
    for any other file (it is sniffed: :func:`sniff_format`).

    Claude Code's ``<config>/projects/<project>/<uuid>.jsonl`` and Codex's
    ``<home>/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl``, where ``<config>`` is a ``.claude`` directory and
    ``<home>`` a ``.codex`` one, or the projects or sessions directory is one of ``roots`` (:func:`own_roots`).
    The session id is the one :func:`sniff_format` takes from the name. A file in such a place that holds
    something else is its agent's reader's to judge: it is named as a file that reader cannot read, never
    counted as an empty session (docs/usage.md, Speed).
    """
    parts = path.rsplit(os.sep, 5)
    name = parts[-1]
    if len(parts) >= 4 and parts[-3] == "projects" and parts[-2] != "subagents" and _CLAUDE_CODE_NAME.fullmatch(name):
        if parts[-4] == ".claude" or path[:-len(parts[-2]) - len(name) - 2] in roots:
            return CLAUDE_CODE.format, name[:-6]
        return None
    if len(parts) == 6 and parts[1] == "sessions" and name.startswith("rollout-"):
        found = _CODEX_NAME.fullmatch(name)
        if found is None or not all(len(p) == n and p.isdigit() for p, n in zip(parts[2:5], _DAY_PARTS, strict=True)):
            return None
        if parts[0].endswith(os.sep + ".codex") or parts[0] + os.sep + "sessions" in roots:
            return CODEX.format, found.group(1)
    return None


def sniff_format(path: Path, head: bytes | None = None) -> tuple[str, str | None] | None:
    """``(format, session id)`` of a file an agent here claims, from its first line; ``None`` otherwise.

    ``head``: the file's first bytes as :func:`read_head` gave them, when the caller has them already (discovery
    reads them once for its own look at the first line: docs/usage.md, Speed).

    The session id is the agent's own: the file's UUID name (Claude Code ``<uuid>.jsonl``, a sub-agent's
    ``agent-<id>.jsonl`` keeps its name; Codex ``rollout-<time>-<uuid>.jsonl``).
    """
    if head is None:
        head = read_head(path)
        if head is None:
            return None
    try:
        obj = orjson.loads(head.partition(b"\n")[0].removeprefix(b"\xef\xbb\xbf"))
    except orjson.JSONDecodeError:
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
