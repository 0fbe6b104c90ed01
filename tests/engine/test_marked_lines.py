"""The whole-file marker search (engine/agents/marked_lines.py) finds exactly the lines the cursor's line-by-line
filter finds, numbered, cleaned and parsed alike, and leaves the cursor where the cursor would stop — on hostile
bytes too (docs/usage.md, Speed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.agents import marked_lines as marked_lines_module
from engine.agents.jsonl_cursor import JsonlCursor, Line
from engine.agents.marked_lines import Deferred, line_starts, marked_lines, marked_objects, read_marked

MARKERS = (b'"usage"', b"compact_boundary", b"\\u")

HOSTILE = b"".join([
    b'\xef\xbb\xbf{"type": "assistant", "message": {"usage": {"input_tokens": 1}}}\r\n',  # BOM, CRLF
    b"\n",
    b'{"type": "user", "message": {"content": "say \\"usage\\" twice: \\"usage\\""}}\n',  # quoted in user text
    b'{"type": "user", "message": {"content": "a \\"usage\\": here"}, "usage": 1}\n',
    b'{"type": "system", "subtype": "compact_boundary", "usage": {}, "note": "both markers"}\n',
    b'{"type": "assistant", "message": {"usage": {"input_tokens": 2}}\n',  # torn: the record's end is missing
    b'{"type": "assistant", "message": {"usage": \xff\xfe "not utf-8"}}\n',  # non-UTF-8 bytes
    b'["usage", "a list, not an object"]\n',
    b"   \r\n",
    b'{"\\u0075sage": {"input_tokens": 3}}\n',  # an escaped key
    b'{"type": "user", "message": {"content": "nothing to see"}}\n',
    b'"usage"\n',
    b'{"type": "assistant", "message": {"usage": {"input_tokens": 4}}}',  # being written: no newline yet
])


def _by_cursor(path: Path, offset: int = 0, line_no: int = 0) -> tuple[list[object], int, int]:
    cursor = JsonlCursor(path, lambda raw: any(m in raw for m in MARKERS))
    cursor.offset, cursor.line_no = offset, line_no
    lines, _ = cursor.read_new()
    return list(lines), cursor.offset, cursor.line_no


def _by_search(path: Path, offset: int = 0, line_no: int = 0) -> tuple[list[object], int, int]:
    cursor = JsonlCursor(path)
    cursor.offset, cursor.line_no = offset, line_no
    lines, _ = read_marked(cursor, MARKERS)
    return list(lines), cursor.offset, cursor.line_no


def test_the_search_finds_what_the_cursor_filter_finds_on_hostile_lines(tmp_path: Path) -> None:
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(HOSTILE)
    found = _by_search(path)
    assert found == _by_cursor(path)
    kinds = [type(x).__name__ for x in found[0]]
    # The BOM line, the line with the key (not the one quoting the word in its text: `\"usage\"` is no marker),
    # the boundary; the torn, non-UTF-8 and list lines as problems; the escaped key; the bare string; never the
    # line still being written.
    assert kinds == ["Line", "Line", "Line", "LineProblem", "LineProblem", "LineProblem", "Line", "LineProblem"]
    assert found[1] == HOSTILE.rfind(b"\n") + 1 and found[2] == HOSTILE.count(b"\n")


def test_the_search_resumes_mid_file_with_the_cursors_numbers(tmp_path: Path) -> None:
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(HOSTILE)
    for cut in range(1, HOSTILE.count(b"\n")):
        offset = [i for i, b in enumerate(HOSTILE) if b == 0x0A][cut - 1] + 1
        assert _by_search(path, offset, cut) == _by_cursor(path, offset, cut)


def test_a_line_with_several_markers_is_found_once_in_file_order() -> None:
    data = b'{"a": "usage"}\n{"usage": 1, "b": "compact_boundary", "c": "\\u0041"}\n{"x": 1}\n{"usage": 2}\n'
    last = len(data) - 13
    assert line_starts(data, MARKERS) == [0, 15, last]  # a marker as a value is found too: the parse decides
    lines = list(marked_lines(data, MARKERS, offset=100, line_no=7))
    assert [(x.line_no, x.offset) for x in lines if isinstance(x, Line)] == [(8, 100), (9, 115), (11, 100 + last)]


def test_deferred_lines_are_those_holding_only_a_deferred_marker() -> None:
    data = b'{"t": "token_count"}\n{"t": "token_count", "usage": 1}\n{"u": 2}\n'
    found = list(marked_lines(data, (b'"usage"',), offset=0, line_no=0, deferred=(b'"token_count"',)))
    assert isinstance(found[0], Deferred) and found[0].line_no == 1 and found[0].parse() == Line(1, 0, 20,
                                                                                                   {"t": "token_count"})
    assert isinstance(found[1], Line) and found[1].line_no == 2
    assert len(found) == 2  # the third line holds no marker


@pytest.mark.parametrize("size", [0, 1, 2])
def test_a_file_with_no_complete_line_gives_nothing(tmp_path: Path, size: int) -> None:
    path = tmp_path / "short.jsonl"
    path.write_bytes(b'{"usage": 1}'[:size])
    assert _by_search(path) == ([], 0, 0) == _by_cursor(path)


@pytest.mark.parametrize("longest", [None, 60], ids=["any length", "lines over 60 bytes too long"])
def test_the_objects_alone_are_the_lines_objects_at_any_start(monkeypatch: pytest.MonkeyPatch,
                                                              longest: int | None) -> None:
    # marked_objects parses in one step what parse_line parses in several (a BOM, a CR, blank, torn, non-UTF-8,
    # list and string lines, a line too long): the objects and their numbers must be the same from any line.
    if longest is not None:
        monkeypatch.setattr(marked_lines_module, "MAX_LINE_BYTES", longest)
    data = HOSTILE + b'\n{"usage": 5, "pad": "' + b"x" * 70 + b'"}\r\n{"usage": 6}\n'
    starts = [0] + [i + 1 for i, b in enumerate(data) if b == 0x0A]
    for number, pos in enumerate(starts):
        lines = marked_lines(data, MARKERS, offset=1000 * number, line_no=number, pos=pos)
        expected = [(x.line_no, x.obj) for x in lines if isinstance(x, Line)]
        assert list(marked_objects(data, MARKERS, offset=1000 * number, line_no=number, pos=pos)) == expected
        if pos == 0 and longest is None:
            assert [n for n, _ in expected][:1] == [1]  # the BOM line is a Line at the file's start


def test_crlf_lines_after_the_first_have_the_cursors_lengths(tmp_path: Path) -> None:
    # marked_lines parses a JSON object line in one step past the file's first byte: its length must still be
    # the cursor's, without the CR.
    path = tmp_path / "crlf.jsonl"
    path.write_bytes(b'{"a": 1}\r\n{"usage": 2}\r\n{"usage": 3}\n{"usage": 4}\r\r\n \r\n{"usage": 5}\r\n')
    found = _by_search(path)
    assert found == _by_cursor(path)
    assert [(x.line_no, x.length) for x in found[0] if isinstance(x, Line)] == [(2, 12), (3, 12), (4, 13), (6, 12)]
