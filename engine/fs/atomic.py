"""Atomic file writes: temp file in the same directory, fsync, rename, fsync the directory.

Every whole-file write the engine makes goes through :func:`write_atomic`, so a reader never sees a
half-written file and a crash leaves either the old file or the new one. The directory is reached from a
trusted root without following symlinks (:mod:`engine.fs.safe_path`), the temp file is created exclusively,
and the rename replaces whatever name was there without following it.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from engine.fs.safe_path import open_dir

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
    path: Path, data: bytes, *, mode: int = 0o600, sync_dir: bool = True, root: Path | None = None,
    durable: bool = True,
) -> None:
    """Replace ``path`` with ``data`` atomically.

    Args:
        sync_dir: fsync the directory after the rename. A caller renaming several files into one directory
            passes ``False`` and calls :func:`fsync_dir` once after the last rename.
        root: where ctxscope's own tree starts (a state dir): no directory between it and ``path`` may be a
            symlink. Default: ``path``'s directory itself.
        durable: fsync the data before the rename (and the directory after it). Derived data that carries its
            own checksum (the index cache) passes ``False``: the rename is still atomic for every reader and
            against a killed process; only a power loss could leave an empty or torn file, which the checksum
            rejects.

    Raises:
        engine.fs.safe_path.UnsafePathError: a directory on the way is a symlink or not a directory.
        OSError: the write failed (disk full, permissions); no partial file is left behind.
    """
    path = Path(path)
    dir_fd = open_dir(root if root is not None else path.parent, path.parent)
    try:
        tmp = f".{path.name}.{os.getpid()}.tmp"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp, dir_fd=dir_fd)  # ours from a killed run with a recycled pid, or planted: never followed
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=dir_fd)
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
                os.unlink(tmp, dir_fd=dir_fd)
            raise
        os.close(fd)
        try:
            os.replace(tmp, path.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dir_fd)
            raise
        if sync_dir and durable:
            with contextlib.suppress(OSError):
                os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
