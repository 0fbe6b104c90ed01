"""count_in_file against bytes.count on the whole content, for every way a block boundary can split a match."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.fs.byte_count import count_in_file

NEEDLE = b'\n{"type":"compaction","id":"'


def _count(data: bytes, needle: bytes, block: int, end: int | None = None) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "f"
        path.write_bytes(data)
        fd = os.open(path, os.O_RDONLY)
        try:
            return count_in_file(fd, needle, len(data) if end is None else end, block=block)
        finally:
            os.close(fd)


@settings(max_examples=200, deadline=None)
@given(
    pieces=st.lists(st.sampled_from([NEEDLE, b"x", b"\n", b'{"type":"message"', NEEDLE[:9], NEEDLE[9:]]), max_size=40),
    block=st.integers(min_value=1, max_value=64),
)
def test_counts_like_bytes_count_whatever_the_block_size(pieces: list[bytes], block: int) -> None:
    data = b"".join(pieces)
    assert _count(data, NEEDLE, block) == data.count(NEEDLE)


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=80), needle=st.sampled_from([b"aa", b"aba", b"\n", b"abab"]),
       block=st.integers(min_value=1, max_value=16))
def test_self_overlapping_needles_are_counted_without_overlap(data: bytes, needle: bytes, block: int) -> None:
    data = data.replace(b"\x00", b"a").replace(b"\x01", b"b")  # make matches likely
    assert _count(data, needle, block) == data.count(needle)


def test_end_bounds_the_count_and_a_short_file_stops_early() -> None:
    data = b"a\nb\nc\n"
    assert _count(data, b"\n", 2, end=3) == 1
    assert _count(data, b"\n", 4, end=1000) == 3


def test_an_empty_needle_is_refused() -> None:
    with pytest.raises(ValueError, match="needle"):
        _count(b"abc", b"", 4)
