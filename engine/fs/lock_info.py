"""Judging OpenClaw's session write lock, ``<transcript>.lock``, without touching it (docs/formats.md, The write lock).

The lock file holds ``{"pid", "createdAt", "starttime"}`` (``starttime``: field 22 of ``/proc/<pid>/stat``, which
tells a recycled pid from the holder). A lock is stale when older than ``stale_after`` (30 min), its pid is dead
or a zombie, or its pid was recycled. A payload without a usable pid (empty, not JSON: an OpenClaw writer
between ``open`` and ``write``) is stale only once its mtime is older than a short grace period. A ``.lock``
path that is a symlink or a directory is nobody's lock: it is reported, never taken or removed.
A ctxscope holder may add ``"ctxscopeAppend": {"offset", "length"}`` (see :mod:`engine.fs.session_lock`).

Exceptions::

    LockError                the lock could not be taken (I/O error creating or writing it)
     ├── ForeignLockError    the ``.lock`` path is a symlink, a directory or not a regular file
     └── LockHeldError       a live process holds it and the timeout ran out; ``.info`` says who
"""

from __future__ import annotations

import errno
import os
import stat
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import orjson

__all__ = [
    "DEFAULT_STALE_AFTER",
    "INTENT_KEY",
    "MALFORMED_GRACE",
    "ForeignLockError",
    "LockError",
    "LockHeldError",
    "LockInfo",
    "Observed",
    "inspect_lock",
    "judge",
    "lock_path_for",
    "now_iso",
    "observe",
    "pid_alive",
    "process_starttime",
]

DEFAULT_STALE_AFTER = 1800.0
"""Seconds after which any lock is stale (OpenClaw ``DEFAULT_STALE_MS``)."""
MALFORMED_GRACE = 5.0
"""Seconds a lock without a readable payload is still presumed held (its writer may be mid-write)."""
INTENT_KEY = "ctxscopeAppend"
"""Extra payload key (OpenClaw ignores unknown keys) naming the append a ctxscope holder is doing."""
_MAX_PAYLOAD = 64 * 1024


class LockError(Exception):
    """The session lock could not be taken."""


class ForeignLockError(LockError, OSError):
    """The ``.lock`` path is a symlink, a directory or another non-regular file: not a lock anyone holds."""

    def __init__(self, lock: Path, what: str) -> None:
        self.lock = lock
        super().__init__(f"{lock} is {what}, not a lock file; ctxscope will neither take nor remove it "
                         "(remove it yourself if no agent uses it)")


class LockHeldError(LockError):
    """A live process holds the session lock and the wait timed out."""

    def __init__(self, info: LockInfo, timeout: float, stale_after: float = 1800.0) -> None:
        self.info = info
        self.timeout = timeout
        holder = f"pid {info.pid}" if info.pid is not None else "a process that has not written its pid yet"
        since = f" since {info.created_at}" if info.created_at else ""
        super().__init__(
            f"{info.path} is held by {holder}{since}; waited {timeout:g} s. "
            "An agent is probably writing this session: retry when its run has finished, or stop that "
            "process. ctxscope never breaks a live lock; it becomes stale when that process exits or "
            f"{stale_after / 60:g} minutes after it was taken."
        )


@dataclass(frozen=True, slots=True)
class LockInfo:
    """What a lock file says about its holder, judged now."""

    path: Path
    pid: int | None
    created_at: str | None
    """``createdAt`` as written (ISO-8601), or None when missing or unreadable."""
    starttime: int | None
    """The holder's ``/proc/<pid>/stat`` start time in clock ticks, when recorded."""
    alive: bool
    """True when the process that took the lock is still running (False for a recycled pid)."""
    stale: bool
    reason: str
    """``held``, ``held-malformed`` or the stale reasons, comma-separated: ``dead-pid``,
    ``recycled-pid``, ``too-old``, ``malformed``."""
    age_seconds: float | None = None
    """Seconds since ``createdAt`` (since the file's mtime when ``createdAt`` is unreadable)."""
    append_intent: tuple[int, int] | None = None
    """``(offset, length)`` in bytes of the transcript append a ctxscope holder had started, if any."""
    problem: str | None = None
    """Set when the ``.lock`` path is not a lock file (a directory, a symlink) or cannot be read: nobody can
    take the lock, so the session is read-only until it is removed."""


@dataclass(frozen=True, slots=True)
class Observed:
    """The exact lock file that was judged: identity and bytes, for the move-verify step."""

    dev: int
    ino: int
    data: bytes
    mtime: float


