"""Appending whole entries to a live pi/OpenClaw JSONL transcript (docs/compaction.md, Locks and appends).

Two phases, so that OpenClaw's ``<transcript>.lock`` is held only for a re-check and one write:

1. :func:`prepare_append` — without the lock: check the header, require the file to end on a complete line
   (:func:`prepare_append_patiently` waits up to a second for a line a lock holder is finishing), read the
   leaf (the last entry in file order), let the caller build the entries for that leaf, chain them (first
   ``parentId`` = leaf, then each to the previous one), scan the ids already used, serialize.
2. :func:`commit_append` — under the lock: re-check that the file is the same inode, has exactly the size
   the batch was prepared for, still ends with a newline and with the same bytes; if anything moved (an agent
   appended, a writer that ignores the lock is mid-line) nothing is written and :class:`AppendMovedError`
   says what moved. Otherwise the lines go out in ONE ``write()`` on an ``O_APPEND`` descriptor, the lock is
   released, and only then is the file fsynced.

:func:`append_entries` runs both and prepares again when the file moved, until ``lock_timeout`` runs out.

Why one write: on a local filesystem (ext4, xfs, btrfs, tmpfs) a ``write()`` to a regular file holds the inode
lock for the whole call and ``O_APPEND`` positions it at the end inside that lock, so a batch of a few MB lands
contiguously even next to a writer that ignores our lock (pi itself never takes OpenClaw's lock). NFS and other
network filesystems give no such guarantee. A short write (disk full, file size limit) is never completed: our
torn tail is truncated away when nothing follows it, else reported. Linux checks for a fatal signal between
the pages of a buffered write, so SIGKILL inside a batch can leave a prefix of it: before writing we record
the batch's offset and length in our lock (:meth:`~engine.fs.session_lock.SessionLock.note_append`), and
whoever breaks that stale lock trims the torn line, and only it, before appending. The transcript is opened
with ``O_NOFOLLOW``: a transcript that is a symlink is never appended to.

Exceptions::

    AppendError              the append failed (I/O error, short write)
     └── AppendRefusedError  the file is not one we may append to; nothing was written
          └── AppendMovedError   the file changed between preparing and the locked re-check; nothing written
    engine.fs.session_lock.LockError / LockHeldError propagate unchanged.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

import orjson

from engine.fs.jsonl_entries import HeaderProblem, chain_entries, check_header, new_entry_id, scan_ids
from engine.fs.session_lock import DEFAULT_STALE_AFTER, SessionLock, acquire_lock, inspect_lock
from engine.fs.tail import last_entry

__all__ = [
    "MAX_APPEND_BYTES",
    "MAX_RECHAIN_BYTES",
    "AppendError",
    "AppendMovedError",
    "AppendRefusedError",
    "AppendResult",
    "PreparedAppend",
    "append_entries",
    "commit_append",
    "new_entry_id",
    "prepare_append",
    "prepare_append_patiently",
]

MAX_APPEND_BYTES: Final = 16 << 20
"""Largest batch written in one call; far below Linux's 2 GiB per-write cap, and plenty for a summary."""
MAX_RECHAIN_BYTES: Final = 1 << 20
"""Most bytes an agent may have appended since preparing for the batch to be re-chained under the lock."""
_TAIL_CHECK: Final = 4096
"""Bytes at the end of the file compared at the re-check (besides inode and size)."""
_READ_FLAGS: Final = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC

Builder = Callable[[str | None], Sequence[Mapping[str, Any]]]
"""Returns the entries to append after the given leaf id (``None``: the file holds only its header)."""


class AppendError(Exception):
    """Appending to a transcript failed."""


class AppendRefusedError(AppendError):
    """The transcript may not be appended to (wrong format or mid-write); nothing was written."""


class AppendMovedError(AppendRefusedError):
    """The transcript changed between preparing the batch and the locked re-check; nothing was written."""


class _PartialTail(AppendRefusedError):
    """The file ends without a newline: a writer is mid-line, or a killed appender left a torn line."""


@dataclass(frozen=True, slots=True)
class AppendResult:
    """What :func:`commit_append` wrote."""

    entry_ids: tuple[str, ...]
    parent_id: str | None
    """The leaf the first new entry was chained to (None when the file held only its header)."""
    bytes_written: int
    offset: int
    """Byte offset in the transcript where the first appended line starts."""
    agent_active_warning: str | None
    """Set when the file changed within ``recent_write_seconds`` of the append."""
    trimmed_bytes: int = 0
    """Bytes of a torn line, left by a killed ctxscope appender, removed before this append."""
    lock_held_seconds: float = 0.0
    """How long OpenClaw's lock was held for this append (taken to released)."""


