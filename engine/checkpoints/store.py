"""Checkpoint files on disk (docs/checkpoints.md: Layout, Writing, Reading the latest, Retention).

Layout: ``<stateDir>/context/checkpoints/<safe_key>/cp_001.yaml`` … (three digits minimum, more past 999),
written once and never modified, plus a per-session ``_latest.json`` pointer ``{checkpoint_id, path}``.
A write redacts secrets, writes the file atomically, then the pointer, then deletes the oldest files beyond
the retention count, and records the action in the audit log. Writers of one session serialise on an
``flock`` of ``.write.lock`` in the session dir (where ``fcntl`` exists). Reads never write: a read neither
creates directories nor removes the temp files a killed writer left (``.cp_….tmp``); the next write does.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import orjson

from engine.capture.redact import REDACTED_RE, redact_secrets
from engine.checkpoints.legacy_dirs import (
    checkpoint_dirs,
    migrate_legacy_checkpoints,
    owned_by,
    readable_checkpoint_dir,
    same_session,
)
from engine.checkpoints.model import CHECKPOINT_ID_RE, Checkpoint, CheckpointFormatError, map_text, validate_checkpoint
from engine.checkpoints.pins import read_pins
from engine.checkpoints.triggers import SKIP_DELTA
from engine.checkpoints.yaml_io import dump_checkpoint, load_checkpoint, replace_lone_surrogates
from engine.fs.atomic import write_atomic
from engine.fs.audit import record_action
from engine.fs.layout import display_key, split_file_identity
from engine.fs.safe_path import open_dir, open_leaf

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory lock, single writer assumed
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "DEFAULT_RETENTION",
    "LATEST_NAME",
    "MAX_CHECKPOINT_BYTES",
    "AlreadyWrittenError",
    "CheckpointRef",
    "LoadedCheckpoint",
    "SkippedCheckpoint",
    "latest_checkpoint",
    "list_checkpoints",
    "read_checkpoint",
    "read_checkpoint_text",
    "write_checkpoint",
]

DEFAULT_RETENTION: Final = 5
LATEST_NAME: Final = "_latest.json"
MAX_CHECKPOINT_BYTES: Final = 16 << 20
"""Files larger than this are reported as invalid instead of parsed (a checkpoint is a few KB)."""

_FILE_RE: Final = re.compile(r"cp_([0-9]{3,})\.yaml")
_TEMP_RE: Final = re.compile(r"\.(?:cp_[0-9]{3,}\.yaml|_latest\.json)\.[0-9]+\.tmp")
_LOCK_NAME: Final = ".write.lock"


@dataclass(frozen=True, slots=True)
class CheckpointRef:
    """Where one checkpoint file is."""

    session_key: str
    checkpoint_id: str
    path: Path

    @property
    def number(self) -> int:
        """The sequence number: 3 for ``cp_003``."""
        return int(self.checkpoint_id[3:])


@dataclass(frozen=True, slots=True)
class SkippedCheckpoint:
    """A checkpoint file passed over while looking for the latest valid one, and why."""

    ref: CheckpointRef
    reason: str


@dataclass(frozen=True, slots=True)
class LoadedCheckpoint:
    """The latest valid checkpoint of a session, with what was skipped to reach it."""

    ref: CheckpointRef
    checkpoint: Checkpoint
    text: str
    """The file's YAML text, for raw diffs."""
    skipped: tuple[SkippedCheckpoint, ...] = ()
    """Newer files that failed to read or validate, newest first."""
    pointer_problem: str | None = None
    """Why ``_latest.json`` was not followed (missing, corrupt, stale), or ``None`` when it was."""


def _ref(key: str, directory: Path, number: int) -> CheckpointRef:
    cid = f"cp_{number:03d}"
    return CheckpointRef(key, cid, directory / f"{cid}.yaml")


def _scan(directory: Path) -> list[int]:
    try:
        names = os.listdir(directory)
    except (FileNotFoundError, NotADirectoryError):
        return []
    numbers = []
    for name in names:
        m = _FILE_RE.fullmatch(name)
        # Only canonical names: cp_0001.yaml would alias cp_001.yaml.
        if m and f"{int(m.group(1)):03d}" == m.group(1):
            numbers.append(int(m.group(1)))
    return sorted(numbers)


