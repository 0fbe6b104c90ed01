"""Codex: ``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`` (docs/codex.md)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.agents.codex.config import codex_home, home_of_rollout
from engine.agents.codex.liveness import codex_writer
from engine.agents.codex.reader import CodexReader

__all__ = ["ADAPTER", "Codex"]

_OWN_TYPES = frozenset({"session_meta", "turn_context", "event_msg", "response_item", "compacted", "world_state",
                        "token_usage_record"})


class Codex:
    """The Codex adapter (:class:`engine.agents.protocol.AgentAdapter`)."""

    name = "codex"
    format = "codex-jsonl"
    formats: tuple[str, ...] = ("codex-jsonl",)
    controller = "codex"

    def default_roots(self, env: Mapping[str, str]) -> tuple[Path, ...]:
        """``$CODEX_HOME/sessions`` (and its ``archived_sessions``), else under ``~/.codex``."""
        home = codex_home(env)
        return home / "sessions", home / "archived_sessions"

    def claims(self, first: Mapping[str, Any], path: Path) -> bool:
        """Every rollout line is ``{timestamp, type, payload}`` with one of Codex's record types."""
        return isinstance(first.get("payload"), Mapping) and first.get("type") in _OWN_TYPES

    def reader(self, path: Path, env: Mapping[str, str] | None = None) -> CodexReader:
        return CodexReader(path, os.environ if env is None else env)

    def writer(self, path: Path, session_id: str | None, env: Mapping[str, str]) -> str | None:
        """A process holding the thread's writer lock (docs/codex.md)."""
        return codex_writer(session_id, home_of_rollout(path) or codex_home(env))


ADAPTER = Codex()
