"""The lines of a JSONL file that hold one of a few byte strings, found by searching the whole file at once.

A usage report needs a fifth of a Claude Code or Codex file's lines: those that hold a call or a compaction. Asking
every line whether it holds such a record takes a Python step per line; here each marker is searched over the whole
buffer in C, and Python only visits the lines it was found in (the search over the bytes bounds both ways: for
Claude Code files they cost about the same, docs/usage.md, Speed). A marker can only be found inside a line: JSON
text holds no raw newline (it is written ``\\n`` in a string).

The lines come numbered, cleaned and parsed as :class:`~engine.agents.jsonl_cursor.JsonlCursor` numbers, cleans
and parses them, so a reader fed from here keeps the values and the resume state it has when fed by the cursor.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from engine.agents.jsonl_cursor import MAX_LINE_BYTES, JsonlCursor, Line, LineProblem, open_regular

__all__ = ["WHOLE_FILE_BYTES", "Deferred", "complete_end", "line_starts", "marked_lines", "marked_objects",
           "parse_line", "read_from", "read_marked"]

WHOLE_FILE_BYTES = 64 << 20
"""Files up to this size (from where reading starts) are read in one go; larger ones through the cursor."""


def read_from(path: Path, start: int) -> bytes | None:
    """The bytes of ``path`` from ``start`` to its end, ``None`` when they are more than :data:`WHOLE_FILE_BYTES`.

    Raises:
        OSError: the file cannot be opened or is not a regular file.
    """
    fd, st = open_regular(path)
    try:
        size = max(0, st.st_size - start)
        return os.pread(fd, size, start) if size <= WHOLE_FILE_BYTES else None
    finally:
        os.close(fd)


def line_starts(data: bytes, markers: tuple[bytes, ...], pos: int = 0) -> list[int]:
    """Where, in ``data``, each complete line at or after ``pos`` (a line start) that holds a marker begins, in
    order. A line is complete when a newline ends it: the text after the last one may still be being written."""
    end = data.rfind(b"\n", pos) + 1
    starts: set[int] = set()
    find, rfind = data.find, data.rfind
    for marker in markers:
        at = find(marker, pos, end)
        while at >= 0:
            begin = rfind(b"\n", pos, at) + 1 or pos
            starts.add(begin)
            at = find(marker, find(b"\n", at, end) + 1, end)  # the next line: one visit per line
    return sorted(starts)


class Deferred(NamedTuple):
    """A line holding only a deferred marker, left unparsed until its reader needs it."""

    line_no: int
    offset: int
    raw: bytes

    def parse(self) -> Line | LineProblem | None:
        return parse_line(self.raw, self.offset, self.line_no)


def marked_lines(data: bytes, markers: tuple[bytes, ...], *, offset: int, line_no: int, pos: int = 0,
                 deferred: tuple[bytes, ...] = ()) -> Iterator[Line | LineProblem | Deferred]:
    """Every complete line of ``data`` from ``pos`` that holds one of ``markers`` or ``deferred``, parsed —
    except those that hold only ``deferred`` ones, given as :class:`Deferred`.

    Args:
        offset: where ``data`` begins in the file (a line start): offsets are the file's.
        line_no: the number of the line before ``pos`` (lines are numbered from 1).
    """
    count = data.count
    before = pos
    starts = line_starts(data, markers, pos)
    later = set(line_starts(data, deferred, pos)).difference(starts) if deferred else set()
    for begin in sorted(later.union(starts)) if later else starts:
        line_no += count(b"\n", before, begin) + 1
        before = data.find(b"\n", begin)
        if begin in later:
            yield Deferred(line_no, offset + begin, data[begin:before])
            before += 1
            continue
        found = parse_line(data[begin:before], offset + begin, line_no)
        before += 1
        if found is not None:
            yield found


def marked_objects(data: bytes, markers: tuple[bytes, ...], *, offset: int, line_no: int,
                   pos: int = 0) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` of every :class:`~engine.agents.jsonl_cursor.Line` :func:`marked_lines` gives
    (its problems and blank lines left out), without building one: for a reader that takes the objects alone, a
    usage report's pass over every Claude Code reply (docs/usage.md, Speed)."""
    count, find, loads = data.count, data.find, orjson.loads
    before = pos
    for begin in line_starts(data, markers, pos):
        line_no += count(b"\n", before, begin) + 1
        before = find(b"\n", begin)
        if offset + begin == 0 or before - begin > MAX_LINE_BYTES:  # a byte-order mark, a line too long: the rules
            found = parse_line(data[begin:before], offset + begin, line_no)
            if isinstance(found, Line):
                yield line_no, found.obj
        else:
            # What parse_line does, in one step: a trailing \r is JSON whitespace to orjson, and a blank line or a
            # line that is not a JSON object is no Line either way.
            try:
                obj = loads(data[begin:before])
            except orjson.JSONDecodeError:
                obj = None
            if type(obj) is dict:
                yield line_no, obj
        before += 1


