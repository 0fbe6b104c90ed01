"""What a file found in a sessions directory may be trusted with: is it a regular file, whose store is it, where
would ctxscope write for it (see ``docs/hostile-input.md``).

* Only regular files are ever opened (a FIFO named ``x.jsonl`` or ``sessions.json`` would block every reader),
  and never with a blocking ``open``: :func:`read_regular` opens with ``O_NONBLOCK`` and checks ``fstat``.
* A session belongs to the directory it was found in. A transcript that is a symlink resolving outside that
  directory is read, but read-only: its state dir and writes stay with the store, never the link's target.
* Which directories are OpenClaw's is the OpenClaw folder's to say (:mod:`engine.agents.openclaw.layout`).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from engine.fs.safe_read import read_regular_bytes

__all__ = ["confinement_problem", "file_problem", "read_regular"]


def file_problem(path: Path) -> str | None:
    """Why ``path`` cannot be read as a session file (one line naming it), or ``None`` for a regular file."""
    try:
        st = os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return f"{path}: a symlink loop; skipped"
        if exc.errno == errno.ENOENT and os.path.islink(path):
            return f"{path}: a dangling symlink; skipped"
        return f"{path}: cannot read ({exc.strerror or exc}); skipped"
    if not stat.S_ISREG(st.st_mode):
        kind = "a FIFO" if stat.S_ISFIFO(st.st_mode) else ("a directory" if stat.S_ISDIR(st.st_mode) else
                                                           "not a regular file")
        return f"{path}: {kind}, not a regular file; skipped"
    return None


def read_regular(path: Path, limit: int) -> bytes:
    """Up to ``limit`` bytes of the regular file ``path`` (see :func:`engine.fs.safe_read.read_regular_bytes`)."""
    return read_regular_bytes(path, limit)


def confinement_problem(path: Path, store_dir: Path) -> str | None:
    """Why ``path`` (found in ``store_dir``) must be read-only: it resolves outside that directory."""
    try:
        real = Path(os.path.realpath(path))
        home = Path(os.path.realpath(store_dir))
    except (OSError, ValueError):
        return f"{path} cannot be resolved"
    if real.parent != home and not real.is_relative_to(home):
        return f"{path} is a symlink to {real}, outside its sessions directory; ctxscope only reads it"
    return None
