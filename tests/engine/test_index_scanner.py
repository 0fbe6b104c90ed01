"""The index scanner finds exactly the calls and compactions the full reader finds, however lines are written."""

from __future__ import annotations

import json
import os
import tracemalloc
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.index.scanner import ScanState, resolve_calls, scan_file
from engine.index.transcript_index import index_transcript
from engine.session.glance import glance_session
from engine.stores.source import SessionSource
from tests.conftest import ENDS_ON_COMPACTION, HEADERLESS, MAIN_SESSION, RESET_ARCHIVE, SUBAGENT, V1_LEGACY
from tests.engine._index_oracle import full_records
from tests.engine._transcripts import HEADER, assistant, compaction, tool_result, user

REAL = [MAIN_SESSION, ENDS_ON_COMPACTION, HEADERLESS, SUBAGENT, V1_LEGACY, RESET_ARCHIVE]


def _scan(path: Path, block: int) -> tuple[list[Any], list[Any], int]:
    state = ScanState()
    fd = os.open(path, os.O_RDONLY)
    try:
        scan_file(fd, state, os.fstat(fd).st_size, block=block)
        calls, compactions, _ = resolve_calls(fd, state.pending)
    finally:
        os.close(fd)
    return sorted([*state.calls, *calls], key=lambda r: r.line), sorted(
        [*state.compactions, *compactions], key=lambda r: r.line), state.lines


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name[-24:])
@pytest.mark.parametrize("block", [1 << 20, 4096, 97])
def test_real_sessions_give_the_full_readers_records(path: Path, block: int) -> None:
    calls, compactions, lines = full_records(path)
    assert _scan(path, block) == (calls, compactions, lines)


def test_fixture_figures_are_the_ones_in_the_files() -> None:
    calls, compactions, _ = _scan(MAIN_SESSION, 1 << 20)
    data = MAIN_SESSION.read_bytes()
    assert len(compactions) == data.count(b'{"type":"compaction"') == 3
    assert len(calls) == data.count(b'"role":"assistant"') - data.count(b'"provider":"openclaw"')
    assert all(c.key is not None for c in calls)


# -- written every way a writer might -------------------------------------------------------------------------

def _reorder(obj: dict[str, Any]) -> dict[str, Any]:
    """The same entry with ``type`` last and ``message`` first: another writer's key order."""
    rest = {k: v for k, v in obj.items() if k not in ("type", "message")}
    out: dict[str, Any] = {"message": obj["message"]} if "message" in obj else {}
    return {**out, **rest, "type": obj["type"]}


STYLES = ("compact", "spaced", "loose", "reordered", "escaped", "pretty-ish")


def _render(obj: dict[str, Any], style: str) -> bytes:
    if style == "compact":
        return orjson.dumps(obj)
    if style == "spaced":
        return json.dumps(obj).encode()  # Python's default: ", " and ": ", non-ASCII escaped
    if style == "loose":
        return b" \t" + json.dumps(obj, separators=(" , ", " :  ")).encode()
    if style == "reordered":
        return orjson.dumps(_reorder(obj))
    if style == "escaped":  # key names spelled with escapes: the same JSON, no byte pattern matches
        return orjson.dumps(obj).replace(b'"type"', b'"\\u0074ype"', 1).replace(b'"role"', b'"r\\u006fle"', 1)
    return json.dumps(obj, separators=(",\t", ":\t")).encode()


def _usage_assistant(i: int, parent: str | None, draw: Any) -> dict[str, Any]:
    obj = assistant(f"a{i}", parent, draw(st.sampled_from(["ok", 'said "type":"compaction" once', "日本語"])),
                    tool=draw(st.sampled_from([None, ("exec", {"usage": {"input": 9}, "command": "ls"})])))
    usage = obj["message"]["usage"]
    usage.update(input=draw(st.integers(0, 5000)), output=draw(st.integers(0, 900)),
                 cacheRead=draw(st.integers(0, 90000)), cacheWrite=draw(st.integers(0, 4000)))
    usage["cost"]["total"] = draw(st.sampled_from([0, 0.0123, None]))
    if draw(st.booleans()):
        obj["message"]["responseId"] = f"resp_{i}"
    obj["message"]["provider"] = draw(st.sampled_from(["anthropic", "anthropic", "openclaw"]))
    return obj


