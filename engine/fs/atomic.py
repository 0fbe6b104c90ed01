"""Atomic file writes: temp file in the same directory, fsync, rename, fsync the directory.

Every whole-file write the engine makes goes through :func:`write_atomic` (SPEC §1.3), so a reader
never sees a half-written file and a crash leaves either the old file or the new one.
"""

from __future__ import annotations

import contextlib
import os
import threading
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


def write_atomic(
    path: Path, data: bytes, *, mode: int = 0o600, sync_dir: bool = True, durable: bool = True
) -> None:
    """Replace ``path`` with ``data`` atomically.

    Args:
        sync_dir: fsync the directory after the rename. A caller renaming several files into one directory
            passes ``False`` and calls :func:`fsync_dir` once after the last rename.
        durable: fsync the data before the rename (and the directory after it). Derived data that carries its
            own checksum (the index cache) passes ``False``: the rename is still atomic for every reader and
            against a killed process; only a power loss could leave an empty or torn file, which the checksum
            rejects.

    Raises:
        OSError: the write failed (disk full, permissions); no partial file is left behind.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    # pid and thread: two writers of the same file (processes, or workers of one app) never share a temp file.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        if durable:
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
    if sync_dir and durable:
        fsync_dir(path.parent)