def _session_numbers(directory: Path, key: str, shared: bool) -> list[int]:
    numbers = _scan(directory)
    if shared:  # a legacy directory other sessions may share: only this session's files
        numbers = [n for n in numbers if owned_by(_ref(key, directory, n).path, key)]
    return numbers


def list_checkpoints(state_dir: Path, key: str) -> tuple[CheckpointRef, ...]:
    """The session's checkpoint files, oldest first (valid or not)."""
    directory, shared = readable_checkpoint_dir(state_dir, key)
    return tuple(_ref(key, directory, n) for n in _session_numbers(directory, key, shared))


def _read_text(path: Path) -> str:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise CheckpointFormatError(["is a symlink; ctxscope reads only its own files"]) from None
        raise
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise CheckpointFormatError(["not a regular file"])
        data = f.read(MAX_CHECKPOINT_BYTES + 1)
    if len(data) > MAX_CHECKPOINT_BYTES:
        raise CheckpointFormatError([f"file larger than {MAX_CHECKPOINT_BYTES} bytes"])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CheckpointFormatError([f"not UTF-8 at byte {exc.start}"]) from None


def read_checkpoint(ref: CheckpointRef) -> Checkpoint:
    """Read and validate one checkpoint file.

    Raises:
        OSError: the file cannot be read (e.g. deleted by retention meanwhile).
        CheckpointFormatError: it is not a valid checkpoint, or belongs to another session (``meta.session_key``).
    """
    return read_checkpoint_text(ref)[1]


def read_checkpoint_text(ref: CheckpointRef) -> tuple[str, Checkpoint]:
    """Read and validate one checkpoint file like :func:`read_checkpoint`; also return its YAML text (for a raw
    diff). Raises what :func:`read_checkpoint` raises."""
    text = _read_text(ref.path)
    cp = load_checkpoint(text)
    if not same_session(cp.meta.session_key, ref.session_key, cp.meta.session_file):
        raise CheckpointFormatError([_foreign(cp.meta.session_key)])
    return text, cp


def _foreign(owner: str) -> str:
    return f"belongs to another session (meta.session_key {owner!r})"


def _read_pointer(directory: Path, numbers: set[int]) -> tuple[int | None, str | None]:
    try:
        raw = (directory / LATEST_NAME).read_bytes()
    except FileNotFoundError:
        return None, f"{LATEST_NAME} missing"
    except OSError as exc:
        return None, f"{LATEST_NAME} unreadable: {exc.strerror}"
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None, f"{LATEST_NAME} is not JSON"
    cid = obj.get("checkpoint_id") if isinstance(obj, dict) else None
    if not isinstance(cid, str) or not CHECKPOINT_ID_RE.fullmatch(cid):
        return None, f"{LATEST_NAME} has no valid checkpoint_id"
    number = int(cid[3:])
    # The pointer's path may be absolute and from another machine: only its id, inside this dir, is used.
    if number not in numbers:
        return None, f"{LATEST_NAME} points to missing {cid}"
    return number, None


def _previous_of(document: object, own_id: str) -> int | None:
    """``meta.previous_checkpoint`` of a document that parsed but failed validation, if it names one.

    Only a document that names itself ``own_id`` is trusted: a file holding another checkpoint's content
    would point to that one's predecessor.
    """
    meta = document.get("meta") if isinstance(document, dict) else None
    if not isinstance(meta, dict) or meta.get("checkpoint_id") != own_id:
        return None
    prev = meta.get("previous_checkpoint")
    if isinstance(prev, str) and CHECKPOINT_ID_RE.fullmatch(prev):
        return int(prev[3:])
    return None


