"""Claude Code: ``~/.claude/projects/<project>/<session>.jsonl`` (docs/claude-code.md)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.stores.source import SessionSource

if TYPE_CHECKING:
    from engine.agents.claude_code.reader import ClaudeCodeReader
    from engine.agents.session_reader import SessionReader

__all__ = ["ADAPTER", "ClaudeCode"]

_OWN_TYPES = frozenset({
    "queue-operation", "last-prompt", "cost-state", "mode", "tools-used", "atis-latch", "attachment",
    "file-history-snapshot", "api-request", "api-request-shape", "api-request-blob", "summary",
})


class ClaudeCode:
    """The Claude Code adapter (:class:`engine.agents.protocol.AgentAdapter`)."""

    name = "claude-code"
    title = "Claude Code"
    format = "claude-code-jsonl"
    formats: tuple[str, ...] = ("claude-code-jsonl",)
    controller = "claude-code"
    summary_format = "openclaw"
    """The five-section layout every agent but pi has been given so far (docs/agents.md)."""

    def default_roots(self, env: Mapping[str, str]) -> tuple[Path, ...]:
        """``$CLAUDE_CONFIG_DIR/projects``, else ``~/.claude/projects``."""
        base = env.get("CLAUDE_CONFIG_DIR")
        home = Path(env.get("HOME") or Path.home())
        return (Path(base).expanduser() if base else home / ".claude") / "projects",

    def claims(self, first: Mapping[str, Any] | None, path: Path) -> bool:
        """Claude Code records carry ``parentUuid`` or ``sessionId`` (pi's carry ``parentId`` and a header).

        A file under a ``.claude`` directory (its config dir) when the first record cannot be read.
        """
        if first is None:
            return ".claude" in path.parts
        if "payload" in first or first.get("type") == "session":
            return False
        return "parentUuid" in first or "sessionId" in first or first.get("type") in _OWN_TYPES

    def reader(self, path: Path, env: Mapping[str, str] | None = None) -> ClaudeCodeReader:
        # Imported here: naming the agent (the registry, a report over other agents' files) must not load its
        # reader (docs/usage.md, Speed).
        from engine.agents.claude_code.reader import ClaudeCodeReader

        return ClaudeCodeReader(path)

    def writer(self, path: Path, session_id: str | None, env: Mapping[str, str]) -> str | None:
        """A live ``claude`` whose ``sessions/<pid>.json`` names the session (docs/claude-code.md)."""
        from engine.agents.claude_code.liveness import claude_writer

        return claude_writer(session_id, env, path)

    def entry_reader(self, source: SessionSource) -> SessionReader:
        """Its reading laid out as entries (:mod:`engine.agents.agent_entries`)."""
        from engine.agents.agent_entries import AgentEntryReader  # it asks the registry, which imports this

        return AgentEntryReader(source.path, self.format, self.name)

    def gateway_addresses(self, source: SessionSource) -> bool:
        """False: Claude Code has no gateway."""
        return False


ADAPTER = ClaudeCode()
