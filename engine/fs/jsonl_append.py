"""Appending whole entries to a live pi/OpenClaw JSONL transcript.

See docs/formats.md (Writing rules) and docs/compaction.md (Locks and appends).

Under ``<transcript>.lock`` we re-read the leaf (the last entry in file order), let the caller build the
entries for that leaf, chain them (first ``parentId`` = leaf, then each to the previous one), and write
all their lines with ONE ``write()`` on an ``O_APPEND`` descriptor, then ``fsync``.

Why one write: on a local filesystem (ext4, xfs, btrfs, tmpfs) a ``write()`` to a regular file holds the
inode lock for the whole call and ``O_APPEND`` positions it at the end inside that lock, so a batch of a
few MB lands contiguously even next to a writer that ignores our lock (pi itself never takes OpenClaw's
lock). NFS and other network filesystems give no such guarantee. A second ``write()`` to finish a short
one would be a separate append that another writer could precede, so a short write (disk full, file size
limit) is never completed: our torn tail is truncated away when nothing follows it, else reported.

The one gap: Linux checks for a fatal signal between the pages of a buffered write, so SIGKILL inside a
batch that spans a page boundary can leave a prefix of it. Before writing we record the batch's offset
and length in our lock (:meth:`~engine.fs.session_lock.SessionLock.note_append`); whoever breaks that stale
lock with :func:`append_entries` trims the torn line, and only it, before appending.

Ids: pi checks new 8-hex ids against every id in the file. We do the same with a byte scan for
``"id":"…"`` (about 1 GB/s; it over-approximates by also catching nested ids, which only avoids more).
The bulk of the scan runs before taking the lock; under the lock only the bytes appended since are scanned,
so an agent waiting on the lock is not held up by our reading of a large file.

Exceptions::

    AppendError              the append failed (I/O error, short write)
     └── AppendRefusedError  the file is not one we may append to; nothing was written
    engine.fs.session_lock.LockError / LockHeldError propagate unchanged.
"""

from __future__ import annotations

import os
import re
import secrets
import stat
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from engine.fs.session_lock import DEFAULT_STALE_AFTER, SessionLock, acquire_lock
from engine.fs.tail import last_entry

__all__ = [
    "MAX_APPEND_BYTES",
    "AppendError",
    "AppendRefusedError",
    "AppendResult",
    "append_entries",
    "new_entry_id",
]

MAX_APPEND_BYTES = 16 << 20
"""Largest batch written in one call; far below Linux's 2 GiB per-write cap, and plenty for a summary."""
_HEADER_MAX = 64 * 1024
_ID_PATTERN = re.compile(rb'"id":"([^"\\]{1,120})"')
_SCAN_BLOCK = 8 << 20
_SCAN_OVERLAP = 128
"""Longer than any ``"id":"…"`` match the pattern allows, so no match is lost at a block edge."""
_BOM = b"\xef\xbb\xbf"


class AppendError(Exception):
    """Appending to a transcript failed."""


class AppendRefusedError(AppendError):
    """The transcript may not be appended to (wrong format or mid-write); nothing was written."""


@dataclass(frozen=True, slots=True)
class AppendResult:
    """What :func:`append_entries` wrote."""

    entry_ids: tuple[str, ...]
    parent_id: str | None
    """The leaf the first new entry was chained to (None when the file held only its header)."""
    bytes_written: int
    offset: int
    """Byte offset in the transcript where the first appended line starts."""
    agent_active_warning: str | None
    """Set when the file changed within ``recent_write_seconds`` or another writer slipped in."""
    trimmed_bytes: int = 0
    """Bytes of a torn line, left by a killed ctxscope appender, removed before this append."""


def new_entry_id(existing: AbstractSet[str]) -> str:
    """A fresh pi-style id: 8 hex chars not in ``existing``, a full UUID after 100 collisions (as pi)."""
    for _ in range(100):
        candidate = secrets.token_hex(4)
        if candidate not in existing:
            return candidate
    return str(uuid.uuid4())


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _scan_ids(fd: int, start: int, end: int) -> set[str]:
    ids: set[str] = set()
    pos = start
    while pos < end:
        lo = max(start, pos - _SCAN_OVERLAP)
        hi = min(end, pos + _SCAN_BLOCK)
        data = os.pread(fd, hi - lo, lo)
        ids.update(raw.decode("utf-8", "replace") for raw in _ID_PATTERN.findall(data))
        if len(data) < hi - lo:
            break
        pos = hi
    return ids


@dataclass(frozen=True, slots=True)
class _KnownIds:
    dev: int
    ino: int
    size: int
    ids: frozenset[str]


