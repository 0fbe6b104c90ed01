"""pi (pi-coding-agent): ``$PI_CODING_AGENT_DIR/sessions`` or ``~/.pi/agent/sessions``, and its settings.json and
models.json (docs/pi.md).

A pi session is an entry log (docs/formats.md) that :mod:`engine.stores` parses; this folder says where pi keeps
sessions and what pi's own files decide: the model's window and when pi compacts.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from engine.agents.pi.config import PiCompaction, pi_compaction_settings, pi_model_window
from engine.agents.protocol import WindowHints
from engine.stores.source import SessionSource

__all__ = ["ADAPTER", "Pi"]


class Pi:
    """The pi adapter (:class:`engine.agents.protocol.EntryAgent`)."""

    name = "pi"
    title = "pi"
    formats: tuple[str, ...] = ("pi-jsonl",)
    controller = "jsonl"
    reserve_floor = 0

    def default_roots(self, env: Mapping[str, str]) -> tuple[Path, ...]:
        """``$PI_CODING_AGENT_DIR/sessions`` (``~`` expanded), else ``~/.pi/agent/sessions``."""
        configured = env.get("PI_CODING_AGENT_DIR")
        home = Path(env.get("HOME") or Path.home())
        return (Path(configured).expanduser() if configured else home / ".pi" / "agent") / "sessions",

    def window_hints(self, source: SessionSource, provider: str | None, model: str | None,
                     env: Mapping[str, str] | None) -> WindowHints:
        """The window pi's models.json gives the model (pi has no per-session store)."""
        return WindowHints(agent_window=pi_model_window(provider, model, env))

    def compaction_rule(self, cwd: str | None, env: Mapping[str, str] | None) -> PiCompaction:
        """pi's ``compaction`` settings: the project's settings.json over the global one, else pi's defaults."""
        return pi_compaction_settings(cwd, env)


ADAPTER = Pi()
