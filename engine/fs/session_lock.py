"""OpenClaw's session write lock, ``<transcript>.lock`` (docs/formats.md, The write lock).

The lock file exists exclusively (OpenClaw: ``open(path, "wx")``) and holds ``{"pid", "createdAt",
"starttime"}`` (``starttime``: field 22 of ``/proc/<pid>/stat``, which tells a recycled pid from the
holder), pretty-printed like OpenClaw's ``JSON.stringify(payload, null, 2)`` and fsynced. We write the
payload to a unique temp file and hard-link it to the lock name: ``link`` fails with EEXIST exactly like
``O_CREAT|O_EXCL``, but the lock never exists empty. (With ``O_EXCL`` + ``write``, a kill in between leaves
an empty lock that OpenClaw reclaims only after 30 min; in our SIGKILL trials one leftover lock in six was
empty.) Filesystems without hard links fall back to ``O_EXCL`` + ``write``.

A lock is stale when older than ``stale_after`` (30 min), its pid is dead or a zombie, or its pid was
recycled. A live lock is never broken: :func:`acquire_lock` waits, then raises. A payload without a usable
pid (empty, not JSON: an OpenClaw writer between ``open`` and ``write``) is stale only once its mtime is
older than a short grace period.

Breaking a stale lock: OpenClaw's ``rm``-then-retry lets two breakers that saw the same stale lock delete
each other's fresh one. We ``rename`` it to a unique name (atomic: we now own exactly one file), check it is
the very file we judged (inode and bytes), and only then unlink it; a newer lock caught by mistake is put
back with ``link``, which never overwrites a lock created meanwhile. Release checks inode and bytes, then
unlinks (only a holder past ``stale_after`` could lose its lock in between; appends hold it for ms). Temp
and renamed files left by killed processes (``.<name>.lock.<pid>-<hex>.tmp|gone``) are swept whenever a
stale lock is broken.

Before appending, a ctxscope holder adds ``"ctxscopeAppend": {"offset", "length"}`` to its payload
(:meth:`SessionLock.note_append`; OpenClaw reads only the three keys above). Linux checks for fatal signals
between the pages of a ``write()``, so a SIGKILL can leave part of a batch; whoever breaks that lock learns
exactly which torn bytes it may trim (:attr:`SessionLock.replaced`).

Judging a lock (stale or held, and by whom) lives in :mod:`engine.fs.lock_info`; its names are re-exported here.

Exceptions::

    LockError                the lock could not be taken (I/O error creating or writing it)
     ├── ForeignLockError    the ``.lock`` path is a symlink, a directory or not a regular file
     └── LockHeldError       a live process holds it and the timeout ran out; ``.info`` says who
"""

from __future__ import annotations

import contextlib
import errno
import os
import random
import re
import secrets
import time
from pathlib import Path
from types import TracebackType

import orjson

from engine.fs.lock_info import (
    DEFAULT_STALE_AFTER,
    INTENT_KEY,
    MALFORMED_GRACE,
    ForeignLockError,
    LockError,
    LockHeldError,
    LockInfo,
    Observed,
    inspect_lock,
    judge,
    lock_path_for,
    now_iso,
    observe,
    pid_alive,
    process_starttime,
)

__all__ = [
    "DEFAULT_STALE_AFTER",
    "INTENT_KEY",
    "MALFORMED_GRACE",
    "ForeignLockError",
    "LockError",
    "LockHeldError",
    "LockInfo",
    "SessionLock",
    "acquire_lock",
    "inspect_lock",
    "lock_path_for",
    "process_starttime",
]

_NO_HARD_LINKS = frozenset({errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK, errno.ENOSYS})


def _side_name(lock: Path, suffix: str) -> Path:
    return lock.with_name(f".{lock.name}.{os.getpid()}-{secrets.token_hex(4)}.{suffix}")


def _remove_if_unchanged(lock: Path, seen: Observed) -> bool:
    """Remove ``lock`` only if it is still exactly the file ``seen``; True when removed."""
    grave = _side_name(lock, "gone")
    try:
        os.rename(lock, grave)
    except FileNotFoundError:
        return False
    moved = observe(grave)
    if moved is not None and (moved.dev, moved.ino, moved.data) == (seen.dev, seen.ino, seen.data):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(grave)
        return True
    # We caught someone else's newer lock: put it back unless a third lock appeared meanwhile.
    with contextlib.suppress(FileExistsError, FileNotFoundError):
        os.link(grave, lock)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(grave)
    return False


def _sweep_strays(lock: Path) -> None:
    """Delete temp and renamed lock files that processes now dead left beside ``lock``."""
    pattern = re.compile(re.escape(f".{lock.name}.") + r"(\d+)-[0-9a-f]{8}\.(?:tmp|gone)")
    with contextlib.suppress(OSError), os.scandir(lock.parent) as entries:
        for entry in entries:
            match = pattern.fullmatch(entry.name)
            if match and not pid_alive(int(match.group(1))):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


