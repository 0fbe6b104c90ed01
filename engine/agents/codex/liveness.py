"""Whether a Codex process is writing a rollout, without touching anything (docs/codex.md).

A running ``codex`` holds an exclusive ``flock`` on ``<CODEX_HOME>/thread-writer-locks/<thread id>.lock``. The
kernel lists held locks in ``/proc/locks`` by device and inode; reading that list takes no lock and writes
nothing (Linux; elsewhere the answer is "unknown", ``None``).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["codex_writer"]


def codex_writer(session_id: str | None, home: Path) -> str | None:
    """``"Codex pid N"`` when a process holds the thread's writer lock; ``None`` otherwise or when unknowable."""
    if not session_id or "/" in session_id or session_id.startswith("."):
        return None
    try:
        st = os.stat(home / "thread-writer-locks" / f"{session_id}.lock")
        with open("/proc/locks", encoding="ascii", errors="replace") as handle:
            table = handle.read(1 << 20)
    except OSError:
        return None
    wanted = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    for line in table.splitlines():
        fields = line.split()
        # "36: FLOCK  ADVISORY  WRITE 16395 fe:00:2171004 0 EOF" (a blocked waiter's line has "->" after the id)
        if "->" in fields or len(fields) < 6 or fields[1] != "FLOCK":
            continue
        if fields[5] == wanted and fields[4].isdigit():
            return f"Codex pid {fields[4]}"
    return None