def latest_checkpoint(state_dir: Path, key: str) -> LoadedCheckpoint | None:
    """The newest valid checkpoint of a session, or ``None`` if there is none.

    Starts at the newest file (a writer killed between the file and the pointer leaves ``_latest.json`` one
    behind; the pointer is checked and any disagreement reported). An invalid file is skipped with its
    reason, then ``previous_checkpoint`` is followed when the file still parses, names itself correctly and
    links to a file that exists; otherwise the next older file is tried.
    """
    directory, shared = readable_checkpoint_dir(state_dir, key)
    numbers = _session_numbers(directory, key, shared)
    if not numbers:
        return None
    present = set(numbers)
    pointed, pointer_problem = _read_pointer(directory, present)
    if shared:
        pointer_problem = f"read from {directory.name}/, shared with other sessions by an earlier version"
    if pointed is not None and pointed != numbers[-1]:
        pointer_problem = f"{LATEST_NAME} points to cp_{pointed:03d}, but cp_{numbers[-1]:03d} is newer"

    skipped: list[SkippedCheckpoint] = []
    visited: set[int] = set()
    current: int | None = numbers[-1]
    while current is not None:
        visited.add(current)
        ref = _ref(key, directory, current)
        document: object = None
        try:
            text = _read_text(ref.path)
            cp = load_checkpoint(text)
        except FileNotFoundError:
            skipped.append(SkippedCheckpoint(ref, "deleted while reading"))
        except OSError as exc:
            skipped.append(SkippedCheckpoint(ref, f"unreadable: {exc.strerror or exc}"))
        except CheckpointFormatError as exc:
            skipped.append(SkippedCheckpoint(ref, "; ".join(exc.problems)))
            document = exc.document
        else:
            if not same_session(cp.meta.session_key, key, cp.meta.session_file):
                skipped.append(SkippedCheckpoint(ref, _foreign(cp.meta.session_key)))
            elif cp.meta.checkpoint_id == ref.checkpoint_id:
                return LoadedCheckpoint(ref, cp, text, tuple(skipped), pointer_problem)
            else:
                skipped.append(SkippedCheckpoint(ref, f"meta.checkpoint_id is {cp.meta.checkpoint_id!r}"))
        link = _previous_of(document, ref.checkpoint_id)
        if link is not None and link in present and link not in visited:
            current = link
        else:
            current = next((n for n in reversed(numbers) if n not in visited), None)
    return None


@contextlib.contextmanager
def _session_lock(dir_fd: int, directory: Path) -> Iterator[None]:
    if fcntl is None:  # pragma: no cover
        yield
        return
    fd = open_leaf(dir_fd, _LOCK_NAME, os.O_RDWR | os.O_CREAT, directory / _LOCK_NAME)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _remove_stale_temps(dir_fd: int) -> None:
    # Under the session lock every matching temp file belongs to a writer that died mid-write.
    for name in os.listdir(dir_fd):
        if _TEMP_RE.fullmatch(name):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name, dir_fd=dir_fd)


def write_checkpoint(state_dir: Path, key: str, cp: Checkpoint, *, retention: int = DEFAULT_RETENTION,
                     once_per_trigger: bool = False) -> CheckpointRef:
    """Write ``cp`` as the session's next checkpoint and return where it went.

    ``meta.session_key`` (``key``), ``meta.checkpoint_id`` (next number) and ``meta.previous_checkpoint`` (the
    newest file present) are assigned here, whatever the caller set; every transcript-derived string is redacted
    first. Temp files of killed writers are removed, and files beyond the newest ``retention`` deleted, after the
    pointer. Files of this session left in a directory an earlier version shared are moved in first.

    Raises:
        ValueError: ``retention`` < 1.
        CheckpointFormatError: ``cp`` would not validate (nothing is written).
        AlreadyWrittenError: ``once_per_trigger`` and the latest checkpoint on disk is this automatic trigger's,
            written by another writer (nothing is written).
        OSError: the write failed (recorded in the audit log as ``failed``).
    """
    if retention < 1:
        raise ValueError(f"retention must be >= 1, got {retention}")
    directory, _ = checkpoint_dirs(state_dir, key)
    shown_key = display_key(key)
    params = {"trigger": replace_lone_surrogates(cp.meta.trigger), "retention": retention}
    audit_key = replace_lone_surrogates(shown_key)  # the audit log is JSON, which cannot hold lone surrogates
    migrated: list[str] = []
    try:
        dir_fd = open_dir(state_dir, directory)
        try:
            with _session_lock(dir_fd, directory):
                migrated = migrate_legacy_checkpoints(state_dir, key, dir_fd)
                _remove_stale_temps(dir_fd)
                every = _scan(directory)
                # The home of a file identity may still hold files an earlier version wrote there for a copy:
                # numbers never repeat a name, but the link and retention see only this session's files.
                numbers = _session_numbers(directory, key, split_file_identity(key) is not None)
                if once_per_trigger and numbers and cp.meta.trigger != "manual":
                    _refuse_repeat(_ref(key, directory, numbers[-1]), cp)
                ref = _ref(key, directory, (every[-1] + 1) if every else 1)
                previous = f"cp_{numbers[-1]:03d}" if numbers else None
                final, redactions = _redacted(cp, shown_key, ref.checkpoint_id, previous)
                text = dump_checkpoint(final)
                # One directory fsync for both renames: readers start from the newest file and only report a
                # pointer that lags or names a missing file, so the two need no order between them. It comes
                # before retention deletes anything, so a crash never loses old checkpoints but not the new one.
                write_atomic(ref.path, text.encode("utf-8"), sync_dir=False, root=state_dir)
                pointer = {"checkpoint_id": ref.checkpoint_id, "path": str(ref.path.absolute())}
                write_atomic(directory / LATEST_NAME, orjson.dumps(pointer), sync_dir=False, root=state_dir)
                with contextlib.suppress(OSError):
                    os.fsync(dir_fd)
                deleted = _apply_retention(dir_fd, [*numbers, ref.number], retention, read_pins(directory))
        finally:
            os.close(dir_fd)
    except (OSError, CheckpointFormatError) as exc:
        error = replace_lone_surrogates(str(exc)[:500])
        # A state dir that cannot take the checkpoint usually cannot take the audit line either: the
        # checkpoint's own error is the one to report.
        with contextlib.suppress(OSError):
            record_action(state_dir, "checkpoint", audit_key, params=params, result="failed", error=error)
        raise
    record_action(
        state_dir,
        "checkpoint",
        audit_key,
        params=params,
        plan={
            "checkpoint_id": ref.checkpoint_id,
            "previous_checkpoint": previous,
            "path": str(ref.path.absolute()),
            "bytes": len(text.encode("utf-8")),
            "redactions": redactions,
            "deleted": deleted,
            **({"migrated": migrated} if migrated else {}),
        },
    )
    return ref


