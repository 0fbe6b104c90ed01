"""Reading complete JSONL lines backwards from the end of a file, without reading it whole.

The scan walks fixed-size blocks towards the start with ``os.pread`` and ``rfind(b"\\n")`` (toolong's
approach, but with ``pread`` instead of ``mmap``: a live transcript may be truncated or replaced under us,
and a truncated mapping raises SIGBUS where ``pread`` just returns short). Every byte is read once; a line
longer than a block is gathered from its pieces and joined once, so a 50 MB line costs 50 MB, not blocks².
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson

__all__ = ["Source", "iter_lines_backward", "last_entry", "reading"]

_BOM = b"\xef\xbb\xbf"
MAX_LINE_BYTES = 64 << 20
"""Lines longer than this are skipped, never gathered (the same limit as the forward reader's)."""

Source = int | str | os.PathLike[str]


def iter_lines_backward(
    fd_or_path: Source, end: int | None = None, block: int = 65536
) -> Iterator[tuple[int, bytes]]:
    """Yield ``(offset, line)`` for every complete, non-empty line, last line first.

    A line is complete when a ``"\\n"`` follows it; a trailing partial line (an agent mid-write) is skipped, and
    so is a line longer than :data:`MAX_LINE_BYTES` (memory stays bounded by it).
    One ``"\\r"`` before the newline is stripped; lines empty after that are skipped.

    Args:
        fd_or_path: an open file descriptor (not closed, its position untouched) or a path (opened and
            closed here).
        end: treat the file as ending at this byte offset (default: its current size).
        block: bytes read per ``pread``.

    Raises:
        OSError: the file cannot be read, or it shrank below ``end`` while being read.
        ValueError: ``block`` < 1 or ``end`` < 0.
    """
    if block < 1:
        raise ValueError(f"block must be >= 1, got {block}")
    if end is not None and end < 0:
        raise ValueError(f"end must be >= 0, got {end}")
    with reading(fd_or_path) as fd:
        yield from _iter_fd(fd, end, block)


@contextmanager
def reading(source: Source) -> Iterator[int]:
    """A descriptor to read ``source`` through: ``source`` itself (left open), or a path opened and closed here.

    Raises:
        OSError: the path cannot be opened.
    """
    if isinstance(source, int):
        yield source
        return
    fd = os.open(source, os.O_RDONLY | os.O_CLOEXEC)
    try:
        yield fd
    finally:
        os.close(fd)


def _iter_fd(fd: int, end: int | None, block: int) -> Iterator[tuple[int, bytes]]:
    size = os.fstat(fd).st_size
    pos = size if end is None else min(end, size)
    line_end: int | None = None
    """Absolute offset of the newline that ends the line being gathered (None: still in the partial tail)."""
    pieces: list[bytes] = []
    """Parts of that line read from later blocks, latest first."""
    gathered = 0
    """Bytes in ``pieces``; past :data:`MAX_LINE_BYTES` the line is dropped (skipped, like a bad line)."""
    while pos > 0:
        start = max(0, pos - block)
        chunk = os.pread(fd, pos - start, start)
        if len(chunk) != pos - start:
            raise OSError(f"file shrank while reading backwards (wanted {pos - start} bytes at {start})")
        hi = len(chunk)
        while (nl := chunk.rfind(b"\n", 0, hi)) >= 0:
            if line_end is not None and gathered <= MAX_LINE_BYTES:
                line = _join(chunk[nl + 1 : hi], pieces)
                if line:
                    yield start + nl + 1, line
            line_end = start + nl
            pieces, gathered = [], 0
            hi = nl
        if line_end is not None and hi:
            gathered += hi
            if gathered <= MAX_LINE_BYTES:
                pieces.append(chunk[:hi])
            else:
                pieces = []  # too long to keep: skipped when its start is found
        pos = start
    if line_end is not None and gathered <= MAX_LINE_BYTES:
        line = _join(b"", pieces)
        if line:
            yield 0, line


def _join(head: bytes, pieces: list[bytes]) -> bytes:
    line = b"".join([head, *reversed(pieces)]) if pieces else head
    return line[:-1] if line.endswith(b"\r") else line


def last_entry(fd_or_path: Source, end: int | None = None) -> tuple[int, dict[str, Any]] | None:
    """The current leaf by pi's rule: the last complete line that is an entry (docs/formats.md, Tree and leaf).

    An entry is a JSON object with a string ``id`` and a ``type`` other than ``session``; malformed lines
    and other objects are skipped. Returns ``(offset, object)`` or None when the file has no entry.

    Raises:
        OSError: the file cannot be read.
    """
    for offset, line in iter_lines_backward(fd_or_path, end):
        if offset == 0 and line.startswith(_BOM):
            line = line[len(_BOM) :]
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(obj, dict) and isinstance(obj.get("id"), str) and obj.get("type") != "session":
            return offset, obj
    return None
