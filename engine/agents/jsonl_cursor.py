"""An incremental, read-only cursor over a JSONL file: complete lines appended since the last call.

Opened ``O_RDONLY`` and read with ``pread``; nothing is ever written. A trailing partial line (the agent
mid-write) is left for the next call; a file that shrank or was replaced starts over (``reset``).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

__all__ = ["JsonlCursor", "Line", "LineProblem", "open_regular"]


def open_regular(path: Path) -> tuple[int, os.stat_result]:
    """A read-only descriptor on ``path`` and its status (never blocking on a FIFO, never inherited).

    Raises:
        OSError: the file cannot be opened or is not a regular file.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise OSError(f"{path}: not a regular file")
    return fd, st

_BLOCK = 1 << 20
MAX_LINE_BYTES = 64 << 20
"""A longer line is reported, not read (the limit pi and OpenClaw transcripts get too)."""


@dataclass(frozen=True, slots=True)
class Line:
    """One complete line that parsed as a JSON object."""

    line_no: int
    offset: int
    length: int
    obj: dict[str, Any]


@dataclass(frozen=True, slots=True)
class LineProblem:
    """A line that did not parse as a JSON object."""

    line_no: int
    offset: int
    reason: str


class JsonlCursor:
    """Where reading one file stopped: offset, line number and the file's identity."""

    def __init__(self, path: Path, want: Callable[[bytes], bool] | None = None) -> None:
        """``want``: parse only the lines it accepts (the raw bytes); the others are counted, never parsed —
        a usage report needs a tenth of a Claude Code file's lines (docs/usage.md)."""
        self.path = path if isinstance(path, Path) else Path(path)  # a Path again costs 5 µs a file
        self.want = want
        self.offset = 0
        self.line_no = 0
        self.inode: int | None = None
        self.mtime: float | None = None

    def started_over(self, st: os.stat_result) -> bool:
        """Whether the file ``st`` describes is not the one read so far: replaced (another inode) or truncated."""
        return (self.inode is not None and st.st_ino != self.inode) or st.st_size < self.offset

    def read_new(self) -> tuple[list[Line | LineProblem], bool]:
        """The lines appended since the last call and whether the file started over (truncated or replaced).

        Raises:
            OSError: the file cannot be opened or is not a regular file.
        """
        fd, st = open_regular(self.path)
        try:
            reset = self.started_over(st)
            if reset:
                self.offset, self.line_no = 0, 0
            self.inode, self.mtime = st.st_ino, st.st_mtime
            return list(self._lines(fd, st.st_size)), reset
        finally:
            os.close(fd)

    def read_lazily(self) -> Iterator[Line | LineProblem]:
        """The lines appended since the last call, each parsed when the caller reaches it (so a ``want`` may
        depend on the lines before). The file is read from the start when it shrank or was replaced.

        Raises:
            OSError: the file cannot be opened or is not a regular file.
        """
        fd, st = open_regular(self.path)
        try:
            if self.started_over(st):
                self.offset, self.line_no = 0, 0
            self.inode, self.mtime = st.st_ino, st.st_mtime
            yield from self._lines(fd, st.st_size)
        finally:
            os.close(fd)

    def _lines(self, fd: int, size: int) -> Iterator[Line | LineProblem]:
        pending = b""
        start = self.offset
        pos = self.offset
        while pos < size:
            chunk = os.pread(fd, min(_BLOCK, size - pos), pos)
            if not chunk:
                break
            pos += len(chunk)
            data = pending + chunk
            parts = data.split(b"\n")  # in C: the loop below only walks the lines
            pending = parts.pop()
            want = self.want
            for raw in parts:
                begin, start = start, start + len(raw) + 1
                if want is not None and not want(raw):
                    self.line_no += 1  # counted, never parsed (the rule _parse applies, without the call)
                    continue
                item = self._parse(raw, begin)
                if item is not None:
                    yield item
            self.offset = start
            if len(pending) > MAX_LINE_BYTES:
                # Skip to the next newline without keeping the line.
                nl = _find_newline(fd, pos, size)
                if nl < 0:
                    return
                self.line_no += 1
                yield LineProblem(self.line_no, start, f"line over {MAX_LINE_BYTES:,} bytes; skipped")
                start = pos = self.offset = nl + 1
                pending = b""

    def _parse(self, raw: bytes, offset: int) -> Line | LineProblem | None:
        self.line_no += 1
        raw = raw.removesuffix(b"\r")
        if offset == 0:
            raw = raw.removeprefix(b"\xef\xbb\xbf")
        if not raw.strip() or (self.want is not None and not self.want(raw)):
            return None
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            return LineProblem(self.line_no, offset, f"invalid JSON: {str(exc).split(':', 1)[0]}")
        if not isinstance(obj, dict):
            return LineProblem(self.line_no, offset, f"not a JSON object ({type(obj).__name__})")
        return Line(self.line_no, offset, len(raw), obj)


def _find_newline(fd: int, pos: int, size: int) -> int:
    while pos < size:
        chunk = os.pread(fd, min(_BLOCK, size - pos), pos)
        if not chunk:
            return -1
        nl = chunk.find(b"\n")
        if nl >= 0:
            return pos + nl
        pos += len(chunk)
    return -1
