"""Whether a Claude Code process is running a session, without touching anything (docs/claude-code.md).

A running ``claude`` keeps ``<config>/sessions/<pid>.json`` naming its ``sessionId`` and its process start
(``procStart``: field 22 of ``/proc/<pid>/stat``) and removes it when it ends. The session is being written when
such a file names it and its pid is alive with that start time (a recycled pid is not the writer).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import orjson

from engine.fs.lock_info import pid_alive, process_starttime

__all__ = ["claude_writer", "config_dir"]

_MAX_BYTES = 64 << 10
_MAX_FILES = 512


def config_dir(env: Mapping[str, str], transcript: Path | None = None) -> Path:
    """The Claude Code config dir of a transcript (``<config>/projects/<project>/<file>``), else
    ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    if transcript is not None:
        parents = transcript.parents
        for depth in (1, 2):  # the main transcript, or a sub-agent's under <session>/subagents/
            if len(parents) > depth + 1 and parents[depth].name == "projects":
                return parents[depth + 1]
    base = env.get("CLAUDE_CONFIG_DIR")
    return Path(base).expanduser() if base else Path(env.get("HOME") or Path.home()) / ".claude"


def claude_writer(session_id: str | None, env: Mapping[str, str], transcript: Path | None = None) -> str | None:
    """``"Claude Code pid N (busy)"`` when a live process runs ``session_id``; ``None`` otherwise."""
    if not session_id:
        return None
    directory = config_dir(env, transcript) / "sessions"
    try:
        names = sorted(n for n in os.listdir(directory) if n.endswith(".json"))[:_MAX_FILES]
    except OSError:
        return None
    for name in names:
        try:
            with open(directory / name, "rb") as handle:
                data = orjson.loads(handle.read(_MAX_BYTES))
        except (OSError, orjson.JSONDecodeError):
            continue
        if not isinstance(data, dict) or data.get("sessionId") != session_id:
            continue
        pid = data.get("pid")
        if type(pid) is not int or pid <= 0 or not pid_alive(pid):
            continue
        start = data.get("procStart")
        if isinstance(start, str) and start.isdigit() and process_starttime(pid) not in (None, int(start)):
            continue  # the pid was recycled
        status = data.get("status")
        return f"Claude Code pid {pid}" + (f" ({status})" if isinstance(status, str) and status.isalnum() else "")
    return None
