"""Opening what ctxscope writes without following symlinks: every directory below a trusted root, and the leaf.

A *root* is where ctxscope's own tree starts (a state dir, a validated workspace). It may itself be reached
through symlinks (a user's ``~/.openclaw`` on another disk); everything below it that ctxscope creates or
appends to — ``context/``, ``checkpoints/<key>/``, ``memory/``, the files themselves — is opened one component
at a time relative to its parent's descriptor with ``O_NOFOLLOW`` (``openat``-style), so a symlink planted
anywhere on that path is refused instead of followed, and no rename of a parent can redirect the write
half-way. A leaf must be a regular file with one link (a hard link to ``~/.bashrc`` is refused as well), and
is opened with ``O_NONBLOCK`` first so a FIFO planted in its place can never block us (see ``docs/hostile-input.md``).

Exceptions::

    OSError
     └── UnsafePathError   a component is a symlink, not a directory, not a regular file, or outside the root
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

__all__ = ["UnsafePathError", "append_once", "open_dir", "open_leaf", "relative_parts"]

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)


class UnsafePathError(OSError):
    """A path ctxscope was about to write through is not what it must be; nothing was written."""


def relative_parts(root: Path, path: Path) -> tuple[str, ...]:
    """The components of ``path`` below ``root``.

    Raises:
        UnsafePathError: ``path`` is not below ``root`` or holds a ``..`` component.
    """
    try:
        parts = Path(os.path.normpath(path)).relative_to(os.path.normpath(root)).parts
    except ValueError:
        raise UnsafePathError(errno.EPERM, f"{path} is outside {root}; ctxscope writes only below it") from None
    if any(part in ("..", "") for part in parts) or ".." in Path(path).parts:
        raise UnsafePathError(errno.EPERM, f"{path} has a '..' component; ctxscope does not write through it")
    return parts


def _refusal(path: Path, what: str) -> UnsafePathError:
    return UnsafePathError(errno.ELOOP, f"{path} {what}; ctxscope does not write through it")


def open_dir(root: Path, directory: Path, *, create: bool = True, mode: int = 0o700) -> int:
    """A descriptor of ``directory``, walked from ``root`` one component at a time without following symlinks.

    ``root`` is created (with its parents) when missing and ``create`` is set; so are the components below it.

    Raises:
        UnsafePathError: a component is a symlink or not a directory, or ``directory`` is not below ``root``.
        OSError: a directory could not be opened or created (permissions, missing with ``create`` unset).
    """
    parts = relative_parts(root, directory)
    if create:
        os.makedirs(root, mode=mode, exist_ok=True)
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    here = Path(root)
    try:
        for part in parts:
            here = here / part
            try:
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, mode, dir_fd=fd)
                child = _reopen_dir(part, fd, here)
            except OSError as exc:
                raise _dir_problem(exc, here, fd, part) from None
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _reopen_dir(part: str, parent: int, here: Path) -> int:
    try:
        return os.open(part, _DIR_FLAGS, dir_fd=parent)
    except OSError as exc:
        raise _dir_problem(exc, here, parent, part) from None


def _dir_problem(exc: OSError, here: Path, parent: int, part: str) -> OSError:
    if exc.errno in (errno.ELOOP, errno.ENOTDIR):
        # O_NOFOLLOW | O_DIRECTORY on a symlink fails with ENOTDIR on Linux: look before naming the problem.
        try:
            link = stat.S_ISLNK(os.lstat(part, dir_fd=parent).st_mode)
        except OSError:
            link = exc.errno == errno.ELOOP
        return _refusal(here, "is a symlink" if link else "is not a directory")
    return exc


def open_leaf(dir_fd: int, name: str, flags: int, path: Path, *, mode: int = 0o600) -> int:
    """Open ``name`` in ``dir_fd`` with ``flags`` — never through a symlink, only a regular file with one link.

    Raises:
        UnsafePathError: ``name`` is a symlink, a FIFO, a directory or another non-regular file, or has other
            hard links.
        OSError: it could not be opened (permissions, missing without ``O_CREAT``).
    """
    if "/" in name or name in ("", ".", ".."):
        raise UnsafePathError(errno.EINVAL, f"{path}: {name!r} is not a file name")
    try:
        fd = os.open(name, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, mode, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _refusal(path, "is a symlink") from None
        if exc.errno in (errno.ENXIO, errno.EISDIR):
            raise _refusal(path, "is not a regular file") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _refusal(path, "is not a regular file")
        if st.st_nlink > 1:
            raise _refusal(path, f"has {st.st_nlink} hard links (it may be another file's alias)")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


@contextlib.contextmanager
def _closing(fd: int) -> Iterator[int]:
    try:
        yield fd
    finally:
        os.close(fd)


def append_once(root: Path, path: Path, data: bytes, *, separate: bool = False) -> tuple[int, int]:
    """Append ``data`` to ``path`` (below ``root``) with one ``write()`` on an ``O_APPEND`` descriptor, then fsync.

    ``separate`` prefixes a newline when the file is not empty (so ``data`` starts a line after any torn tail).
    Returns ``(offset, bytes written)``; a short write is truncated away when nothing was appended after it.

    Raises:
        UnsafePathError: see :func:`open_dir` and :func:`open_leaf`.
        OSError: the write failed or was short.
    """
    with _closing(open_dir(root, path.parent)) as dir_fd:
        created = False
        try:
            fd = open_leaf(dir_fd, path.name, os.O_WRONLY | os.O_APPEND, path)
        except FileNotFoundError:
            fd = open_leaf(dir_fd, path.name, os.O_WRONLY | os.O_APPEND | os.O_CREAT, path)
            created = True
        with _closing(fd):
            payload = (b"\n" if separate and os.fstat(fd).st_size else b"") + data
            written = os.write(fd, payload)
            end = os.lseek(fd, 0, os.SEEK_CUR)
            offset = end - written
            if written != len(payload):
                if os.fstat(fd).st_size == end:
                    os.ftruncate(fd, offset)
                os.fsync(fd)
                raise OSError(errno.ENOSPC, f"short write to {path} ({written} of {len(payload)} bytes; disk full?)")
            os.fsync(fd)
        if created:
            with contextlib.suppress(OSError):
                os.fsync(dir_fd)
    return offset, written
