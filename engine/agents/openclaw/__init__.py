"""OpenClaw: its state directory (``$OPENCLAW_STATE_DIR``, ``~/.openclaw``, legacy ``~/.clawdbot``), its
``sessions.json`` stores and SQLite store, and ``openclaw.json`` (docs/openclaw.md).

OpenClaw runs pi's session format (docs/formats.md): :mod:`engine.stores` parses the JSONL transcripts and
:mod:`engine.agents.openclaw.sqlite_store` the SQLite store. The window comes from the store row, else
``openclaw.json``; the compaction line keeps OpenClaw's reserve floor.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from engine.agents.openclaw.config import configured_window
from engine.agents.protocol import CompactionRule, WindowHints
from engine.stores.source import SessionSource

__all__ = ["ADAPTER", "OPENCLAW_RESERVE_FLOOR", "OpenClaw"]

OPENCLAW_RESERVE_FLOOR = 20_000
"""OpenClaw's default ``reserveTokensFloor``: it compacts at least this far below the window (docs/openclaw.md)."""


class OpenClaw:
    """The OpenClaw adapter (:class:`engine.agents.protocol.EntryAgent`)."""

    name = "openclaw"
    title = "OpenClaw"
    formats: tuple[str, ...] = ("openclaw-jsonl", "openclaw-sqlite")
    controller = "jsonl"
    """For a JSONL transcript; a session in the SQLite store is compacted by the gateway (only it writes there)."""
    reserve_floor = OPENCLAW_RESERVE_FLOOR

    def default_roots(self, env: Mapping[str, str]) -> tuple[Path, ...]:
        """``$OPENCLAW_STATE_DIR`` when set, then ``~/.openclaw`` and the legacy ``~/.clawdbot``."""
        home = Path(env.get("HOME") or Path.home())
        state_dir = env.get("OPENCLAW_STATE_DIR")
        given = (Path(state_dir).expanduser(),) if state_dir else ()
        return (*given, home / ".openclaw", home / ".clawdbot")

    def window_hints(self, source: SessionSource, provider: str | None, model: str | None,
                     env: Mapping[str, str] | None) -> WindowHints:
        """The model's window in the session's ``openclaw.json`` (the store row's own window is the caller's)."""
        return WindowHints(configured=configured_window(source.state_dir, provider, model))

    def compaction_rule(self, cwd: str | None, env: Mapping[str, str] | None) -> CompactionRule | None:
        """None: ctxscope reads no compaction settings of OpenClaw's; its config and the reserve floor decide."""
        return None


ADAPTER = OpenClaw()