def parse_line(raw: bytes, at: int, line_no: int) -> Line | LineProblem | None:
    """One line as :class:`~engine.agents.jsonl_cursor.JsonlCursor` reads it (``at``: its offset in the file;
    ``None`` for a blank line)."""
    raw = raw.removesuffix(b"\r")
    if at == 0:
        raw = raw.removeprefix(b"\xef\xbb\xbf")
    if len(raw) > MAX_LINE_BYTES:  # only a file read through the cursor can hold one; kept for the rule
        return LineProblem(line_no, at, f"line over {MAX_LINE_BYTES:,} bytes; skipped")
    if not raw or raw.isspace():  # what `not raw.strip()` tells, without copying the line
        return None
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        return LineProblem(line_no, at, f"invalid JSON: {str(exc).split(':', 1)[0]}")
    if not isinstance(obj, dict):
        return LineProblem(line_no, at, f"not a JSON object ({type(obj).__name__})")
    return Line(line_no, at, len(raw), obj)


def complete_end(data: bytes, pos: int = 0) -> tuple[int, int]:
    """``(index after the last complete line, complete lines from pos)``: where a reading of ``data`` stops."""
    end = data.rfind(b"\n", pos) + 1
    return (end, data.count(b"\n", pos, end)) if end else (pos, 0)


def read_marked(cursor: JsonlCursor, markers: tuple[bytes, ...], deferred: tuple[bytes, ...] = (),
                whole: list[bytes] | None = None) -> tuple[list[Line | LineProblem | Deferred], bool]:
    """What ``cursor.read_new()`` returns when its ``want`` accepts exactly the lines holding one of ``markers``
    or ``deferred``: the same lines, numbers, offsets and resulting cursor position, the file searched at once
    (the lines holding only ``deferred`` ones unparsed, as :class:`Deferred`). A file too large to read in one go
    is read by the cursor itself, every line parsed. ``whole`` receives the file's bytes when they were read
    from its start in one go.

    Raises:
        OSError: the file cannot be opened or is not a regular file.
    """
    fd, st = open_regular(cursor.path)
    try:
        reset = cursor.started_over(st)
        start = 0 if reset else cursor.offset
        data = None if st.st_size - start > WHOLE_FILE_BYTES else os.pread(fd, st.st_size - start, start)
    finally:
        os.close(fd)
    if data is None:
        found, reset = cursor.read_new()
        return list(found), reset
    if reset:
        cursor.offset, cursor.line_no = 0, 0
    cursor.inode, cursor.mtime = st.st_ino, st.st_mtime
    if whole is not None and start == 0:
        whole.append(data)
    lines = list(marked_lines(data, markers, offset=start, line_no=cursor.line_no, deferred=deferred))
    end, count = complete_end(data)
    cursor.offset, cursor.line_no = start + end, cursor.line_no + count
    return lines, reset