@dataclass(frozen=True, slots=True)
class PreparedAppend:
    """A batch serialized for one state of the transcript: valid only while the file is exactly that."""

    transcript: Path
    dev: int
    ino: int
    size: int
    """The file size the batch was prepared for: the write must land exactly here."""
    tail: bytes
    """The last bytes of the file at that size (compared again under the lock)."""
    mtime: float
    leaf_id: str | None
    entry_ids: tuple[str, ...]
    data: bytes
    entries: tuple[dict[str, Any], ...] = ()
    """The chained entries ``data`` serializes (re-chained when the agent appended on the same branch)."""
    rechain: bool = False
    """Under the lock, chain the batch to a new leaf the agent appended on the same branch (see :func:`_rechained`)."""


def _open_read(transcript: Path) -> int:
    try:
        return os.open(transcript, _READ_FLAGS)
    except FileNotFoundError as exc:
        raise AppendRefusedError(f"{transcript} does not exist") from exc
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise AppendRefusedError(f"{transcript} is a symlink; ctxscope appends only to the file itself") from exc
        raise AppendError(f"cannot open {transcript}: {exc.strerror}") from exc


def prepare_append(transcript: Path, build: Builder, *, rechain: bool = False) -> PreparedAppend:
    """Read the leaf and serialize ``build(leaf)`` for the file as it is now, without taking the lock.

    Raises:
        AppendRefusedError: missing, symlinked or non-regular file, no v3+ session header, a partial last line,
            or a batch over :data:`MAX_APPEND_BYTES`.
        AppendError: the file could not be read.
        ValueError, TypeError: ``build`` returned malformed entries.
    """
    transcript = Path(transcript)
    fd = _open_read(transcript)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise AppendRefusedError(f"{transcript} is not a regular file")
        try:
            check_header(fd, transcript)
        except HeaderProblem as exc:
            raise AppendRefusedError(str(exc)) from None
        size = st.st_size
        tail = os.pread(fd, min(_TAIL_CHECK, size), size - min(_TAIL_CHECK, size))
        if not tail.endswith(b"\n"):
            raise _PartialTail(
                f"{transcript} ends with a partial line (a writer is mid-line or crashed mid-line); "
                "ctxscope will not glue entries onto it. Retry in a moment."
            )
        leaf = last_entry(fd, size)
        leaf_id: str | None = leaf[1]["id"] if leaf is not None else None
        entries, ids = chain_entries(build(leaf_id), leaf_id, scan_ids(fd, 0, size))
    except OSError as exc:
        raise AppendError(f"cannot read {transcript}: {exc.strerror or exc}") from exc
    finally:
        os.close(fd)
    data = b"".join(orjson.dumps(entry) + b"\n" for entry in entries)
    if len(data) > MAX_APPEND_BYTES:
        raise AppendRefusedError(f"batch of {len(data)} bytes exceeds the {MAX_APPEND_BYTES}-byte single write")
    return PreparedAppend(transcript, st.st_dev, st.st_ino, size, tail, st.st_mtime, leaf_id, ids, data,
                          tuple(entries), rechain)


def _moved(fd: int, prepared: PreparedAppend) -> tuple[PreparedAppend, str | None]:
    """The batch to write now (``prepared``, or re-chained) and why nothing may be written (``None``: write)."""
    st = os.fstat(fd)
    name = prepared.transcript.name
    if (st.st_dev, st.st_ino) != (prepared.dev, prepared.ino):
        return prepared, f"{name} was replaced (another file is at its path now)"
    check = len(prepared.tail)
    if st.st_size < prepared.size or os.pread(fd, check, prepared.size - check) != prepared.tail:
        return prepared, f"{name} was truncated or rewritten since its leaf was read"
    if st.st_size == prepared.size:
        return prepared, None
    grew = f"{name} grew by {st.st_size - prepared.size:,} bytes since its leaf was read (an agent is writing)"
    if not prepared.rechain:
        return prepared, grew
    return _rechained(fd, prepared, st.st_size, grew)