def lock_path_for(transcript: Path) -> Path:
    """The lock file OpenClaw uses for ``transcript``: ``<realpath of its dir>/<name>.lock``."""
    transcript = Path(transcript)
    return Path(os.path.realpath(transcript.parent)) / f"{transcript.name}.lock"


def _proc_stat(pid: int) -> list[bytes] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    # comm (field 2) is parenthesised and may hold spaces: fields 3.. follow the last ")".
    return stat[stat.rfind(b")") + 2 :].split()


def process_starttime(pid: int) -> int | None:
    """Field 22 of ``/proc/<pid>/stat`` (start time in clock ticks), or None off Linux or if unreadable."""
    fields = _proc_stat(pid)
    try:
        return int(fields[19]) if fields else None
    except (IndexError, ValueError):
        return None


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except PermissionError:
        pass  # exists under another user: alive (OpenClaw would call it dead; we never break it)
    except (OSError, OverflowError):
        return False
    fields = _proc_stat(pid)
    return not (fields and fields[0] == b"Z")  # an unreaped zombie holds nothing


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _parse_time(text: str) -> float | None:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def observe(lock: Path) -> Observed | None:
    """The lock file's identity and bytes, or ``None`` when there is none.

    Raises:
        ForeignLockError: ``lock`` is a symlink, a directory or another non-regular file.
        OSError: it cannot be read.
    """
    try:
        fd = os.open(lock, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ForeignLockError(lock, "a symlink") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ForeignLockError(lock, "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file")
        data = os.read(fd, _MAX_PAYLOAD)
    finally:
        os.close(fd)
    return Observed(st.st_dev, st.st_ino, data, st.st_mtime)


def judge(lock: Path, seen: Observed, stale_after: float, malformed_grace: float) -> LockInfo:
    now = time.time()
    try:
        payload = orjson.loads(seen.data)
    except orjson.JSONDecodeError:
        payload = None
    if not isinstance(payload, dict):
        payload = {}
    pid = payload.get("pid")
    pid = pid if isinstance(pid, int) and not isinstance(pid, bool) and pid > 0 else None
    created_at = payload.get("createdAt") if isinstance(payload.get("createdAt"), str) else None
    starttime = payload.get("starttime")
    starttime = starttime if isinstance(starttime, int) and not isinstance(starttime, bool) else None
    created = _parse_time(created_at) if created_at is not None else None
    age = max(0.0, now - (created if created is not None else seen.mtime))
    intent = _intent(payload.get(INTENT_KEY))

    if pid is None:
        # No owner to check: a writer may sit between O_EXCL and write(), so only the mtime can tell.
        stale = now - seen.mtime > malformed_grace
        reason = "malformed" if stale else "held-malformed"
        return LockInfo(lock, None, created_at, starttime, False, stale, reason, age, intent)

    reasons: list[str] = []
    alive = pid_alive(pid)
    if not alive:
        reasons.append("dead-pid")
    elif starttime is not None:
        current = process_starttime(pid)
        if current is not None and current != starttime:
            alive = False
            reasons.append("recycled-pid")
    if age > stale_after:
        reasons.append("too-old")
    reason = ", ".join(reasons) or "held"
    return LockInfo(lock, pid, created_at, starttime, alive, bool(reasons), reason, age, intent)


def _intent(value: object) -> tuple[int, int] | None:
    if not isinstance(value, dict):
        return None
    offset, length = value.get("offset"), value.get("length")
    if isinstance(offset, int) and isinstance(length, int) and offset >= 0 and length > 0:
        return offset, length
    return None


def inspect_lock(
    transcript: Path,
    *,
    stale_after: float = DEFAULT_STALE_AFTER,
    malformed_grace: float = MALFORMED_GRACE,
) -> LockInfo | None:
    """Read and judge ``<transcript>.lock``; None when there is no lock. Never modifies anything."""
    lock = lock_path_for(transcript)
    try:
        seen = observe(lock)
    except ForeignLockError as exc:
        return LockInfo(lock, None, None, None, False, False, "not-a-lock-file", None, None, str(exc))
    except OSError as exc:
        return LockInfo(lock, None, None, None, False, False, "unreadable", None, None,
                        f"{lock}: cannot read ({exc.strerror or exc}); ctxscope will not write this session")
    return None if seen is None else judge(lock, seen, stale_after, malformed_grace)
