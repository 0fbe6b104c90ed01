"""Nasty transcripts never crash the engine, every bad line is reported, and failed writes leave nothing behind."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.accounting.context import build_context, find_cut_point
from engine.accounting.measure import measure_context
from engine.capture.state import CapturedState, capture
from engine.capture.thread import extract_thread
from engine.checkpoints.store import latest_checkpoint, list_checkpoints
from engine.session.glance import glance_session
from engine.session.quick_gauge import quick_context_tokens
from engine.stores.source import SessionSource
from engine.stores.transcript import TranscriptReader, read_transcript
from tests.conftest import MAIN_SESSION
from tests.engine._transcripts import HEADER, assistant, line, user

ROOT = Path(__file__).resolve().parents[2]


def _exercise(path: Path) -> TranscriptReader:
    """Run every read-side engine function over ``path``; any exception fails the test."""
    reader = read_transcript(path)
    view = build_context(reader.entries, reader.by_id, reader.leaf)
    measure_context(view, reader)
    find_cut_point(view.path)
    capture(CapturedState(), view.path, reader.read_object)
    extract_thread(view.messages, reader.read_object)
    quick_context_tokens(path)
    glance_session(SessionSource(key="k", path=path, format="pi-jsonl"))
    return reader


def _nonblank_lines(data: bytes) -> int:
    body = data if data.endswith(b"\n") else data[: data.rfind(b"\n") + 1]
    body = body.removeprefix(b"\xef\xbb\xbf")  # a byte-order mark opening the file is not content
    return sum(1 for raw in body.split(b"\n")[:-1] if raw.strip(b" \t\r\n\x0b\x0c"))


NASTY = {
    "nul bytes": b"\x00\x00\x00\n" + line(user("u1", None, "a\x00b")),
    "invalid utf-8": b'{"type":"message","id":"u1","parentId":null,"message":{"role":"user","content":"\xff\xfe"}}\n',
    "truncated": line(user("u1", None, "ok"))[:-20] + b"\n" + line(user("u2", None, "ok")),
    "deep nesting": b'{"type":"custom","id":"c","data":' + b"[" * 5000 + b"]" * 5000 + b"}\n",
    "wrong types": b"".join(
        orjson.dumps(o) + b"\n"
        for o in [
            {"type": 7, "id": 5, "parentId": ["x"], "timestamp": {}},
            {"type": "message", "id": "m1", "parentId": None, "message": "not an object"},
            {"type": "message", "id": "m2", "parentId": "m1", "message": {"role": "user", "content": 42}},
            {
                "type": "message",
                "id": "m3",
                "parentId": "m2",
                "message": {
                    "role": "assistant",
                    "content": [1, None, {"type": "toolCall", "name": None, "arguments": "x"}],
                    "usage": {"input": "9", "totalTokens": None, "cost": "free"},
                    "stopReason": 3,
                },
            },
            {
                "type": "compaction",
                "id": "k1",
                "parentId": "m3",
                "summary": None,
                "firstKeptEntryId": 7,
                "tokensBefore": "many",
            },
            {
                "type": "message",
                "id": "m4",
                "parentId": "k1",
                "message": {"role": "toolResult", "content": [{"type": "image"}], "isError": "yes"},
            },
        ]
    ),
    "duplicate ids": line(user("u1", None, "first"))
    + line(assistant("u1", "u1", "same id", 10))
    + line(user("u1", "u1", "third")),
    "parent cycle": line(user("a", "b", "a points to b")) + line(user("b", "a", "b points to a")),
    "self parent": line(user("s", "s", "loop")),
    "only blanks": b"\n\n   \n\t\n",
    "no trailing newline": line(user("u1", None, "done")) + b'{"type":"message","id":"u2"',
    "crlf and bom": b"\xef\xbb\xbf" + line(HEADER).replace(b"\n", b"\r\n") + b"\r\n",
}


@pytest.mark.reliability
@pytest.mark.parametrize("name", sorted(NASTY))
def test_nasty_corpus_never_crashes_and_reports_bad_lines(tmp_path: Path, name: str) -> None:
    data = NASTY[name]
    path = tmp_path / "nasty.jsonl"
    path.write_bytes(data)
    reader = _exercise(path)
    assert len(reader.entries) + len([b for b in reader.bad_lines if not b.recovered]) == _nonblank_lines(data)
    for bad in reader.bad_lines:
        assert 1 <= bad.line_no <= data.count(b"\n")


@pytest.mark.reliability
def test_fifty_megabyte_line_is_read_and_measured(tmp_path: Path) -> None:
    huge = "x" * (50 << 20)
    path = tmp_path / "huge.jsonl"
    path.write_bytes(
        line(HEADER)
        + line(user("u1", None, "go"))
        + line(assistant("a1", "u1", "ok", 900))
        + line(user("u2", "a1", huge))
    )
    reader = _exercise(path)
    assert reader.entries[-1].chars == len(huge)
    assert quick_context_tokens(path).tokens is not None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lines=st.lists(
        st.one_of(
            st.binary(max_size=80),
            st.builds(
                lambda t: orjson.dumps(
                    {"type": "message", "id": t, "parentId": t, "message": {"role": "user", "content": t}}
                ),
                st.text(max_size=10),
            ),
            st.sampled_from([line(HEADER).rstrip(), b"{}", b"[]", b"null", b'{"type":"compaction"}']),
        ),
        max_size=25,
    )
)
@pytest.mark.reliability
def test_any_bytes_are_read_without_crashing(tmp_path: Path, lines: list[bytes]) -> None:
    data = b"\n".join(raw.replace(b"\n", b" ") for raw in lines) + b"\n"
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(data)
    reader = _exercise(path)
    assert len(reader.entries) + len([b for b in reader.bad_lines if not b.recovered]) == _nonblank_lines(data)


_FULL_DISK_CHILD = r"""
import resource, signal, sys
from pathlib import Path
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # a write past the limit then fails with EFBIG, like a full disk
limit = int(sys.argv[3])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
from engine.config.loader import Config
from engine.sidecar import ContextManager
from engine.agents.discovery import discover_sessions
manager = ContextManager(Config(state_dir=Path(sys.argv[2])), auto_checkpoints=False)
source = discover_sessions([Path(sys.argv[1])]).sessions[0]
manager.add(source)
event = manager.write(source.key, "manual")
print(event.kind, event.message.replace("\n", " "))
"""


@pytest.mark.reliability
def test_a_full_disk_fails_cleanly_and_leaves_nothing_half_written(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    shutil.copy(MAIN_SESSION, session)
    state = tmp_path / "state"

    def run(limit: int) -> str:
        result = subprocess.run(
            [sys.executable, "-c", _FULL_DISK_CHILD, str(session), str(state), str(limit)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout

    assert run(1 << 30).startswith("checkpoint")  # room enough: cp_001 written
    first = latest_checkpoint(state, "76cc5ab5-0425-4038-b41f-0af9f313d594")
    assert first is not None
    out = run(600)  # every file larger than 600 bytes fails to grow past it
    assert out.startswith("error"), out
    refs = list_checkpoints(state, first.ref.session_key)
    assert [r.checkpoint_id for r in refs] == ["cp_001"]  # nothing half-written taken as a checkpoint
    leftovers = [p.name for p in refs[0].path.parent.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []
    latest = latest_checkpoint(state, first.ref.session_key)
    assert latest is not None and latest.ref.checkpoint_id == "cp_001" and latest.skipped == ()
    assert session.read_bytes() == MAIN_SESSION.read_bytes()
    assert os.path.getsize(state / "context" / "audit.jsonl") > 0
