"""Finding a transcript's calls and compactions without parsing every line (``docs/index.md``).

A pi/OpenClaw line names its kind first: ``{"type":"message","id":…,"parentId":…,"timestamp":…,"message":{"role":…``.
The scanner reads that head with a few ``startswith``/``find`` calls — in the compact form JSON.stringify
writes, in the spaced form of Python's ``json.dumps``, or, through a regular expression, with any other
whitespace — and parses a line only when it must:

* a ``compaction`` line is parsed at once (there are few, and they are small);
* an assistant message is only *located* (offset, length): parsing the ~10% of bytes they hold is left to
  :func:`resolve_calls`, which ``report`` calls and ``status`` never needs;
* a line whose head does not have that shape (another key order, escaped names) is parsed whole, so the result
  never depends on formatting. Only JSON with duplicate keys can be read differently: the head takes the first
  ``type``, a JSON parser the last (RFC 8259 leaves duplicates undefined).

Legacy v1 files (no ids) go through the engine's :class:`~engine.stores.transcript.EntryParser`, which gives
their entries the ids pi's migration would.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import orjson

from engine.fs.tail import MAX_LINE_BYTES
from engine.index.records import (
    CompactionRecord,
    HeaderInfo,
    UsageRecord,
    compaction_record,
    header_info,
    record_of,
    usage_record,
)
from engine.stores.transcript import EntryParser

__all__ = ["BLOCK", "Pending", "ScanState", "resolve_calls", "scan_file"]

BLOCK = 1 << 20
"""Bytes read per ``pread``: small enough to stay in the CPU cache while its lines are searched."""
_HEAD = 512
"""How far into a line its kind and role are looked for (ids may be full UUIDs)."""
_BOM = b"\xef\xbb\xbf"

_TYPE_COMPACT = b'{"type":"'
_TYPE_SPACED = b'{"type": "'
_ROLE_COMPACT = b',"message":{"role":"'
_ROLE_SPACED = b', "message": {"role": "'
_TYPE_ANY = re.compile(rb'[ \t\r]*\{[ \t\r]*"type"[ \t\r]*:[ \t\r]*"')
_ROLE_ANY = re.compile(rb',[ \t\r]*"message"[ \t\r]*:[ \t\r]*\{[ \t\r]*"role"[ \t\r]*:[ \t\r]*"')

Pending = tuple[int, int, int]
"""An assistant line found but not parsed yet: ``(offset, length, line)``."""


@dataclass
class ScanState:
    """What the scan of one transcript has learned so far; extended in place as the file grows."""

    offset: int = 0
    """Bytes consumed: the end of the last complete line read."""
    line_no: int = 0
    """Physical lines consumed (blank ones included: line numbers match the full reader's)."""
    lines: int = 0
    """Non-blank lines consumed: the entries, the header, and any malformed line."""
    header: HeaderInfo | None = None
    """``None`` until the first line has been read."""
    calls: list[UsageRecord] = field(default_factory=list)
    compactions: list[CompactionRecord] = field(default_factory=list)
    pending: list[Pending] = field(default_factory=list)
    bad_lines: int = 0
    """Lines that were parsed and were not JSON objects (lines never parsed are not checked)."""
    parser: EntryParser | None = None
    """The migrating parser of a v1 file (kept in memory only: a v1 file that grows is scanned again)."""
    parse_calls: bool = False
    """Parse assistant lines while scanning (a report wants them now) instead of only locating them."""

    @property
    def legacy(self) -> bool:
        return self.header is not None and self.header.version == 1


def _loads(raw: bytes) -> object:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        try:
            return orjson.loads(raw.decode("utf-8", "replace"))
        except orjson.JSONDecodeError:
            return None


def _parse_whole(state: ScanState, raw: bytes, line: int) -> None:
    obj = _loads(raw)
    if not isinstance(obj, dict):
        state.bad_lines += 1
        return
    record = record_of(obj, line=line)
    if isinstance(record, UsageRecord):
        state.calls.append(record)
    elif isinstance(record, CompactionRecord):
        state.compactions.append(record)


def _legacy_line(state: ScanState, raw: bytes, line: int, offset: int) -> None:
    assert state.parser is not None
    entry, problem = state.parser.parse(raw, line_no=line, offset=offset)
    if problem is not None and not problem.recovered:
        state.bad_lines += 1
    if entry is None:
        return
    compaction = compaction_record(entry)
    if compaction is not None:
        state.compactions.append(compaction)
        return
    if entry.role == "assistant":
        obj = _loads(raw)
        message = obj.get("message") if isinstance(obj, dict) else None
        call = usage_record(entry, message if isinstance(message, dict) else None)
        if call is not None:
            state.calls.append(call)


def _first_line(state: ScanState, raw: bytes, line: int) -> None:
    obj = _loads(raw.removeprefix(_BOM))
    state.header = header_info(obj)
    if state.legacy:
        state.parser = EntryParser()
        state.parser.parse(raw, line_no=line, offset=0)
    elif state.header.headerless:
        _parse_whole(state, raw.removeprefix(_BOM), line)


def _head_limit(s: int, stop: int) -> int:
    return stop if stop - s < _HEAD else s + _HEAD


def _plain_string(data: bytes | bytearray, k: int, stop: int) -> bool:
    """Whether the JSON string starting at ``k`` (after its quote) closes within 64 bytes without escapes."""
    q = data.find(b'"', k, min(stop, k + 64))
    return q >= 0 and data.find(b"\\", k, q) < 0


def _role_at(data: bytes | bytearray, s: int, k: int, stop: int) -> int:
    """Where the ``role`` value of a message line starts, or -1 when the head has another shape.

    The ``message`` key must be an entry-level key: no object may open between the line start and it (a ``{``
    inside an id only sends the line to the whole-line parse).
    """
    limit = _head_limit(s, stop)
    found = data.find(_ROLE_COMPACT, k, limit)
    if found >= 0:
        start = found + len(_ROLE_COMPACT)
    else:
        found = data.find(_ROLE_SPACED, k, limit)
        if found >= 0:
            start = found + len(_ROLE_SPACED)
        else:
            match = _ROLE_ANY.search(data, k, limit)
            if match is None:
                return -1
            found, start = match.start(), match.end()
    return start if data.find(b"{", s + 1, found) < 0 else -1


def _scan_block(state: ScanState, data: bytes | bytearray, start: int, end: int, base: int) -> None:
    """Consume the complete lines ``data[start:end]`` (``end`` just past a newline); ``base`` is the file offset
    of ``data[0]``.

    The hot loop of indexing: one ``find`` for the newline and two or three ``startswith``/``find`` calls on the
    head of each line; a line is copied only when it is parsed.
    """
    find, starts = data.find, data.startswith
    s = start
    line = state.line_no
    lines = state.lines
    pending = state.pending
    legacy = state.legacy
    parse_calls = state.parse_calls
    while s < end:
        e = find(b"\n", s, end)
        line += 1
        stop = e - 1 if e > s and data[e - 1] == 13 else e  # one "\r" before the newline (CRLF files)
        # Lines open with "{"; only another first byte can be a blank line, so only then is it copied.
        if stop <= s or (data[s] != 123 and not data[s:stop].strip()):
            s = e + 1
            continue
        lines += 1
        if state.header is None:
            _first_line(state, bytes(data[s:stop]), line)
            legacy = state.legacy
        elif legacy:
            _legacy_line(state, bytes(data[s:stop]), line, base + s)
        else:
            if starts(_TYPE_COMPACT, s):
                k = s + len(_TYPE_COMPACT)
            elif starts(_TYPE_SPACED, s):
                k = s + len(_TYPE_SPACED)
            else:
                match = _TYPE_ANY.match(data, s, _head_limit(s, stop))
                k = match.end() if match else -1
            if k < 0:
                _parse_whole(state, bytes(data[s:stop]), line)
            elif starts(b'message"', k):
                r = _role_at(data, s, k, stop)
                if r < 0:
                    _parse_whole(state, bytes(data[s:stop]), line)
                elif starts(b'assistant"', r):
                    if parse_calls:
                        _parse_whole(state, bytes(data[s:stop]), line)
                    else:
                        pending.append((base + s, stop - s, line))
                elif not (starts(b'toolResult"', r) or starts(b'user"', r) or _plain_string(data, r, stop)):
                    _parse_whole(state, bytes(data[s:stop]), line)  # an escaped role: let the parser decide
            elif starts(b'compaction"', k) or not _plain_string(data, k, stop):
                _parse_whole(state, bytes(data[s:stop]), line)
        s = e + 1
    state.line_no = line
    state.lines = lines
    state.offset = base + end


def _skip_line(state: ScanState, end: int) -> None:
    """Consume one over-long line ending just before file offset ``end`` as a bad line, unread."""
    state.line_no += 1
    state.lines += 1
    state.bad_lines += 1
    state.offset = end


def scan_file(fd: int, state: ScanState, size: int, *, block: int = BLOCK) -> int:
    """Consume the complete lines of ``fd`` between ``state.offset`` and ``size``; returns the bytes consumed.

    A trailing line without its newline (an agent mid-write) is left for the next scan. Blocks are read into one
    reused buffer; a line that straddles two blocks is joined on its own, so no byte is copied twice. A line
    longer than :data:`MAX_LINE_BYTES` is counted as a bad line and never held (a sparse file's hole reads as
    one line of gigabytes of NULs), so memory stays bounded by that limit.

    Raises:
        OSError: the file cannot be read, or it shrank below ``size`` while being read.
    """
    start = state.offset
    pos = start
    buffer = bytearray(min(block, max(size - pos, 1)))
    view = memoryview(buffer)
    pieces: list[bytes] = []
    held = 0
    overlong = False
    try:
        while pos < size:
            want = min(len(buffer), size - pos)
            got = os.preadv(fd, [view[:want]], pos)
            if got <= 0:
                raise OSError(f"file shrank while indexing (expected {size} bytes, got {pos})")
            data = buffer if got == len(buffer) else buffer[:got]
            pos += got
            first = data.find(b"\n", 0, got)
            if first < 0:
                held += got
                if held > MAX_LINE_BYTES:
                    overlong, pieces = True, []
                elif not overlong:
                    pieces.append(bytes(data[:got]))  # one long line: joined once when its newline arrives
                continue
            if overlong or held + first > MAX_LINE_BYTES:
                _skip_line(state, pos - got + first + 1)
                overlong, pieces = False, []
                lead = first + 1
            elif pieces:
                joined = b"".join([*pieces, bytes(data[: first + 1])])
                pieces = []
                _scan_block(state, joined, 0, len(joined), state.offset)
                lead = first + 1
            else:
                lead = 0
            cut = data.rfind(b"\n", 0, got)
            if cut >= lead:
                _scan_block(state, data, lead, cut + 1, pos - got)
            held = got - cut - 1
            if cut + 1 < got:
                pieces.append(bytes(data[cut + 1 : got]))
    finally:
        view.release()
    return state.offset - start


def resolve_calls(fd: int, pending: Iterable[Pending]) -> tuple[list[UsageRecord], list[CompactionRecord], int]:
    """Parse the located assistant lines: ``(calls, compactions, bad lines)``.

    A located line that turns out not to be a call (a message with zero usage, OpenClaw's mirror) yields
    nothing. ``compactions`` is empty unless a hostile line fooled the head check.

    Raises:
        OSError: a line can no longer be read in full (the file was truncated or replaced).
    """
    calls: list[UsageRecord] = []
    compactions: list[CompactionRecord] = []
    bad = 0
    for offset, length, line in pending:
        raw = os.pread(fd, length, offset)
        if len(raw) != length:
            raise OSError(f"line {line} is no longer in the file")
        obj = _loads(raw)
        if not isinstance(obj, dict):
            bad += 1
            continue
        record = record_of(obj, line=line)
        if isinstance(record, UsageRecord):
            calls.append(record)
        elif isinstance(record, CompactionRecord):
            compactions.append(record)
    return calls, compactions, bad
