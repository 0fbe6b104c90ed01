"""Reading lines backwards: equals a forward split for any bytes and block size; huge lines read once."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.fs.tail import iter_lines_backward, last_entry
from engine.stores.transcript import read_transcript
from tests.conftest import MAIN_SESSION
from tests.engine._transcripts import HEADER, line, user


def forward(data: bytes) -> list[tuple[int, bytes]]:
    """The reference: complete lines split forwards, one trailing CR stripped, empties dropped, reversed."""
    out: list[tuple[int, bytes]] = []
    pos = 0
    while (nl := data.find(b"\n", pos)) >= 0:
        text = data[pos:nl].removesuffix(b"\r")
        if text:
            out.append((pos, text))
        pos = nl + 1
    return out[::-1]


short_line = st.lists(st.sampled_from([b"a", b"{", b"\r", b" ", b"\xe2\x82\xac", b"\xff"]), max_size=12).map(
    b"".join
)
long_line = st.binary(min_size=50, max_size=400).map(lambda b: b.replace(b"\n", b"."))
lines = st.lists(st.tuples(st.one_of(short_line, long_line), st.sampled_from([b"\n", b"\r\n"])), max_size=25)
partial = st.one_of(st.just(b""), st.binary(max_size=60).map(lambda b: b.replace(b"\n", b"")))


@settings(max_examples=300, deadline=None)
@given(lines=lines, tail=partial, block=st.sampled_from([1, 2, 3, 7, 64, 65536]), data=st.data())
def test_backward_lines_equal_forward_split_reversed(
    tmp_path_factory: pytest.TempPathFactory, lines: list[tuple[bytes, bytes]], tail: bytes, block: int,
    data: st.DataObject,
) -> None:
    content = b"".join(text + eol for text, eol in lines) + tail
    path = tmp_path_factory.mktemp("tail") / "t.jsonl"
    path.write_bytes(content)
    assert list(iter_lines_backward(path, block=block)) == forward(content)
    end = data.draw(st.integers(0, len(content)))
    assert list(iter_lines_backward(path, end=end, block=block)) == forward(content[:end])


def test_descriptor_is_left_open_and_unmoved(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"one\ntwo\r\n\nthree")
    fd = os.open(path, os.O_RDONLY)
    try:
        os.lseek(fd, 2, os.SEEK_SET)
        assert list(iter_lines_backward(fd, block=3)) == [(4, b"two"), (0, b"one")]
        assert os.lseek(fd, 0, os.SEEK_CUR) == 2
    finally:
        os.close(fd)


def test_fifty_megabyte_line_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big = b'{"type":"custom","id":"big","data":"' + b"x" * (50 << 20) + b'"}'
    content = b'{"type":"session","version":3,"id":"s"}\n' + big + b"\r\n" + b'{"id":"z","type":"t"}\n' + b'{"par'
    path = tmp_path / "big.jsonl"
    path.write_bytes(content)
    read = 0
    real_pread = os.pread

    def counting_pread(fd: int, n: int, offset: int) -> bytes:
        nonlocal read
        read += n
        return real_pread(fd, n, offset)

    monkeypatch.setattr(os, "pread", counting_pread)
    got = list(iter_lines_backward(path))
    assert [(offset, len(text)) for offset, text in got] == [
        (content.index(b'{"id":"z"'), 21), (content.index(big), len(big)), (0, 39)
    ]
    assert got[1][1] == big
    assert read == len(content)  # every byte once: no quadratic re-reading around the long line


def test_block_must_be_positive(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"a\n")
    with pytest.raises(ValueError):
        list(iter_lines_backward(path, block=0))


def test_last_entry_is_the_reader_leaf_on_the_real_fixture() -> None:
    leaf = read_transcript(MAIN_SESSION).leaf
    assert leaf is not None
    found = last_entry(MAIN_SESSION)
    assert found is not None
    assert (found[0], found[1]["id"]) == (leaf.offset, leaf.id)


def test_last_entry_skips_malformed_and_non_entry_lines(tmp_path: Path) -> None:
    e1, e2 = user("e1", None, "a"), user("e2", "e1", "b")
    head = line(HEADER) + line(e1) + line(e2)
    junk = b'{"bad\n[1,2]\n{"type":"custom"}\n{"id":5,"type":"x"}\n"id"\n\n\r\n{"type":"session","id":"s2"}\n'
    path = tmp_path / "t.jsonl"
    path.write_bytes(head + junk + b'{"type":"message","id":"zz","parentId":"e2"')
    found = last_entry(path)
    assert found == (len(line(HEADER) + line(e1)), orjson.loads(line(e2)))


def test_last_entry_of_header_only_or_empty_file_is_none(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(line(HEADER))
    assert last_entry(path) is None
    path.write_bytes(b"")
    assert last_entry(path) is None


def test_last_entry_reads_crlf_and_a_bom_on_the_first_line(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + orjson.dumps(user("only", None, "x")) + b"\r\n")
    found = last_entry(path)
    assert found is not None
    assert found[0] == 0
    assert found[1]["id"] == "only"
