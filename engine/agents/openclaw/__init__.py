"""OpenClaw: its state directory (``$OPENCLAW_STATE_DIR``, ``~/.openclaw``, legacy ``~/.clawdbot``), its
``sessions.json`` stores and SQLite store, and ``openclaw.json`` (docs/openclaw.md).

OpenClaw runs pi's session format (docs/formats.md): :mod:`engine.stores` parses the JSONL transcripts and
:mod:`engine.agents.openclaw.sqlite_store` the SQLite store. The window comes from the store row, else
``openclaw.json``; the compaction line keeps OpenClaw's reserve floor. Its files are pi's format: only where they
lie (``<state>/agents/<id>/sessions``, :mod:`engine.agents.openclaw.layout`) makes them OpenClaw's, and only its
``<transcript>.lock`` (docs/formats.md, The write lock) says a process is writing one.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.agents.openclaw.layout import openclaw_place
from engine.stores.source import SessionSource

if TYPE_CHECKING:
    from engine.agents.protocol import CompactionRule, WindowHints
    from engine.agents.session_reader import SessionReader

__all__ = ["ADAPTER", "OPENCLAW_RESERVE_FLOOR", "OpenClaw"]

OPENCLAW_RESERVE_FLOOR = 20_000
"""OpenClaw's default ``reserveTokensFloor``: it compacts at least this far below the window (docs/openclaw.md)."""


class OpenClaw:
    """The OpenClaw adapter (:class:`engine.agents.protocol.EntryAgent`)."""

    name = "openclaw"
    title = "OpenClaw"
    format = "openclaw-jsonl"
    formats: tuple[str, ...] = ("openclaw-jsonl", "openclaw-sqlite")
    controller = "jsonl"
    """For a JSONL transcript; a session in the SQLite store is compacted by the gateway (only it writes there)."""
    summary_format = "openclaw"
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
        # Imported here: naming the agent (the registry, a report over other agents' files) must not load its
        # reader or settings (docs/usage.md, Speed).
        from engine.agents.openclaw.config import configured_window
        from engine.agents.protocol import WindowHints

        return WindowHints(configured=configured_window(source.state_dir, provider, model))

    def compaction_rule(self, cwd: str | None, env: Mapping[str, str] | None) -> CompactionRule | None:
        """None: ctxscope reads no compaction settings of OpenClaw's; its config and the reserve floor decide."""
        return None

    def claims(self, first: Mapping[str, Any] | None, path: Path) -> bool:
        """A file in an OpenClaw agent's sessions directory, whatever its first record (they are pi's records).

        Discovery also takes a transcript a ``sessions.json`` beside it names as OpenClaw's (docs/formats.md).
        """
        return openclaw_place(path.parent)[0] is not None

    def writer(self, path: Path, session_id: str | None, env: Mapping[str, str]) -> str | None:
        """The live holder of ``<transcript>.lock`` (OpenClaw takes it for every write; so does ctxscope while it
        appends), ``None`` without a live lock; a session in the SQLite store has no lock, so ``None`` too."""
        from engine.fs.lock_info import inspect_lock

        info = inspect_lock(path)
        if info is None or info.stale or info.problem is not None:
            return None
        holder = f"pid {info.pid}" if info.pid is not None else "a process that has not written its pid yet"
        return f"{holder} holding {info.path.name}"

    def entry_reader(self, source: SessionSource) -> SessionReader:
        """The SQLite reader for a session in the store, the JSONL reader for a transcript."""
        if source.in_database:
            # Imported here: only SQLite users pay for sqlite3 and zstandard.
            from engine.agents.openclaw.sqlite_store import SqliteTranscriptReader

            return SqliteTranscriptReader(source.path, source.session_id or "")
        from engine.stores.transcript import TranscriptReader

        return TranscriptReader(source.path)

    def gateway_addresses(self, source: SessionSource) -> bool:
        """The gateway names a session by its key: a session in the SQLite store, or a transcript with an entry in
        ``sessions.json``."""
        return source.in_database or (source.format == "openclaw-jsonl" and source.store_entry is not None)

    def archive_source(self, path: Path) -> SessionSource | None:
        """An archived transcript in an agent's sessions directory, with that agent's id."""
        agent_id = openclaw_place(path.parent)[1]
        if agent_id is None:
            return None
        return SessionSource(key=str(path), path=path, format="openclaw-jsonl", kind="archive", agent_id=agent_id)


ADAPTER = OpenClaw()