class AlreadyWrittenError(Exception):
    """Another writer (a second sidecar on the same state dir) already wrote this trigger's checkpoint."""

    def __init__(self, ref: CheckpointRef) -> None:
        super().__init__(f"{ref.checkpoint_id} already holds this trigger's checkpoint")
        self.ref = ref


def _refuse_repeat(latest: CheckpointRef, cp: Checkpoint) -> None:
    # Checked under the session's write lock, against what is on disk: two sidecars that saw the same trigger
    # fire write it once (docs/checkpoints.md, Triggers). The same automatic trigger in the same compaction cycle
    # with tokens within the 5% rule is the same event; `manual` is always written.
    try:
        previous = load_checkpoint(_read_text(latest.path)).meta
    except (OSError, CheckpointFormatError):
        return
    if previous.trigger != cp.meta.trigger or previous.compaction_count != cp.meta.compaction_count:
        return
    before, now = previous.token_usage.input_tokens, cp.meta.token_usage.input_tokens
    if abs(now - before) <= SKIP_DELTA * max(before, 1):
        raise AlreadyWrittenError(latest)


def _redacted(cp: Checkpoint, key: str, checkpoint_id: str, previous: str | None) -> tuple[Checkpoint, int]:
    """``cp`` with every transcript-derived string redacted and its key, id and link set; and the redaction count."""
    redactions = 0

    def redact(text: str) -> str:
        nonlocal redactions
        clean = redact_secrets(text)
        if clean != text:
            redactions += len(REDACTED_RE.findall(clean)) - len(REDACTED_RE.findall(text))
        return clean

    redacted = map_text(cp, redact)
    final = dataclasses.replace(
        redacted, meta=dataclasses.replace(redacted.meta, session_key=key, checkpoint_id=checkpoint_id,
                                           previous_checkpoint=previous),
    )
    problems = validate_checkpoint(final.to_dict())
    if problems:
        raise CheckpointFormatError(problems)
    return final, redactions


def _apply_retention(dir_fd: int, numbers: list[int], retention: int, pinned: frozenset[str] = frozenset()
                     ) -> list[str]:
    # The newest ``retention`` unpinned checkpoints are kept, and every pinned one (engine/checkpoints/pins.py).
    unpinned = [n for n in numbers if f"cp_{n:03d}" not in pinned]
    deleted = []
    for n in unpinned[: max(0, len(unpinned) - retention)]:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"cp_{n:03d}.yaml", dir_fd=dir_fd)
            deleted.append(f"cp_{n:03d}")
    return deleted  # not synced: a deletion lost in a crash leaves one old file for the next write to remove
