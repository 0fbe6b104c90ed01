"""Counting a byte pattern in a file through a descriptor, block by block, without holding the file.

Used where a figure needs the whole file but no parsing: compaction lines for ``status`` (:mod:`engine.session.glance`)
and the line number of a v1 leaf (:mod:`engine.session.quick_gauge`). ``bytes.count`` runs at memory speed; reading the
blocks with ``pread`` leaves the descriptor's position alone, so one descriptor serves a whole glance.
"""

from __future__ import annotations

import os

__all__ = ["count_in_file"]

BLOCK = 4 << 20


def count_in_file(fd: int, needle: bytes, end: int, *, block: int = BLOCK) -> int:
    """Non-overlapping occurrences of ``needle`` in the first ``end`` bytes of ``fd``.

    An occurrence split across two blocks is counted once. A file shorter than ``end`` is counted to its end.

    Raises:
        OSError: the file cannot be read.
        ValueError: ``needle`` is empty or ``block`` < 1.
    """
    if not needle:
        raise ValueError("needle must not be empty")
    if block < 1:
        raise ValueError(f"block must be >= 1, got {block}")
    keep = len(needle) - 1
    count = 0
    pos = 0
    carry = b""
    while pos < end:
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
