"""Counting a byte pattern in a file through a descriptor, block by block, without holding the file.

Used where a figure needs the whole file but no parsing: compaction lines for ``status`` (:mod:`engine.session.glance`)
and the line number of a v1 leaf (:mod:`engine.session.quick_gauge`). ``bytes.count`` runs at memory speed; reading the
blocks with ``pread`` leaves the descriptor's position alone, so one descriptor serves a whole glance.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator

__all__ = ["count_in_file", "find_in_file"]

BLOCK = 4 << 20
_SEEK_DATA = getattr(os, "SEEK_DATA", None)


def _next_data(fd: int, pos: int, end: int) -> int:
    if _SEEK_DATA is None:
        return pos
    try:
        return min(end, os.lseek(fd, pos, _SEEK_DATA))
    except OSError as exc:
        return end if exc.errno == errno.ENXIO else pos


def count_in_file(fd: int, needle: bytes, end: int, *, block: int = BLOCK) -> int:
    """Non-overlapping occurrences of ``needle`` in the first ``end`` bytes of ``fd``.

    An occurrence split across two blocks is counted once. A file shorter than ``end`` is counted to its end.

    Raises:
        OSError: the file cannot be read.
        ValueError: ``needle`` is empty or all zero bytes, or ``block`` < 1.
    """
    if not needle.strip(b"\0"):
        raise ValueError("needle must hold a non-zero byte")
    if block < 1:
        raise ValueError(f"block must be >= 1, got {block}")
    keep = len(needle) - 1
    count = 0
    pos = 0
    carry = b""
    while pos < end:
        data_at = _next_data(fd, pos, end)
        if data_at != pos:  # a hole of a sparse file: zeros, which hold no needle (it has a non-zero byte)
            pos, carry = data_at, b""
            if pos >= end:
                break
        chunk = os.pread(fd, min(block, end - pos), pos)
        if not chunk:
            break
        data = carry + chunk if carry else chunk
        found = data.count(needle)
        count += found
        # Keep the bytes a split occurrence could start in, but none of a match already counted.
        start = max(0, len(data) - keep)
        if found:
            start = max(start, data.rfind(needle) + len(needle))
        carry = data[start:]
        pos += len(chunk)
    return count


def find_in_file(fd: int, needle: bytes, end: int, *, block: int = BLOCK) -> Iterator[int]:
    """Offsets of the non-overlapping occurrences of ``needle`` in the first ``end`` bytes of ``fd``, in order.

    Same block reading as :func:`count_in_file`; the search per block is ``bytes.find`` (memory speed), so a
    needle that rarely occurs costs what counting it costs.

    Raises:
        OSError: the file cannot be read.
        ValueError: ``needle`` is empty or ``block`` < 1.
    """
    if not needle:
        raise ValueError("needle must not be empty")
    if block < 1:
        raise ValueError(f"block must be >= 1, got {block}")
    keep = len(needle) - 1
    pos = 0
    carry = b""
    while pos < end:
        chunk = os.pread(fd, min(block, end - pos), pos)
        if not chunk:
            break
        data = carry + chunk if carry else chunk
        base = pos - len(carry)
        at = data.find(needle)
        last_end = 0
        while at >= 0:
            yield base + at
            last_end = at + len(needle)
            at = data.find(needle, last_end)
        carry = data[max(last_end, len(data) - keep) :]
        pos += len(chunk)
