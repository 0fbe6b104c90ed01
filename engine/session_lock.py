"""OpenClaw's session write lock, ``<transcript>.lock`` (FORMATS §3.2, SPEC §6.5).

The lock is a file created with ``O_CREAT|O_EXCL`` holding ``{"pid", "createdAt", "starttime"}``, where
``starttime`` is field 22 of ``/proc/<pid>/stat`` (it tells a recycled pid from the original holder). We
write the same payload, pretty-printed like OpenClaw's ``JSON.stringify(payload, null, 2)``.

A lock is stale when it is older than ``stale_after`` (OpenClaw's 30 min), its pid is dead (or a zombie),
or its pid was recycled. A live lock is never broken: :func:`acquire_lock` waits, then raises. A payload
without a usable pid (empty, not JSON — a writer may have died between create and write) is stale only
once the file's mtime is older than a short grace period.

Breaking a stale lock: OpenClaw does ``rm`` then retries ``O_EXCL``, which lets two breakers that both saw
the same stale lock delete each other's fresh lock. We instead ``rename`` the lock to a unique name
beside it (atomic: we now own exactly one file), check that it is the very file we judged stale (same
inode and bytes), and only then unlink it; if it is not, a newer lock was caught, and it is put back with
``link`` (which, unlike ``rename``, never overwrites a lock created meanwhile). Release uses the same
move-verify-unlink step, so we never delete a lock that is no longer ours.

Exceptions::

    LockError            the lock could not be taken (I/O error creating or writing it)
     └── LockHeldError   a live process holds it and the timeout ran out; ``.info`` says who
"""

from __future__ import annotations

import contextlib
import os
import random
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

import orjson

__all__ = [
    "LockError",
    "LockHeldError",
    "LockInfo",
    "SessionLock",
    "acquire_lock",
    "inspect_lock",
    "lock_path_for",
    "process_starttime",
]

DEFAULT_STALE_AFTER = 1800.0
"""Seconds after which any lock is stale (OpenClaw ``DEFAULT_STALE_MS``)."""
MALFORMED_GRACE = 5.0
"""Seconds a lock without a readable payload is still presumed held (its writer may be mid-write)."""
_MAX_PAYLOAD = 64 * 1024


class LockError(Exception):
    """The session lock could not be taken."""


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


@dataclass(frozen=True, slots=True)
class _Observed:
    """The exact lock file that was judged: identity and bytes, for the move-verify step."""

    dev: int
    ino: int
    data: bytes
    mtime: float


def lock_path_for(transcript: Path) -> Path:
    """The lock file OpenClaw uses for ``transcript``: ``<realpath of its dir>/<name>.lock``."""
    transcript = Path(transcript)
    return Path(os.path.realpath(transcript.parent)) / f"{transcript.name}.lock"


def process_starttime(pid: int) -> int | None:
    """Field 22 of ``/proc/<pid>/stat`` (start time in clock ticks), or None off Linux or if unreadable."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    # comm (field 2) is parenthesised and may hold spaces, so count fields after the last ")".
    fields = stat[stat.rfind(b")") + 2 :].split()
    try:
        return int(fields[19])
    except (IndexError, ValueError):
        return None


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # exists, owned by another user: alive (OpenClaw would call it dead; we never break it)
    except OSError:
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return True
    state = stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3]
    return state != b"Z"  # an unreaped zombie holds nothing


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _parse_time(text: str) -> float | None:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def _observe(lock: Path) -> _Observed | None:
    try:
        fd = os.open(lock, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None
    try:
        st = os.fstat(fd)
        data = os.read(fd, _MAX_PAYLOAD)
    finally:
        os.close(fd)
    return _Observed(st.st_dev, st.st_ino, data, st.st_mtime)


def _judge(lock: Path, seen: _Observed, stale_after: float, malformed_grace: float) -> LockInfo:
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

    if pid is None:
        # No owner to check: a writer may sit between O_EXCL and write(), so only the mtime can tell.
        stale = now - seen.mtime > malformed_grace
        reason = "malformed" if stale else "held-malformed"
        return LockInfo(lock, None, created_at, starttime, False, stale, reason, age)

    reasons: list[str] = []
    alive = _pid_alive(pid)
    if not alive:
        reasons.append("dead-pid")
    elif starttime is not None:
        current = process_starttime(pid)
        if current is not None and current != starttime:
            alive = False
            reasons.append("recycled-pid")
    if age > stale_after:
        reasons.append("too-old")
    return LockInfo(lock, pid, created_at, starttime, alive, bool(reasons), ", ".join(reasons) or "held", age)


def inspect_lock(
    transcript: Path,
    *,
    stale_after: float = DEFAULT_STALE_AFTER,
    malformed_grace: float = MALFORMED_GRACE,
) -> LockInfo | None:
    """Read and judge ``<transcript>.lock``; None when there is no lock. Never modifies anything."""
    lock = lock_path_for(transcript)
    seen = _observe(lock)
    return None if seen is None else _judge(lock, seen, stale_after, malformed_grace)


def _remove_if_unchanged(lock: Path, seen: _Observed) -> bool:
    """Remove ``lock`` only if it is still exactly the file ``seen``; True when removed."""
    grave = lock.with_name(f".{lock.name}.gone-{os.getpid()}-{secrets.token_hex(4)}")
    try:
        os.rename(lock, grave)
    except FileNotFoundError:
        return False
    moved = _observe(grave)
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


class SessionLock:
    """A held session write lock; a context manager that releases it on exit."""

    def __init__(self, transcript: Path, path: Path, payload: bytes, dev: int, ino: int) -> None:
        self.transcript = transcript
        self.path = path
        """The ``.lock`` file."""
        self._seen = _Observed(dev, ino, payload, 0.0)
        self.released = False

    @property
    def payload(self) -> bytes:
        """The exact bytes we wrote into the lock file."""
        return self._seen.data

    def release(self) -> bool:
        """Remove the lock if it is still ours; False when it was already gone or replaced.

        Raises:
            LockError: the lock file could not be moved or removed (permissions).
        """
        if self.released:
            return False
        self.released = True
        try:
            return _remove_if_unchanged(self.path, self._seen)
        except OSError as exc:
            raise LockError(f"cannot release {self.path}: {exc.strerror or exc}") from exc

    def __enter__(self) -> SessionLock:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


def _create(lock: Path) -> tuple[bytes, int, int]:
    """Create the lock with O_EXCL and write our payload; raises FileExistsError when taken."""
    fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    try:
        pid = os.getpid()
        payload: dict[str, object] = {"pid": pid, "createdAt": _now_iso()}
        starttime = process_starttime(pid)
        if starttime is not None:
            payload["starttime"] = starttime
        data = orjson.dumps(payload, option=orjson.OPT_INDENT_2)
        if os.write(fd, data) != len(data):
            raise OSError("short write of the lock payload")
        os.fsync(fd)
        st = os.fstat(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(lock)
        raise
    os.close(fd)
    return data, st.st_dev, st.st_ino


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
    while True:
        try:
            data, dev, ino = _create(lock)
        except FileExistsError:
            pass
        except OSError as exc:
            raise LockError(f"cannot create {lock}: {exc.strerror or exc}") from exc
        else:
            return SessionLock(transcript, lock, data, dev, ino)
        try:
            seen = _observe(lock)
        except OSError as exc:
            raise LockError(f"cannot read {lock}: {exc.strerror or exc}") from exc
        if seen is None:
            continue  # released between our O_EXCL and our read
        info = _judge(lock, seen, stale_after, malformed_grace)
        if info.stale:
            try:
                _remove_if_unchanged(lock, seen)
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

