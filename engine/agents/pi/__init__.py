"""pi (pi-coding-agent): ``$PI_CODING_AGENT_DIR/sessions`` or ``~/.pi/agent/sessions``, and its settings.json and
models.json (docs/pi.md).

A pi session is an entry log (docs/formats.md) that :mod:`engine.stores` parses; this folder says where pi keeps
sessions and what pi's own files decide: the model's window and when pi compacts. pi takes no lock and keeps no
record of a running process on disk, so who is writing one of its sessions cannot be told (docs/pi.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.stores.source import SessionSource

if TYPE_CHECKING:
    from engine.agents.pi.config import PiCompaction
    from engine.agents.protocol import WindowHints
    from engine.stores.transcript import TranscriptReader

__all__ = ["ADAPTER", "Pi"]


class Pi:
    """The pi adapter (:class:`engine.agents.protocol.EntryAgent`)."""

    name = "pi"
    title = "pi"
    format = "pi-jsonl"
    formats: tuple[str, ...] = ("pi-jsonl",)
    controller = "jsonl"
    summary_format = "pi"
    reserve_floor = 0

    def default_roots(self, env: Mapping[str, str]) -> tuple[Path, ...]:
        """``$PI_CODING_AGENT_DIR/sessions`` (``~`` expanded), else ``~/.pi/agent/sessions``."""
        configured = env.get("PI_CODING_AGENT_DIR")
        home = Path(env.get("HOME") or Path.home())
        return (Path(configured).expanduser() if configured else home / ".pi" / "agent") / "sessions",

    def window_hints(self, source: SessionSource, provider: str | None, model: str | None,
                     env: Mapping[str, str] | None) -> WindowHints:
        """The window pi's models.json gives the model (pi has no per-session store)."""
        # Imported here: naming the agent (the registry, a report over other agents' files) must not load its
        # reader or settings (docs/usage.md, Speed).
        from engine.agents.pi.config import pi_model_window
        from engine.agents.protocol import WindowHints

        return WindowHints(agent_window=pi_model_window(provider, model, env))

    def compaction_rule(self, cwd: str | None, env: Mapping[str, str] | None) -> PiCompaction:
        """pi's ``compaction`` settings: the project's settings.json over the global one, else pi's defaults."""
        from engine.agents.pi.config import pi_compaction_settings

        return pi_compaction_settings(cwd, env)

    def claims(self, first: Mapping[str, Any] | None, path: Path) -> bool:
        """Any record with a ``type`` (its header, or an entry of a header-less file), and any file whose first
        record is unreadable: pi keeps sessions wherever ``--session-dir`` points, so only the others' records
        and layouts tell their files apart (the registry asks pi last)."""
        return first is None or "type" in first

    def writer(self, path: Path, session_id: str | None, env: Mapping[str, str]) -> str | None:
        """``None``: pi takes no lock and leaves no trace of a running process, so nobody can tell."""
        return None

    def entry_reader(self, source: SessionSource) -> TranscriptReader:
        from engine.stores.transcript import TranscriptReader

        return TranscriptReader(source.path)

    def gateway_addresses(self, source: SessionSource) -> bool:
        """False: pi has no gateway."""
        return False

    def archive_source(self, path: Path) -> SessionSource:
        """Any archived transcript no other agent's layout claims is read as pi's."""
        return SessionSource(key=str(path), path=path, format="pi-jsonl", kind="archive")


ADAPTER = Pi()
