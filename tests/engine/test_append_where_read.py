"""Appending to another program's file only where ctxscope finished reading it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.fs.append_where_read import append_where_read


def _open(path: Path) -> int:
    return os.open(path, os.O_RDWR | os.O_APPEND)


def test_appends_after_exactly_what_was_read(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"a":1}\n')
    inode, size = path.stat().st_ino, path.stat().st_size
    fd = _open(path)
    try:
        assert append_where_read(fd, path, inode, size, b'{"b":2}\n') == 8
    finally:
        os.close(fd)
    assert path.read_bytes() == b'{"a":1}\n{"b":2}\n'


@pytest.mark.parametrize("change", ["grew", "replaced", "partial line"])
def test_refuses_and_writes_nothing_when_the_file_moved_on(tmp_path: Path, change: str) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"a":1}\n')
    inode, size = path.stat().st_ino, path.stat().st_size
    if change == "grew":
        with path.open("ab") as f:
            f.write(b'{"agent":"wrote"}\n')
    elif change == "replaced":
        other = tmp_path / "other"
        other.write_bytes(b'{"a":1}\n')
        other.replace(path)
    else:
        path.write_bytes(b'{"a":1')
        size = path.stat().st_size
    before = path.read_bytes()
    fd = _open(path)
    try:
        with pytest.raises(ValueError, match="changed while the compaction was prepared"):
            append_where_read(fd, path, inode, size, b'{"b":2}\n')
    finally:
        os.close(fd)
    assert path.read_bytes() == before