@st.composite
def transcripts(draw: Any) -> list[dict[str, Any]]:
    objs: list[dict[str, Any]] = []
    parent: str | None = None
    for i in range(draw(st.integers(0, 14))):
        kind = draw(st.sampled_from(["user", "assistant", "assistant", "tool", "compaction", "custom"]))
        if kind == "user":
            obj = user(f"u{i}", parent, "hello")
        elif kind == "assistant":
            obj = _usage_assistant(i, parent, draw)
        elif kind == "tool":
            obj = tool_result(f"t{i}", parent, "output " * draw(st.integers(0, 50)))
        elif kind == "compaction":
            obj = compaction(f"c{i}", parent or "root", "u0")
        else:
            obj = {"type": "custom", "customType": "x", "data": {"type": "compaction"}, "id": f"x{i}",
                   "parentId": parent, "timestamp": "2026-03-01T10:00:05.000Z"}
        objs.append(obj)
        parent = obj["id"]
    return objs


@given(transcripts(), st.lists(st.sampled_from(STYLES), min_size=1, max_size=6), st.booleans(), st.booleans(),
       st.integers(1, 300))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_formatting_gives_the_same_records(
    tmp_path: Path, objs: list[dict[str, Any]], styles: list[str], crlf: bool, blanks: bool, block: int
) -> None:
    lines = [orjson.dumps(HEADER)]
    lines += [_render(obj, styles[i % len(styles)]) for i, obj in enumerate(objs)]
    sep = b"\r\n" if crlf else b"\n"
    data = (sep + (b"\n" if blanks else b"")).join(lines) + sep + b'{"type":"message","id":"partial'
    path = tmp_path / "styled.jsonl"
    path.write_bytes(data)
    assert _scan(path, block) == full_records(path)


def test_status_counts_compactions_written_with_spaces(tmp_path: Path) -> None:
    objs = [user("u0", None, "hi"), assistant("a0", "u0", "ok", 10), compaction("c0", "a0", "u0"),
            user("u1", "c0", "again"), assistant("a1", "u1", "ok", 20), compaction("c1", "a1", "u1")]
    text = [json.dumps(HEADER)] + [json.dumps(o) for o in objs]  # "type": "compaction", with a space
    path = tmp_path / "spaced.jsonl"
    path.write_text("\n".join(text) + "\n")
    source = SessionSource(key="s", path=path, format="pi-jsonl")
    assert glance_session(source).compactions_in_file == 2


def test_an_index_in_pieces_equals_one_read(tmp_path: Path) -> None:
    data = MAIN_SESSION.read_bytes()
    path = tmp_path / "grow.jsonl"
    path.write_bytes(b"")
    with path.open("ab") as out:
        for cut in range(0, len(data), 7919):  # cuts fall inside lines: partial lines wait for their newline
            out.write(data[cut : cut + 7919])
            out.flush()
            index_transcript(path, calls=True)  # no cache: every call scans from 0, which must also agree
    calls, compactions, lines = full_records(MAIN_SESSION)
    whole = index_transcript(path, calls=True)
    assert (list(whole.calls or ()), list(whole.compactions), whole.lines) == (calls, compactions, lines)


@pytest.mark.parametrize("block", [4096, 97])
def test_a_line_over_the_limit_is_one_bad_line_and_never_held(
    tmp_path: Path, block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("engine.index.scanner.MAX_LINE_BYTES", 10_000)
    path = tmp_path / "s.jsonl"
    first = [HEADER, user("u1", None, "hi"), assistant("a1", "u1", "hello", 15)]
    later = [compaction("c1", "a1", "u1"), assistant("a2", "c1", "after", 25)]
    with path.open("wb") as handle:
        handle.writelines(orjson.dumps(obj) + b"\n" for obj in first)
        handle.write(b"\0" * 50_000 + b"\n")  # a hole in a sparse file reads as one line of NULs
        handle.writelines(orjson.dumps(obj) + b"\n" for obj in later)
    state = ScanState()
    fd = os.open(path, os.O_RDONLY)
    tracemalloc.start()
    try:
        scan_file(fd, state, os.fstat(fd).st_size, block=block)
        peak = tracemalloc.get_traced_memory()[1]
        calls, _, _ = resolve_calls(fd, state.pending)
    finally:
        tracemalloc.stop()
        os.close(fd)
    assert peak < 50_000, f"{peak} bytes held while scanning past a 50,000-byte line"
    assert state.bad_lines == 1 and state.line_no == 6
    assert [c.line for c in calls] == [3, 6] and [c.line for c in state.compactions] == [5]
    assert state.offset == path.stat().st_size
