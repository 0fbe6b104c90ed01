"""The drop-only memory archive: dropped messages kept verbatim in ``<workspace>/memory/YYYY-MM-DD.md``.

See docs/compaction.md, Memory archive.

OpenClaw indexes ``memory/*.md`` for its memory search, so the archive is markdown a person can read, framed
so a program can too. Each record is::

    <!-- ctxscope-archive:begin id=<id> bytes=<n> sha256=<hex> -->
    <n bytes of UTF-8 markdown: a heading, a JSON metadata block, then one section per message>
    <!-- ctxscope-archive:end id=<id> -->

A record is appended with one ``write()`` on an ``O_APPEND`` descriptor and fsynced. A kill can still leave a
prefix of it (Linux checks for fatal signals between the pages of a write), so :func:`read_archive` takes a
record as complete only when its body has exactly the announced length and SHA-256 and the matching end marker
follows; anything else is reported as incomplete, never returned as a record. Framing by length means text
inside a body can never end a record early. Secrets are redacted before anything is written.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Final

import orjson

from engine.capture.redact import redact_secrets
from engine.fs.atomic import fsync_dir

__all__ = [
    "ArchiveRecord",
    "ArchiveScan",
    "ArchiveWrite",
    "ArchivedMessage",
    "IncompleteRecord",
    "append_archive_record",
    "archive_file",
    "read_archive",
    "render_archive_record",
]

ARCHIVE_VERSION: Final = 1
_BEGIN: Final = re.compile(
    rb"<!-- ctxscope-archive:begin id=(?P<id>[A-Za-z0-9_-]{1,64}) bytes=(?P<n>[0-9]{1,12}) "
    rb"sha256=(?P<sha>[0-9a-f]{64}) -->\n"
)
_META: Final = re.compile(r"^```json\n(?P<json>\{.*?\})\n```$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class ArchivedMessage:
    """One dropped message as it will be archived."""

    role: str
    entry_id: str | None
    timestamp: str | None
    text: str
    """Everything the model saw of it: text, thinking, tool calls with full arguments, tool output."""


@dataclass(frozen=True, slots=True)
class ArchiveRecord:
    """A complete, verified record read back from an archive file."""

    record_id: str
    offset: int
    """Byte offset of the begin marker."""
    length: int
    """Body length in bytes."""
    sha256: str
    meta: Mapping[str, Any]
    """The record's JSON metadata (session, entry ids, layer, created_at, …); empty if unreadable."""
    body: str


@dataclass(frozen=True, slots=True)
class IncompleteRecord:
    """A begin marker whose record is cut short or does not verify (a killed writer, an edit)."""

    record_id: str
    offset: int
    reason: str


@dataclass(frozen=True, slots=True)
class ArchiveScan:
    """Everything :func:`read_archive` found in one file."""

    records: tuple[ArchiveRecord, ...]
    incomplete: tuple[IncompleteRecord, ...]


@dataclass(frozen=True, slots=True)
class ArchiveWrite:
    """Where :func:`append_archive_record` put a record."""

    path: Path
    offset: int
    """Byte offset where the appended bytes start (a separating newline may precede the begin marker)."""
    length: int
    """Bytes written."""


def archive_file(workspace: Path, when: datetime) -> Path:
    """``<workspace>/memory/YYYY-MM-DD.md`` for the local date of ``when`` (OpenClaw's memory file naming)."""
    return Path(workspace) / "memory" / f"{when.astimezone():%Y-%m-%d}.md"


