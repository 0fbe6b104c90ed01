"""Reading transcripts: every entry type, legacy versions, bad input, and incremental reads."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.accounting.context import build_context
from engine.stores.transcript import TranscriptReader, read_transcript
from tests.conftest import HEADERLESS, MAIN_SESSION, V1_LEGACY
from tests.engine._transcripts import HEADER, assistant, compaction, line, tool_result, user, write

ALL_TYPES = [
    {
        "type": "model_change",
        "id": "m1",
        "parentId": None,
        "timestamp": "t",
        "provider": "anthropic",
        "modelId": "claude-opus-4-5",
    },
    {"type": "thinking_level_change", "id": "t1", "parentId": "m1", "timestamp": "t", "thinkingLevel": "high"},
    user("u1", "t1", "hello"),
    assistant("a1", "u1", "hi", 100, tool=("read", {"path": "src/app.py"})),
    tool_result("r1", "a1", "print('x')"),
    {
        "type": "message",
        "id": "b1",
        "parentId": "r1",
        "timestamp": "t",
        "message": {
            "role": "bashExecution",
            "command": "ls",
            "output": "a b",
            "exitCode": 0,
            "cancelled": False,
            "truncated": False,
            "timestamp": 4,
        },
    },
    {
        "type": "message",
        "id": "b2",
        "parentId": "b1",
        "timestamp": "t",
        "message": {
            "role": "bashExecution",
            "command": "secret",
            "output": "x",
            "exitCode": 0,
            "cancelled": False,
            "truncated": False,
            "excludeFromContext": True,
            "timestamp": 4,
        },
    },
    {
        "type": "custom",
        "customType": "model-snapshot",
        "data": {"x": 1},
        "id": "c1",
        "parentId": "b2",
        "timestamp": "t",
    },
    {
        "type": "custom_message",
        "customType": "openclaw.runtime-context",
        "content": "ctx",
        "display": False,
        "id": "cm1",
        "parentId": "c1",
        "timestamp": "t",
    },
    {"type": "label", "id": "l1", "parentId": "cm1", "timestamp": "t", "targetId": "u1", "label": "pin"},
    {"type": "session_info", "id": "s1", "parentId": "l1", "timestamp": "t", "name": "Refactor"},
    {
        "type": "branch_summary",
        "id": "bs1",
        "parentId": "s1",
        "timestamp": "t",
        "fromId": "root",
        "summary": "came back",
    },
    {"type": "future_type_nobody_knows", "id": "f1", "parentId": "bs1", "timestamp": "t", "x": [1]},
    compaction("k1", "f1", "u1"),
]


def test_every_entry_type_is_read_with_its_metadata(tmp_path: Path) -> None:
    reader = read_transcript(write(tmp_path / "s.jsonl", ALL_TYPES))
    by_id = {e.id: e for e in reader.entries}
    assert not reader.bad_lines
    assert reader.header == HEADER
    assert by_id["m1"].model == "claude-opus-4-5" and by_id["m1"].role is None
    assert by_id["t1"].role is None
    assert by_id["u1"].role == "user" and by_id["u1"].chars == 5
    assert by_id["a1"].usage is not None and by_id["a1"].usage.context_tokens == 100
    assert by_id["a1"].tool_calls == ("read",)
    assert by_id["r1"].role == "toolResult"
    assert by_id["b1"].role == "bashExecution" and by_id["b1"].chars == len("ls") + len("a b")
    assert by_id["b2"].excluded and not by_id["b2"].in_context
    assert by_id["c1"].custom_type == "model-snapshot" and not by_id["c1"].in_context
    assert by_id["cm1"].role == "custom" and by_id["cm1"].display is False
    assert by_id["l1"].target_id == "u1" and by_id["l1"].label == "pin"
    assert by_id["s1"].role is None
    assert by_id["bs1"].role == "branchSummary"
    assert by_id["f1"].type == "future_type_nobody_knows" and not by_id["f1"].in_context
    assert by_id["k1"].first_kept_entry_id == "u1" and by_id["k1"].from_hook is True

    view = build_context(reader.entries, reader.by_id, reader.leaf)
    assert [m.entry_id for m in view.messages] == [
        "compaction:k1",
        "u1",
        "a1",
        "r1",
        "b1",
        "cm1",
        "branch_summary:bs1",
    ]


def test_v1_legacy_file_is_migrated_in_memory_and_never_rewritten() -> None:
    before = V1_LEGACY.read_bytes()
    reader = read_transcript(V1_LEGACY)
    assert reader.parser.version == 1
    body = [e for e in reader.entries if e.type != "session"]
    assert all(e.id is not None for e in body)
    assert body[0].parent_id is None
    assert all(b.parent_id == a.id for a, b in itertools.pairwise(body))
    view = build_context(reader.entries, reader.by_id, reader.leaf)
    assert len(view.path) == len(body)
    assert V1_LEGACY.read_bytes() == before


def test_v1_compaction_index_becomes_first_kept_id(tmp_path: Path) -> None:
    v1 = [
        {"type": "session", "id": "old", "timestamp": "t", "cwd": "/", "provider": "anthropic", "modelId": "m"},
        {"type": "message", "timestamp": "t", "message": {"role": "user", "content": "one", "timestamp": 1}},
        {"type": "message", "timestamp": "t", "message": {"role": "user", "content": "two", "timestamp": 1}},
        {"type": "compaction", "timestamp": "t", "summary": "s", "firstKeptEntryIndex": 2, "tokensBefore": 9},
        {
            "type": "message",
            "timestamp": "t",
            "message": {"role": "hookMessage", "customType": "x", "content": "hook", "display": True, "timestamp": 1},
        },
    ]
    reader = read_transcript(write(tmp_path / "v1.jsonl", v1, header=False))
    compaction_entry = next(e for e in reader.entries if e.type == "compaction")
    assert compaction_entry.first_kept_entry_id == reader.entries[2].id
    assert reader.entries[4].role == "custom"
    view = build_context(reader.entries, reader.by_id, reader.leaf)
    assert [m.role for m in view.messages] == ["compactionSummary", "user", "custom"]
    assert reader.read_object(reader.entries[4])["message"]["role"] == "custom"


def test_headerless_file_is_read_and_flagged_not_repaired() -> None:
    before = HEADERLESS.read_bytes()
    reader = read_transcript(HEADERLESS)
    assert reader.parser.headerless
    assert reader.header is None
    assert len(reader.entries) == 5
    view = build_context(reader.entries, reader.by_id, reader.leaf)
    # The first entry's parent lives in the archived transcript: the path stops there.
    assert view.path[0].parent_id is not None and len(view.path) == 5
    assert HEADERLESS.read_bytes() == before


def test_malformed_lines_are_counted_with_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(
        line(HEADER)
        + line(user("u1", None, "ok"))
        + b'{"type":"message","id":"x"\n'  # truncated JSON (line 3)
        + b"[1,2,3]\n"  # not an object (line 4)
        + b"\n"  # blank: ignored, not an error (line 5)
        + b'{"type":"message","id":"u2","parentId":"u1","message":{"role":"user","content":"caf\xe9"}}\n'  # line 6
        + b"\x00\x00garbage\n"  # line 7
        + line(user("u3", "u2", "end"))
    )
    reader = read_transcript(path)
    assert [(b.line_no, b.recovered) for b in reader.bad_lines] == [(3, False), (4, False), (6, True), (7, False)]
    assert [e.id for e in reader.entries if e.type == "message"] == ["u1", "u2", "u3"]
    assert "\ufffd" in reader.read_object(reader.entries[2])["message"]["content"]


def test_bom_and_crlf_are_tolerated(tmp_path: Path) -> None:
    path = tmp_path / "crlf.jsonl"
    path.write_bytes(
        b"\xef\xbb\xbf" + line(HEADER).replace(b"\n", b"\r\n") + line(user("u1", None, "hi")).replace(b"\n", b"\r\n")
    )
    reader = read_transcript(path)
    assert not reader.bad_lines
    assert reader.header is not None
    assert reader.read_object(reader.entries[1])["id"] == "u1"


def test_partial_last_line_waits_for_its_newline(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    full = line(user("u2", "u1", "second"))
    path.write_bytes(line(HEADER) + line(user("u1", None, "first")) + full[:10])
    reader = TranscriptReader(path)
    first = reader.read_new()
    assert [e.id for e in first.entries] == ["sess-1", "u1"]
    assert first.pending_bytes == 10
    with path.open("ab") as handle:
        handle.write(full[10:])
    second = reader.read_new()
    assert [e.id for e in second.entries] == ["u2"]
    assert second.bytes_read == len(full)
    assert reader.read_new().entries == ()


def test_truncation_and_rotation_restart_cleanly(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", [user("u1", None, "a"), user("u2", "u1", "b")])
    reader = TranscriptReader(path)
    reader.read_new()
    write(path, [user("n1", None, "new")])  # truncated in place: smaller than our offset
    batch = reader.read_new()
    assert batch.reset and [e.id for e in reader.entries] == ["sess-1", "n1"]

    rotated = tmp_path / "next.jsonl"
    write(rotated, [user("r1", None, "rotated"), user("r2", "r1", "more"), user("r3", "r2", "and more")])
    os.replace(rotated, path)  # a new inode at the same path
    batch = reader.read_new()
    assert batch.reset and [e.id for e in reader.entries] == ["sess-1", "r1", "r2", "r3"]


def _snapshot(reader: TranscriptReader) -> tuple[object, ...]:
    return tuple(reader.entries), tuple(reader.bad_lines), reader.offset


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cuts=st.lists(st.integers(min_value=0, max_value=100_000), max_size=12), data=st.data())
def test_incremental_reads_over_any_chunking_equal_one_full_read(tmp_path: Path, cuts: list[int], data) -> None:
    source = MAIN_SESSION.read_bytes()[:60_000] + b'{"broken": \n' + b"\n" + b'{"type":"message","id":"zz"}\n'
    extra = data.draw(st.binary(max_size=200))
    content = source + extra
    target = tmp_path / f"chunked-{abs(hash((tuple(cuts), extra)))}.jsonl"
    target.write_bytes(b"")
    incremental = TranscriptReader(target)
    written = 0
    for cut in [*sorted(set(c % (len(content) + 1) for c in cuts)), len(content)]:
        with target.open("ab") as handle:
            handle.write(content[written:cut])
        written = max(written, cut)
        incremental.read_new()
    full = read_transcript(target)
    assert _snapshot(incremental) == _snapshot(full)


def test_read_object_returns_the_full_line_lazily() -> None:
    reader = read_transcript(MAIN_SESSION)
    entry = next(e for e in reader.entries if e.role == "toolResult")
    obj = reader.read_object(entry)
    assert obj["id"] == entry.id
    raw = MAIN_SESSION.read_bytes()[entry.offset : entry.offset + entry.length]
    assert orjson.loads(raw) == obj


def test_version_4_header_reads_like_version_3(tmp_path: Path) -> None:
    path = tmp_path / "v4.jsonl"
    path.write_bytes(
        line({**HEADER, "version": 4}) + line(user("u1", None, "hi")) + line(assistant("a1", "u1", "yo", 42))
    )
    reader = read_transcript(path)
    assert reader.parser.version == 4 and not reader.bad_lines
    view = build_context(reader.entries, reader.by_id, reader.leaf)
    assert [m.entry_id for m in view.messages] == ["u1", "a1"]
