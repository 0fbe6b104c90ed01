"""Where OpenClaw keeps an agent's sessions: ``<stateDir>/agents/<agentId>/sessions`` for the JSONL transcripts
and ``sessions.json``, ``<stateDir>/agents/<agentId>/agent/openclaw-agent.sqlite`` for the SQLite store
(docs/openclaw.md, docs/formats.md).

Only that exact layout makes a directory OpenClaw's (docs/hostile-input.md): a pi session somewhere below a
directory that happens to be named ``agents`` is not.
"""

from __future__ import annotations

from pathlib import Path

from engine.stores.source import SQLITE_NAME

__all__ = ["agent_database", "openclaw_place"]


def openclaw_place(directory: Path) -> tuple[Path | None, str | None]:
    """``(OpenClaw state dir, agent id)`` of a resolved directory laid out as ``<state>/agents/<id>/sessions``."""
    parts = directory.parts
    if len(parts) >= 4 and parts[-1] == "sessions" and parts[-3] == "agents" and parts[-2] not in ("", ".", ".."):
        return Path(*parts[:-3]), parts[-2]
    return None, None


def agent_database(state_dir: Path, agent_id: str) -> Path:
    """The SQLite store of one OpenClaw agent (OpenClaw 2026.8 and later keep its sessions there)."""
    return state_dir / "agents" / agent_id / "agent" / SQLITE_NAME
