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

Exceptions::

    LockError            the lock could not be taken (I/O error creating or writing it)
     └── LockHeldError   a live process holds it and the timeout ran out; ``.info`` says who
"""

from __future__ import annotations

import contextlib
import errno
import os
import random
import re
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

import orjson

__all__ = [
    "DEFAULT_STALE_AFTER",
    "INTENT_KEY",
    "MALFORMED_GRACE",
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
INTENT_KEY = "ctxscopeAppend"
"""Extra payload key (OpenClaw ignores unknown keys) naming the append a ctxscope holder is doing."""
_MAX_PAYLOAD = 64 * 1024
_NO_HARD_LINKS = frozenset({errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK, errno.ENOSYS})


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
    append_intent: tuple[int, int] | None = None
    """``(offset, length)`` in bytes of the transcript append a ctxscope holder had started, if any."""


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


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except PermissionError:
        pass  # exists under another user: alive (OpenClaw would call it dead; we never break it)
    except (OSError, OverflowError):
        return False
    fields = _proc_stat(pid)
    return not (fields and fields[0] == b"Z")  # an unreaped zombie holds nothing


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
    intent = _intent(payload.get(INTENT_KEY))

    if pid is None:
        # No owner to check: a writer may sit between O_EXCL and write(), so only the mtime can tell.
        stale = now - seen.mtime > malformed_grace
        reason = "malformed" if stale else "held-malformed"
        return LockInfo(lock, None, created_at, starttime, False, stale, reason, age, intent)

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
    seen = _observe(lock)
    return None if seen is None else _judge(lock, seen, stale_after, malformed_grace)


def _side_name(lock: Path, suffix: str) -> Path:
    return lock.with_name(f".{lock.name}.{os.getpid()}-{secrets.token_hex(4)}.{suffix}")


def _remove_if_unchanged(lock: Path, seen: _Observed) -> bool:
    """Remove ``lock`` only if it is still exactly the file ``seen``; True when removed."""
    grave = _side_name(lock, "gone")
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


def _sweep_strays(lock: Path) -> None:
    """Delete temp and renamed lock files that processes now dead left beside ``lock``."""
    pattern = re.compile(re.escape(f".{lock.name}.") + r"(\d+)-[0-9a-f]{8}\.(?:tmp|gone)")
    with contextlib.suppress(OSError), os.scandir(lock.parent) as entries:
        for entry in entries:
            match = pattern.fullmatch(entry.name)
            if match and not _pid_alive(int(match.group(1))):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


class SessionLock:
    """A held session write lock; a context manager that releases it on exit."""

    def __init__(
        self,
        transcript: Path,
        path: Path,
        fields: dict[str, object],
        seen: _Observed,
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
        current = _observe(self.path)
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
        self._seen = _Observed(self._seen.dev, self._seen.ino, data, 0.0)

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
    fields: dict[str, object] = {"pid": pid, "createdAt": _now_iso()}
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


def _create(lock: Path) -> tuple[dict[str, object], _Observed]:
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
    return fields, _Observed(st.st_dev, st.st_ino, data, st.st_mtime)


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
            seen = _observe(lock)
        except OSError as exc:
            raise LockError(f"cannot read {lock}: {exc.strerror or exc}") from exc
        if seen is None:
            continue  # released between our attempt and our read
        info = _judge(lock, seen, stale_after, malformed_grace)
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
