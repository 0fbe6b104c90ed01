"""Incremental, lazy reading of pi/OpenClaw JSONL transcripts (docs/formats.md, Reading rules).

A :class:`TranscriptReader` owns a cursor into one file. :meth:`TranscriptReader.read_new` parses only the
bytes appended since the last call, leaves a trailing partial line for later, and starts over cleanly when
the file was truncated or replaced (rotation). Entries keep offsets, not text; :meth:`read_object` re-reads
one line with ``os.pread`` when its content is needed.

Legacy files are read as pi would see them after migration, in memory only (docs/formats.md, Versions and
migration): v1 entries get deterministic ids (``v1-<line>``) chained to the previous entry and
``firstKeptEntryIndex`` becomes ``firstKeptEntryId``; in v1 and v2 files the role ``hookMessage`` reads as
``custom`` (a v3 file keeps it, as pi does: docs/pi.md). Nothing is ever written back.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from engine.fs.tail import MAX_LINE_BYTES, reading
from engine.stores.entries import Entry
from engine.stores.entry_parser import BOM as _BOM
from engine.stores.entry_parser import BadLine, EntryParser, migrate_v2_role
from engine.stores.transcript_error import TranscriptError

__all__ = [
    "MAX_LINE_BYTES",
    "BadLine",
    "EntryLog",
    "EntryParser",
    "ReadBatch",
    "TranscriptError",
    "TranscriptReader",
    "header_version",
    "last_leaf",
    "migrate_v2_role",
    "read_header",
    "read_transcript",
]

_BLOCK = 1 << 20
_SEEK_DATA = getattr(os, "SEEK_DATA", None)


def _next_data(fd: int, pos: int, size: int) -> int:
    """The next offset at or after ``pos`` that may hold data: holes of a sparse file are all zeros (no newline)."""
    if _SEEK_DATA is None:
        return pos
    try:
        return os.lseek(fd, pos, _SEEK_DATA)
    except OSError as exc:
        return size if exc.errno == errno.ENXIO else pos  # ENXIO: only a hole is left


@dataclass(frozen=True, slots=True)
class ReadBatch:
    """What one :meth:`TranscriptReader.read_new` call consumed."""

    entries: tuple[Entry, ...]
    bad_lines: tuple[BadLine, ...]
    reset: bool
    """True when the file was truncated or replaced and reading started over."""
    bytes_read: int
    pending_bytes: int
    """Bytes of an incomplete last line left for the next call."""


_HEADER_LIMIT = 1 << 20
"""The longest header line read (a header is a few hundred bytes; this bounds a damaged first line)."""


def read_header(source: Path | int) -> dict[str, Any] | None:
    """The session header (first line) of a transcript, or ``None`` when the file is header-less or unreadable.

    ``source`` is a path, or an open descriptor (read with ``pread``; its position is untouched).
    """
    try:
        with reading(source) as fd:
            first = os.pread(fd, 4096, 0)
            if b"\n" not in first and len(first) == 4096:
                first = os.pread(fd, _HEADER_LIMIT, 0)
        obj = orjson.loads(first.partition(b"\n")[0].removeprefix(_BOM))
    except (OSError, orjson.JSONDecodeError):
        return None
    return obj if isinstance(obj, dict) and obj.get("type") == "session" else None


def header_version(header: Mapping[str, Any] | None) -> int:
    """pi's format version of a header: its ``version``, 1 when absent; 3 for header-less files (they carry ids)."""
    if header is None:
        return 3
    version = header.get("version")
    return version if isinstance(version, int) and not isinstance(version, bool) else 1


def last_leaf(entries: list[Entry], by_id: Mapping[str, int] | None = None) -> Entry | None:
    """pi's leaf rule over entries in file (or ``seq``) order: the last one, the header aside, with or without
    an id. One without an id leaves pi with no leaf id: its context still ends there, but its branch is empty
    (docs/pi.md, Context accounting).

    OpenClaw's ``leaf`` entry (written by a rewind) moves the leaf to its ``targetId`` instead; given
    ``by_id``, that target is returned (docs/openclaw.md).
    """
    for entry in reversed(entries):
        if entry.type != "session":
            if entry.type == "leaf" and entry.target_id is not None and by_id is not None:
                index = by_id.get(entry.target_id)
                if index is not None:
                    return entries[index]
            return entry
    return None