class SessionLock:
    """A held session write lock; a context manager that releases it on exit."""

    def __init__(
        self,
        transcript: Path,
        path: Path,
        fields: dict[str, object],
        seen: Observed,
        replaced: LockInfo | None,
    ) -> None:
        self.transcript = transcript
        self.path = path
        """The ``.lock`` file."""
        self.replaced = replaced
        """The stale lock this acquisition broke, preferring one with an ``append_intent`` (a torn append)."""
        self.released = False
        self._fields = fields
        self._seen = seen

    @property
    def payload(self) -> bytes:
        """The exact bytes currently in our lock file."""
        return self._seen.data

    def _still_ours(self) -> bool:
        current = observe(self.path)
        return current is not None and (current.dev, current.ino, current.data) == (
            self._seen.dev, self._seen.ino, self._seen.data
        )

    def note_append(self, offset: int, length: int) -> None:
        """Record in the lock that we are about to append ``length`` bytes at ``offset`` (see module doc).

        Raises:
            LockError: the lock file is gone or no longer ours (so nothing may be written).
        """
        data = orjson.dumps(
            {**self._fields, INTENT_KEY: {"offset": offset, "length": length}}, option=orjson.OPT_INDENT_2
        )
        try:
            if not self._still_ours():
                raise LockError(f"{self.path} is no longer ours (removed or replaced while held)")
            fd = os.open(self.path, os.O_WRONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
            try:
                # A reader may catch a mix for an instant; it judges that malformed and fresh, i.e. held.
                os.pwrite(fd, data, 0)
                os.ftruncate(fd, len(data))
            finally:
                os.close(fd)
        except OSError as exc:
            raise LockError(f"cannot update {self.path}: {exc.strerror or exc}") from exc
        self._seen = Observed(self._seen.dev, self._seen.ino, data, 0.0)

    def release(self) -> bool:
        """Remove the lock if it is still ours; False when it was already gone or replaced.

        Raises:
            LockError: the lock file could not be removed (permissions).
        """
        if self.released:
            return False
        self.released = True
        try:
            if not self._still_ours():
                return False
            os.unlink(self.path)
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise LockError(f"cannot release {self.path}: {exc.strerror or exc}") from exc
        return True

    def __enter__(self) -> SessionLock:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


def _payload() -> tuple[dict[str, object], bytes]:
    pid = os.getpid()
    fields: dict[str, object] = {"pid": pid, "createdAt": now_iso()}
    starttime = process_starttime(pid)
    if starttime is not None:
        fields["starttime"] = starttime
    return fields, orjson.dumps(fields, option=orjson.OPT_INDENT_2)


def _write_new(path: Path, data: bytes) -> int:
    """Create ``path`` exclusively and write ``data``; returns the open descriptor."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    try:
        if os.write(fd, data) != len(data):
            raise OSError(errno.EIO, "short write of the lock payload")
    except BaseException:
        os.close(fd)
        _unlink_quietly(path)
        raise
    return fd


def _unlink_quietly(path: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def _create(lock: Path) -> tuple[dict[str, object], Observed]:
    """Make the lock exist with our payload in it; raises FileExistsError when it is taken."""
    fields, data = _payload()
    tmp = _side_name(lock, "tmp")
    fd = _write_new(tmp, data)
    try:
        os.link(tmp, lock)
    except OSError as exc:
        os.close(fd)
        _unlink_quietly(tmp)
        if exc.errno not in _NO_HARD_LINKS:
            raise
        fd = _write_new(lock, data)
    else:
        _unlink_quietly(tmp)
    try:
        # fsync after linking keeps short the window in which a kill strands the temp file.
        os.fsync(fd)
        st = os.fstat(fd)
    except BaseException:
        _unlink_quietly(lock)
        raise
    finally:
        os.close(fd)
    return fields, Observed(st.st_dev, st.st_ino, data, st.st_mtime)


def acquire_lock(
    transcript: Path,
    *,
    timeout: float = 10.0,
    stale_after: float = DEFAULT_STALE_AFTER,
    malformed_grace: float = MALFORMED_GRACE,
) -> SessionLock:
    """Take ``<transcript>.lock``, breaking it only if stale, waiting up to ``timeout`` seconds.

    Raises:
        LockHeldError: a live holder kept it for the whole timeout (the lock file is left untouched).
        LockError: the lock file could not be created or written.
    """
    transcript = Path(transcript)
    lock = lock_path_for(transcript)
    deadline = time.monotonic() + timeout
    attempt = 0
    replaced: LockInfo | None = None
    while True:
        try:
            fields, mine = _create(lock)
        except FileExistsError:
            pass
        except OSError as exc:
            raise LockError(f"cannot create {lock}: {exc.strerror or exc}") from exc
        else:
            return SessionLock(transcript, lock, fields, mine, replaced)
        try:
            seen = observe(lock)
        except ForeignLockError:
            raise
        except OSError as exc:
            raise LockError(f"cannot read {lock}: {exc.strerror or exc}") from exc
        if seen is None:
            continue  # released between our attempt and our read
        info = judge(lock, seen, stale_after, malformed_grace)
        if info.stale:
            try:
                if _remove_if_unchanged(lock, seen):
                    _sweep_strays(lock)
                    if replaced is None or info.append_intent:
                        replaced = info
            except OSError as exc:
                raise LockError(f"cannot remove stale {lock} ({info.reason}): {exc.strerror}") from exc
            continue
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise LockHeldError(info, timeout, stale_after)
        attempt += 1
        # Appends hold the lock for milliseconds, so poll fast at first; jitter breaks lock-step retries.
        delay = min(0.25, 0.002 * 1.5**attempt) * random.uniform(0.5, 1.5)
        time.sleep(min(delay, remaining))
