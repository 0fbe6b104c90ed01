"""Append to a file another program owns only where ctxscope finished reading it (docs/agents.md, Writes).

Claude Code and Codex do not take ctxscope's session lock; a compaction for resume is appended only if the file is
still the one that was read (same inode), exactly as long as what was read, and ends on a newline — so the new
records follow the leaf the plan was made from, and a torn write is cut away before anyone reads it.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["append_where_read"]


def append_where_read(fd: int, path: Path, inode: int | None, offset: int, data: bytes) -> int:
    """Write ``data`` (complete lines) to ``fd``, opened with ``O_APPEND``, at ``offset``; the bytes written.

    Raises:
        ValueError: the file was replaced, grew or shrank since it was read, or does not end on a newline
            (nothing written).
        OSError: a short or failed write; a short write is truncated back to ``offset``.
    """
    st = os.fstat(fd)
    if st.st_ino != inode or st.st_size != offset or (offset and os.pread(fd, 1, offset - 1) != b"\n"):
        raise ValueError(f"{path.name} changed while the compaction was prepared; plan again")
    written = os.write(fd, data)
    if written != len(data):
        os.ftruncate(fd, offset)  # never leave a torn line the agent cannot load
        raise OSError(f"short write to {path} ({written} of {len(data)} bytes); nothing kept")
    os.fsync(fd)
    return written
