"""Atomic file writes: temp file in the same directory, fsync, rename, fsync the directory.

Every whole-file write the engine makes goes through :func:`write_atomic` (docs/architecture.md, Rules), so a reader
never sees a half-written file and a crash leaves either the old file or the new one.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

__all__ = ["fsync_dir", "write_atomic"]


def fsync_dir(directory: Path) -> None:
    """Flush a directory entry so a rename survives a power loss (no-op where unsupported)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes, *, mode: int = 0o600, sync_dir: bool = True) -> None:
    """Replace ``path`` with ``data`` atomically.

    Args:
        sync_dir: fsync the directory after the rename. A caller renaming several files into one directory
            passes ``False`` and calls :func:`fsync_dir` once after the last rename.

    Raises:
        OSError: the write failed (disk full, permissions); no partial file is left behind.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    os.close(fd)
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if sync_dir:
        fsync_dir(path.parent)