def _prescan(transcript: Path) -> _KnownIds | None:
    try:
        fd = os.open(transcript, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        return _KnownIds(st.st_dev, st.st_ino, st.st_size, frozenset(_scan_ids(fd, 0, st.st_size)))
    except OSError:
        return None
    finally:
        os.close(fd)


def _existing_ids(fd: int, st: os.stat_result, known: _KnownIds | None) -> set[str]:
    if known is not None and (known.dev, known.ino) == (st.st_dev, st.st_ino) and known.size <= st.st_size:
        # Append-only file, same inode, not shrunk: only the bytes added since the pre-scan are new.
        return set(known.ids) | _scan_ids(fd, max(0, known.size - _SCAN_OVERLAP), st.st_size)
    return _scan_ids(fd, 0, st.st_size)


def _check_header(fd: int, transcript: Path) -> None:
    head = os.pread(fd, _HEADER_MAX, 0)
    nl = head.find(b"\n")
    if nl < 0:
        raise AppendRefusedError(f"{transcript} has no complete first line, so no session header")
    line = head[:nl].removesuffix(b"\r").removeprefix(_BOM)
    try:
        header = orjson.loads(line)
    except orjson.JSONDecodeError:
        header = None
    if not isinstance(header, dict) or header.get("type") != "session" or not isinstance(header.get("id"), str):
        raise AppendRefusedError(
            f"{transcript} does not start with a session header; pi would discard it and start a new "
            "session, so ctxscope only reads it (docs/formats.md, Header)"
        )
    version = header.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        version = 1
    if version < 3:
        raise AppendRefusedError(
            f"{transcript} is a version {version} session; pi migrates and rewrites such files when it "
            "opens them, so ctxscope only reads them (docs/formats.md, Versions and migration). "
            "Open it once in pi or OpenClaw first."
        )


def _prepare(
    raw_entries: Sequence[Mapping[str, Any]], leaf_id: str | None, existing: set[str]
) -> tuple[list[dict[str, Any]], tuple[str, ...]]:
    taken = set(existing)
    parent = leaf_id
    now = _now_iso()
    entries: list[dict[str, Any]] = []
    for index, raw in enumerate(raw_entries):
        if not isinstance(raw, Mapping):
            raise TypeError(f"entry {index} is a {type(raw).__name__}, not a mapping")
        kind = raw.get("type")
        if not isinstance(kind, str) or not kind or kind == "session":
            raise ValueError(f"entry {index}: type must be a non-empty string other than 'session'")
        entry_id = raw.get("id")
        if entry_id is None:
            entry_id = new_entry_id(taken)
        elif not isinstance(entry_id, str) or not entry_id:
            raise ValueError(f"entry {index}: id must be a non-empty string")
        elif entry_id in taken:
            raise ValueError(f"entry {index}: id {entry_id!r} is already used in the transcript or batch")
        if "parentId" in raw and raw["parentId"] != parent:
            raise ValueError(
                f"entry {index}: parentId {raw['parentId']!r} would break the chain (expected {parent!r}); "
                "leave parentId out, the writer chains entries to the leaf"
            )
        timestamp = raw.get("timestamp", now)
        if not isinstance(timestamp, str):
            raise ValueError(f"entry {index}: timestamp must be an ISO string")
        taken.add(entry_id)
        entry: dict[str, Any] = {"type": kind, "id": entry_id, "parentId": parent, "timestamp": timestamp}
        entry.update((key, value) for key, value in raw.items() if key not in entry)
        entries.append(entry)
        parent = entry_id
    return entries, tuple(entry["id"] for entry in entries)


def _write_once(fd: int, data: bytes) -> int:
    return os.write(fd, data)


def _undo_short_write(fd: int, transcript: Path, offset: int, written: int, wanted: int) -> AppendError:
    if os.fstat(fd).st_size == offset + written:
        os.ftruncate(fd, offset)
        os.fsync(fd)
        return AppendError(
            f"short write to {transcript} ({written} of {wanted} bytes; disk full?): the partial line was "
            "truncated away and the transcript is unchanged"
        )
    return AppendError(
        f"short write to {transcript} ({written} of {wanted} bytes; disk full?) and another writer appended "
        f"after it: the line at byte {offset} is torn (pi skips it on load, together with any entry glued to it)"
    )


def append_entries(
    transcript: Path,
    build: Callable[[str | None], Sequence[Mapping[str, Any]]],
    *,
    lock_timeout: float = 10.0,
    recent_write_seconds: float = 3.0,
    stale_after: float = DEFAULT_STALE_AFTER,
) -> AppendResult:
    """Append the entries ``build(leaf_id)`` returns, chained to the current leaf, in one locked write.

    ``build`` runs under the lock and gets the leaf id (None for a header-only file). Its entries need a
    ``type``; ``id`` (fresh 8-hex when absent) and ``timestamp`` (now, ISO ms Z, when absent) may be given;
    ``parentId`` is set by the writer. An empty sequence writes nothing.

    Raises:
        AppendRefusedError: missing or non-regular file, no v3+ session header, a partial last line, or a
            batch over :data:`MAX_APPEND_BYTES`.
        AppendError: the write failed or was short (see the module docstring).
        LockHeldError: a live process held ``<transcript>.lock`` for ``lock_timeout`` seconds.
        ValueError, TypeError: ``build`` returned malformed entries.
    """
    transcript = Path(transcript)
    known = _prescan(transcript)
    with acquire_lock(transcript, timeout=lock_timeout, stale_after=stale_after) as lock:
        try:
            fd = os.open(transcript, os.O_RDWR | os.O_APPEND | os.O_CLOEXEC)
        except FileNotFoundError as exc:
            raise AppendRefusedError(f"{transcript} does not exist") from exc
        except OSError as exc:
            raise AppendError(f"cannot open {transcript} for appending: {exc.strerror}") from exc
        try:
            return _append_locked(fd, transcript, lock, build, known, recent_write_seconds)
        finally:
            os.close(fd)


def _trim_torn_tail(fd: int, size: int, lock: SessionLock) -> int:
    """Cut a torn line left by the dead holder of the lock we broke; returns the new size."""
    intent = lock.replaced.append_intent if lock.replaced is not None else None
    if intent is None:
        return size
    offset, length = intent
    if not offset < size < offset + length or os.pread(fd, 1, offset - 1) != b"\n":
        return size
    cut = offset + os.pread(fd, size - offset, offset).rfind(b"\n") + 1
    os.ftruncate(fd, cut)
    os.fsync(fd)
    return cut


def _append_locked(
    fd: int,
    transcript: Path,
    lock: SessionLock,
    build: Callable[[str | None], Sequence[Mapping[str, Any]]],
    known: _KnownIds | None,
    recent_write_seconds: float,
) -> AppendResult:
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        raise AppendRefusedError(f"{transcript} is not a regular file")
    _check_header(fd, transcript)
    size = trimmed_from = st.st_size
    if os.pread(fd, 1, size - 1) != b"\n":
        size = _trim_torn_tail(fd, size, lock)
    if os.pread(fd, 1, size - 1) != b"\n":
        raise AppendRefusedError(
            f"{transcript} ends with a partial line (a writer is mid-line or crashed mid-line); "
            "ctxscope will not glue entries onto it. Retry in a moment."
        )
    leaf = last_entry(fd, size)
    leaf_id: str | None = leaf[1]["id"] if leaf is not None else None
    entries, ids = _prepare(build(leaf_id), leaf_id, _existing_ids(fd, st, known))
    age = time.time() - st.st_mtime
    warning = None
    if age < recent_write_seconds:
        warning = (
            f"{transcript.name} changed {max(age, 0.0):.1f} s ago: an agent may be mid-run; it keeps its "
            "leaf in memory, so its next entry may branch around the appended ones"
        )
    trimmed = trimmed_from - size
    if not entries:
        return AppendResult((), leaf_id, 0, size, warning, trimmed)
    data = b"".join(orjson.dumps(entry) + b"\n" for entry in entries)
    if len(data) > MAX_APPEND_BYTES:
        raise AppendRefusedError(f"batch of {len(data)} bytes exceeds the {MAX_APPEND_BYTES}-byte single write")
    lock.note_append(size, len(data))
    try:
        written = _write_once(fd, data)
    except OSError as exc:
        raise AppendError(f"cannot append to {transcript}: {exc.strerror}") from exc
    # O_APPEND leaves the descriptor just past our bytes, which tells where they landed without a race.
    offset = os.lseek(fd, 0, os.SEEK_CUR) - written
    if written != len(data):
        raise _undo_short_write(fd, transcript, offset, written, len(data))
    os.fsync(fd)
    if offset != size:
        warning = (
            f"another writer appended {offset - size} bytes to {transcript.name} without the lock between "
            f"reading the leaf and writing; the new entries chain to {leaf_id}, which is no longer the last "
            "entry before them"
        )
    return AppendResult(ids, leaf_id, written, offset, warning, trimmed)