def _rechained(fd: int, prepared: PreparedAppend, size: int, grew: str) -> tuple[PreparedAppend, str | None]:
    """``prepared`` chained to the leaf the agent appended, when it only extended the same branch.

    Bounded work under the lock: at most :data:`MAX_RECHAIN_BYTES` of appended lines are parsed. Refused when
    they end mid-line, branch away from the prepared leaf, hold a compaction (the agent compacted itself), or
    reuse one of our ids.
    """
    added = size - prepared.size
    if added > MAX_RECHAIN_BYTES:
        return prepared, f"{grew}: more than {MAX_RECHAIN_BYTES:,} bytes to re-check under the lock"
    data = os.pread(fd, added, prepared.size)
    if len(data) != added or not data.endswith(b"\n"):
        return prepared, f"{grew}, ending mid-line (a writer that ignores the lock is mid-write)"
    parents: dict[str, str | None] = {}
    leaf: str | None = None
    for raw in data.splitlines():
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(obj, dict) or not isinstance(obj.get("id"), str) or obj.get("type") == "session":
            continue
        if obj.get("type") == "compaction":
            return prepared, f"{grew}, including a compaction of its own"
        parent = obj.get("parentId")
        parents[obj["id"]] = parent if isinstance(parent, str) else None
        leaf = obj["id"]
    if leaf is None:
        return prepared, grew
    node: str | None = leaf
    while node in parents:
        node = parents[node]
    if node != prepared.leaf_id:
        return prepared, f"{grew}, on another branch (from {node}, not {prepared.leaf_id})"
    if set(prepared.entry_ids) & parents.keys():
        return prepared, f"{grew}, reusing an id of the batch"
    entries = [dict(entry) for entry in prepared.entries]
    entries[0]["parentId"] = leaf
    batch = b"".join(orjson.dumps(entry) + b"\n" for entry in entries)
    chained = replace(prepared, size=size, tail=data[-_TAIL_CHECK:], leaf_id=leaf, data=batch, entries=tuple(entries))
    return chained, None