class EntryLog:
    """What every transcript reader keeps: entries in file (or ``seq``) order, an id index, the bad lines."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.by_id: dict[str, int] = {}
        self.bad_lines: list[BadLine] = []
        self.parser = EntryParser()

    @property
    def header(self) -> dict[str, Any] | None:
        return self.parser.header

    @property
    def leaf(self) -> Entry | None:
        """pi's leaf: the last entry in file (or ``seq``) order (docs/formats.md, Tree and leaf)."""
        return last_leaf(self.entries, self.by_id)

    def _keep(self, entry: Entry | None, problem: BadLine | None, out: list[Entry], bad: list[BadLine]) -> None:
        """Record one parsed line in the log and in this read's batch."""
        if problem is not None:
            bad.append(problem)
            self.bad_lines.append(problem)
        if entry is not None:
            if entry.id is not None:
                self.by_id[entry.id] = len(self.entries)
            self.entries.append(entry)
            out.append(entry)


class TranscriptReader(EntryLog):
    """An incremental reader of one JSONL transcript.

    Owned by a single follower; the values it hands out (:class:`Entry`, :class:`ReadBatch`) are immutable.
    """

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = Path(path)
        self.offset = 0
        """Byte offset just past the last complete line consumed."""
        self.size = 0
        self.inode: int | None = None
        self.mtime: float | None = None
        self._line_no = 0
        self._scanned = 0
        """Bytes up to here were searched for a newline already (the pending line has none before it)."""

    def renamed(self, to: Path) -> bool:
        """Follow the transcript to ``to`` when it is the same file renamed (same inode): the cursor stays valid.

        OpenClaw archives a transcript on ``/new`` or ``/reset`` by renaming it (docs/formats.md); returns
        False, changing nothing, when ``to`` is a different file.
        """
        try:
            same = self.inode is not None and to.stat().st_ino == self.inode
        except OSError:
            return False
        if same:
            self.path = Path(to)
        return same
    @classmethod
    def resume(
        cls, path: Path, *, offset: int, line_no: int, inode: int, entries: list[Entry], bad_lines: list[BadLine],
        parser: EntryParser,
    ) -> TranscriptReader:
        """A reader that continues at ``offset`` from what an earlier one read (a persistent index restores it).

        The caller vouches that the file's first ``offset`` bytes are the ones those entries came from.
        """
        reader = cls(path)
        reader.offset, reader.size, reader.inode, reader._line_no = offset, offset, inode, line_no
        reader.entries = entries
        reader.by_id = {e.id: i for i, e in enumerate(entries) if e.id is not None}
        reader.bad_lines = bad_lines
        reader.parser = parser
        return reader

    @property
    def line_no(self) -> int:
        """Physical lines consumed so far."""
        return self._line_no

    def _reset(self) -> None:
        self.entries.clear()
        self.by_id.clear()
        self.bad_lines.clear()
        self.parser = EntryParser()
        self.offset = 0
        self._line_no = 0
        self._scanned = 0

    def read_new(self) -> ReadBatch:
        """Parse the complete lines appended since the last call.

        Linear in the bytes appended: a line that spans blocks is read once with one ``pread`` when its
        newline arrives, never by concatenating blocks; a line longer than :data:`MAX_LINE_BYTES` is reported
        as a bad line without being read; holes of a sparse file (which hold no newline) are skipped with
        ``SEEK_DATA``.

        Raises:
            TranscriptError: the file cannot be opened (missing, permissions) or is not a regular file.
        """
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as exc:
            raise TranscriptError(f"cannot read {self.path}: {exc.strerror}") from exc
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise TranscriptError(f"cannot read {self.path}: not a regular file")
            reset = False
            if (self.inode is not None and st.st_ino != self.inode) or st.st_size < self.offset:
                self._reset()
                reset = True
            self.inode, self.size, self.mtime = st.st_ino, st.st_size, st.st_mtime
            start = self.offset
            new_entries: list[Entry] = []
            new_bad: list[BadLine] = []
            try:
                self._scan(fd, st.st_size, new_entries, new_bad)
            except OSError as exc:
                raise TranscriptError(f"{self.path} changed while being read ({exc.strerror or exc})") from exc
        finally:
            os.close(fd)
        return ReadBatch(
            tuple(new_entries), tuple(new_bad), reset, self.offset - start, self.size - self.offset
        )

    def _scan(self, fd: int, size: int, out: list[Entry], bad: list[BadLine]) -> None:
        pos = max(self.offset, self._scanned)
        while pos < size:
            pos = _next_data(fd, pos, size)
            if pos >= size:
                break
            chunk = os.pread(fd, min(_BLOCK, size - pos), pos)
            if not chunk:
                break  # truncated under us: the next call sees the smaller size and starts over
            first = chunk.find(b"\n")
            if first < 0:
                pos += len(chunk)
                continue
            if self.offset < pos:  # the pending line began in an earlier block: read it whole, once
                self._one_line(fd, self.offset, pos + first, out, bad)
                self.offset = pos + first + 1
            last = chunk.rfind(b"\n")
            begin = self.offset - pos
            if last >= begin:
                self._consume(chunk, begin, last + 1, pos, out, bad)
                self.offset = pos + last + 1
            pos += len(chunk)
        self._scanned = pos

    def _one_line(self, fd: int, start: int, end: int, out: list[Entry], bad: list[BadLine]) -> None:
        self._line_no += 1
        length = end - start
        if length > MAX_LINE_BYTES:
            problem = BadLine(self._line_no, start, f"line of {length:,} bytes is over the {MAX_LINE_BYTES:,}-byte "
                                                    "limit; skipped without reading it")
            self._keep(None, problem, out, bad)
            return
        line = os.pread(fd, length, start)
        if len(line) != length:
            raise OSError(f"short read at byte {start}")
        if line.endswith(b"\r"):
            line = line[:-1]
        entry, parsed_problem = self.parser.parse(line, line_no=self._line_no, offset=start)
        self._keep(entry, parsed_problem, out, bad)

    def _consume(self, data: bytes, start: int, end: int, base: int, out: list[Entry], bad: list[BadLine]) -> None:
        parse, keep = self.parser.parse, self._keep
        while start < end:
            nl = data.index(b"\n", start)
            self._line_no += 1
            line = data[start:nl]
            if line.endswith(b"\r"):
                line = line[:-1]
            entry, problem = parse(line, line_no=self._line_no, offset=base + start)
            keep(entry, problem, out, bad)
            start = nl + 1

    def read_object(self, entry: Entry) -> dict[str, Any]:
        """Re-read the full JSON object of ``entry`` from disk (with v1 ids re-applied).

        Raises:
            TranscriptError: the line is gone or no longer parses (file rewritten underneath us).
        """
        try:
            fd = os.open(self.path, os.O_RDONLY)
            try:
                raw = os.pread(fd, entry.length, entry.offset)
            finally:
                os.close(fd)
            if len(raw) != entry.length:
                raise TranscriptError(f"{self.path} changed while being read (line {entry.line_no} is gone: truncated "
                                      "or replaced); run the command again")
            if raw.startswith(_BOM):
                raw = raw[len(_BOM) :]
            try:
                obj = orjson.loads(raw)
            except orjson.JSONDecodeError:
                obj = orjson.loads(raw.decode("utf-8", "replace"))
        except (OSError, orjson.JSONDecodeError) as exc:
            raise TranscriptError(f"line {entry.line_no} of {self.path} could not be re-read: {exc}") from exc
        if not isinstance(obj, dict):
            raise TranscriptError(f"line {entry.line_no} of {self.path} is no longer an object")
        return _with_identity(obj, entry, self.parser.version)


def _with_identity(obj: dict[str, Any], entry: Entry, version: int) -> dict[str, Any]:
    if entry.id is not None and obj.get("id") != entry.id:
        obj = {**obj, "id": entry.id, "parentId": entry.parent_id}
    return migrate_v2_role(obj) if version < 3 else obj


def read_transcript(path: Path) -> TranscriptReader:
    """Read a whole transcript once (the cursor stays usable for later :meth:`~TranscriptReader.read_new`)."""
    reader = TranscriptReader(path)
    reader.read_new()
    return reader