def render_archive_record(
    record_id: str,
    messages: Sequence[ArchivedMessage],
    *,
    session_key: str,
    created_at: str,
    first_kept_entry_id: str | None,
    layer: str = "drop-only",
    tokens: int | None = None,
) -> bytes:
    """The bytes of one record (markers included), with secrets redacted.

    Raises:
        ValueError: ``record_id`` is not 1-64 characters of ``[A-Za-z0-9_-]``.
    """
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", record_id):
        raise ValueError(f"archive record id {record_id!r} must be 1-64 characters of [A-Za-z0-9_-]")
    meta = {
        "archive": "ctxscope",
        "version": ARCHIVE_VERSION,
        "id": record_id,
        "session": session_key,
        "created_at": created_at,
        "layer": layer,
        "first_kept_entry_id": first_kept_entry_id,
        "messages": len(messages),
        "tokens": tokens,
        "entry_ids": [m.entry_id for m in messages],
    }
    lines = [
        f"## Archived context: {redact_secrets(' '.join(session_key.split()))} ({created_at})",
        "",
        f"Dropped from the agent's context by ctxscope ({layer}); kept here verbatim.",
        "",
        "```json",
        orjson.dumps(meta).decode(),
        "```",
    ]
    for number, message in enumerate(messages, start=1):
        lines += [
            "",
            f"### {number}. {message.role} · {message.timestamp or '-'} · entry `{message.entry_id or '-'}`",
            "",
            redact_secrets(message.text),
        ]
    body = ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass").decode("utf-8", "replace").encode()
    digest = hashlib.sha256(body).hexdigest()
    begin = f"<!-- ctxscope-archive:begin id={record_id} bytes={len(body)} sha256={digest} -->\n".encode()
    return begin + body + f"<!-- ctxscope-archive:end id={record_id} -->\n".encode()


def append_archive_record(path: Path, record: bytes) -> ArchiveWrite:
    """Append ``record`` to the archive file in one ``write()`` (creating ``memory/`` if needed), then fsync.

    Raises:
        OSError: the file could not be opened or written; a short write is truncated away when nothing
            was appended after it, and reported either way.
    """
    path = Path(path)
    created_dir = not path.parent.exists()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        # A separating newline keeps our begin marker at the start of a line after any torn or foreign tail.
        data = (b"\n" if os.fstat(fd).st_size else b"") + record
        written = os.write(fd, data)
        end = os.lseek(fd, 0, os.SEEK_CUR)
        offset = end - written
        if written != len(data):
            if os.fstat(fd).st_size == end:
                os.ftruncate(fd, offset)
            os.fsync(fd)
            raise OSError(f"short write to {path} ({written} of {len(data)} bytes; disk full?)")
        os.fsync(fd)
    finally:
        os.close(fd)
    if created_dir:
        fsync_dir(path.parent.parent)
    fsync_dir(path.parent)
    return ArchiveWrite(path, offset, written)


def _meta(body: str) -> Mapping[str, Any]:
    match = _META.search(body)
    if match is None:
        return {}
    try:
        value = orjson.loads(match.group("json"))
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def read_archive(path: Path) -> ArchiveScan:
    """Every complete record in an archive file, and every begin marker whose record is not complete.

    Raises:
        OSError: the file cannot be read.
    """
    data = Path(path).read_bytes()
    records: list[ArchiveRecord] = []
    incomplete: list[IncompleteRecord] = []
    pos = 0
    while True:
        match = _BEGIN.search(data, pos)
        if match is None:
            break
        record_id = match.group("id").decode()
        start, length = match.end(), int(match.group("n"))
        body = data[start : start + length]
        end_marker = f"<!-- ctxscope-archive:end id={record_id} -->\n".encode()
        reason = None
        if len(body) < length:
            reason = f"truncated: {len(body)} of {length} body bytes"
        elif hashlib.sha256(body).hexdigest() != match.group("sha").decode():
            reason = "checksum mismatch"
        elif not data.startswith(end_marker, start + length):
            reason = "end marker missing"
        if reason is not None:
            incomplete.append(IncompleteRecord(record_id, match.start(), reason))
            pos = match.end()
            continue
        text = body.decode("utf-8", "replace")
        records.append(ArchiveRecord(record_id, match.start(), length, match.group("sha").decode(), _meta(text), text))
        pos = start + length + len(end_marker)
    return ArchiveScan(tuple(records), tuple(incomplete))