def commit_append(
    prepared: PreparedAppend,
    *,
    lock_timeout: float = 10.0,
    recent_write_seconds: float = 3.0,
    stale_after: float = DEFAULT_STALE_AFTER,
) -> AppendResult:
    """Under the lock, re-check the file and write the prepared batch in one ``write()`` — or nothing.

    Raises:
        AppendMovedError: the file is not exactly as prepared (nothing written; prepare again).
        AppendError: the write failed or was short.
        LockHeldError: a live process held the lock for ``lock_timeout`` seconds.
    """
    transcript = prepared.transcript
    if not prepared.data:
        return AppendResult((), prepared.leaf_id, 0, prepared.size, None)
    with acquire_lock(transcript, timeout=lock_timeout, stale_after=stale_after) as lock:
        taken = time.monotonic()
        try:
            fd = os.open(transcript, os.O_RDWR | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as exc:
            raise AppendMovedError(f"{transcript} cannot be reopened for appending: {exc.strerror}") from exc
        try:
            prepared, offset, written = _write_locked(fd, prepared, lock)
        except BaseException:
            os.close(fd)
            raise
        lock.release()
        held = time.monotonic() - taken
    try:
        os.fsync(fd)  # durability needs no lock: the bytes are in place, only their flush is left
    except OSError as exc:
        raise AppendError(f"cannot flush {transcript}: {exc.strerror}") from exc
    finally:
        os.close(fd)
    age = time.time() - prepared.mtime
    warning = None
    if age < recent_write_seconds:
        warning = (f"{transcript.name} changed {max(age, 0.0):.1f} s before the append: an agent may be mid-run; it "
                   "keeps its leaf in memory, so its next entry may branch around the appended ones")
    return AppendResult(prepared.entry_ids, prepared.leaf_id, written, offset, warning, lock_held_seconds=held)


_SETTLE_TRIES = 3
"""Re-checks of the file's size after the intent is noted: each is one ``fstat`` before the ``write``."""


def _write_locked(fd: int, prepared: PreparedAppend, lock: SessionLock) -> tuple[PreparedAppend, int, int]:
    for _ in range(_SETTLE_TRIES):
        prepared, moved = _moved(fd, prepared)
        if moved is not None:
            raise AppendMovedError(f"nothing written: {moved}")
        lock.note_append(prepared.size, len(prepared.data))
        # Noting the intent rewrites the lock file; a writer that ignores the lock could start a line meanwhile.
        # Only an fstat stands between this last look and the write, which keeps that window to microseconds.
        if os.fstat(fd).st_size == prepared.size:
            break
    else:
        raise AppendMovedError(f"nothing written: {prepared.transcript.name} kept growing while the append waited "
                               "to write (a writer that ignores the lock is writing)")
    try:
        written = _write_once(fd, prepared.data)
    except OSError as exc:
        raise AppendError(f"cannot append to {prepared.transcript}: {exc.strerror}") from exc
    # O_APPEND leaves the descriptor just past our bytes, which tells where they landed without a race.
    offset = os.lseek(fd, 0, os.SEEK_CUR) - written
    if written != len(prepared.data):
        raise _undo_short_write(fd, prepared.transcript, offset, written, len(prepared.data))
    if offset != prepared.size:
        # A writer that ignores the lock appended in the microseconds between the re-check and our write.
        raise AppendError(
            f"another writer appended {offset - prepared.size} bytes to {prepared.transcript.name} without the lock "
            f"between the re-check and the write; the new entries ({', '.join(prepared.entry_ids)}) follow its bytes "
            f"at offset {offset} and chain to {prepared.leaf_id}, which is no longer the entry before them"
        )
    return prepared, offset, written


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


PARTIAL_TAIL_PATIENCE = 1.0
"""Seconds an append waits for a lock holder to complete a partial last line before refusing (a live appender
finishes its line in milliseconds)."""


def prepare_append_patiently(transcript: Path, build: Builder, *, deadline: float) -> PreparedAppend:
    """:func:`prepare_append` (rechained), waiting for a partial last line a lock holder is finishing.

    The tail is read without the lock, so an appender that read it while another wrote its line under the lock saw
    half a line and gave up. While a live process holds the lock, this tries again every 5 ms, for
    :data:`PARTIAL_TAIL_PATIENCE` seconds and never past ``deadline`` (``time.monotonic()``). Without a live holder
    it looks once more (the holder may have finished between the read and the look at its lock) and then refuses
    as :func:`prepare_append` does: a writer that ignores the lock and is mid-line must not be waited out, or the
    next append could land between the two halves of its following line.
    """
    torn_since: float | None = None
    looked_again = False
    while True:
        try:
            return prepare_append(transcript, build, rechain=True)
        except _PartialTail:
            now = time.monotonic()
            torn_since = now if torn_since is None else torn_since
            holder = inspect_lock(transcript)
            if holder is None or holder.stale:
                if looked_again:
                    raise
                looked_again = True
                continue
            if now - torn_since >= PARTIAL_TAIL_PATIENCE or now >= deadline:
                raise
            time.sleep(0.005)


def recover_torn_tail(transcript: Path, *, lock_timeout: float, stale_after: float = DEFAULT_STALE_AFTER) -> int:
    """Trim the torn line a killed ctxscope appender left, if its stale lock says which bytes; returns bytes cut.

    Only a stale lock whose payload records our append intent is broken for this; anything else (a live
    holder, a writer mid-line that ignores the lock) leaves the file alone and returns 0.
    """
    info = inspect_lock(transcript, stale_after=stale_after)
    if info is None or not info.stale or info.append_intent is None:
        return 0
    with acquire_lock(transcript, timeout=lock_timeout, stale_after=stale_after) as lock:
        intent = lock.replaced.append_intent if lock.replaced is not None else None
        if intent is None:
            return 0
        fd = os.open(transcript, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            size = os.fstat(fd).st_size
            offset, length = intent
            if not offset < size < offset + length or os.pread(fd, 1, offset - 1) != b"\n":
                return 0
            cut = offset + os.pread(fd, size - offset, offset).rfind(b"\n") + 1
            os.ftruncate(fd, cut)
            os.fsync(fd)
            return size - cut
        finally:
            os.close(fd)


def append_entries(
    transcript: Path,
    build: Builder,
    *,
    lock_timeout: float = 10.0,
    recent_write_seconds: float = 3.0,
    stale_after: float = DEFAULT_STALE_AFTER,
) -> AppendResult:
    """Append the entries ``build(leaf_id)`` returns, chained to the current leaf, in one locked write.

    ``build`` runs without the lock and may run again (with the new leaf) when the file moved before the
    locked re-check; ``lock_timeout`` bounds the whole. Its entries need a ``type``; ``id`` (fresh 8-hex when
    absent) and ``timestamp`` (now, ISO ms Z, when absent) may be given; ``parentId`` is set by the writer. An
    empty sequence writes nothing.

    Raises:
        AppendRefusedError: missing, symlinked or non-regular file, no v3+ session header, a partial last line,
            or a batch over :data:`MAX_APPEND_BYTES`.
        AppendMovedError: the file kept moving until ``lock_timeout`` ran out.
        AppendError: the write failed or was short (see the module docstring).
        LockHeldError: a live process held ``<transcript>.lock`` for ``lock_timeout`` seconds.
        ValueError, TypeError: ``build`` returned malformed entries.
    """
    transcript = Path(transcript)
    deadline = time.monotonic() + lock_timeout
    trimmed = 0
    while True:
        try:
            prepared = prepare_append(transcript, build, rechain=True)
        except _PartialTail:
            cut = 0 if trimmed else recover_torn_tail(transcript, lock_timeout=lock_timeout, stale_after=stale_after)
            if cut:
                trimmed = cut
                continue
            prepared = prepare_append_patiently(transcript, build, deadline=deadline)
        remaining = max(0.05, deadline - time.monotonic())
        try:
            result = commit_append(prepared, lock_timeout=remaining, recent_write_seconds=recent_write_seconds,
                                   stale_after=stale_after)
        except AppendMovedError:
            if time.monotonic() >= deadline:
                raise
            continue
        return AppendResult(result.entry_ids, result.parent_id, result.bytes_written, result.offset,
                            result.agent_active_warning, trimmed, result.lock_held_seconds)
