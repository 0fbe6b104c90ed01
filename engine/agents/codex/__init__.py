"""Codex: ``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`` (docs/codex.md)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.agents.codex.config import codex_home, home_of_rollout
from engine.stores.source import SessionSource

if TYPE_CHECKING:
    from engine.agents.codex.reader import CodexReader
    from engine.agents.session_reader import SessionReader

__all__ = ["ADAPTER", "Codex"]

_OWN_TYPES = frozenset({"session_meta", "turn_context", "event_msg", "response_item", "compacted", "world_state",
                        "token_usage_record"})


class Codex:
    """The Codex adapter (:class:`engine.agents.protocol.AgentAdapter`)."""

    name = "codex"
    title = "Codex"
    format = "codex-jsonl"
    formats: tuple[str, ...] = ("codex-jsonl",)
    controller = "codex"
    summary_format = "openclaw"
    """The five-section layout every agent but pi has been given so far (docs/agents.md)."""

    def default_roots(self, env: Mapping[str, str]) -> tuple[Path, ...]:
        """``$CODEX_HOME/sessions`` (and its ``archived_sessions``), else under ``~/.codex``."""
        home = codex_home(env)
        return home / "sessions", home / "archived_sessions"

    def claims(self, first: Mapping[str, Any] | None, path: Path) -> bool:
        """Every rollout line is ``{timestamp, type, payload}`` with one of Codex's record types.

        A ``rollout-*`` file under a ``sessions`` directory when the first record cannot be read.
        """
        if first is None:
            return path.name.startswith("rollout-") and "sessions" in path.parts
        return isinstance(first.get("payload"), Mapping) and first.get("type") in _OWN_TYPES

    def reader(self, path: Path, env: Mapping[str, str] | None = None) -> CodexReader:
        # Imported here: naming the agent (the registry, a report over other agents' files) must not load its
        # reader (docs/usage.md, Speed).
        from engine.agents.codex.reader import CodexReader

        return CodexReader(path, os.environ if env is None else env)

    def writer(self, path: Path, session_id: str | None, env: Mapping[str, str]) -> str | None:
        """A process holding the thread's writer lock (docs/codex.md)."""
        from engine.agents.codex.liveness import codex_writer

        return codex_writer(session_id, home_of_rollout(path) or codex_home(env))

    def entry_reader(self, source: SessionSource) -> SessionReader:
        """Its reading laid out as entries (:mod:`engine.agents.agent_entries`)."""
        from engine.agents.agent_entries import AgentEntryReader  # it asks the registry, which imports this

        return AgentEntryReader(source.path, self.format, self.name)

    def gateway_addresses(self, source: SessionSource) -> bool:
        """False: Codex has no gateway."""
        return False


ADAPTER = Codex()
