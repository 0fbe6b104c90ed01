"""Appending under the lock: byte-prefix safety, true-leaf chaining, refusals, concurrency and SIGKILL."""

from __future__ import annotations

import itertools
import os
import random
import re
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest

import engine.fs.jsonl_append as jsonl_append
from engine.fs.jsonl_append import AppendError, AppendRefusedError, append_entries, new_entry_id
from engine.fs.session_lock import LockHeldError, acquire_lock, inspect_lock, lock_path_for
from engine.fs.tail import last_entry
from engine.stores.transcript import read_transcript
from tests.conftest import HEADERLESS, MAIN_SESSION, V1_LEGACY
from tests.engine._transcripts import HEADER, line, user
from tests.engine._writer_child import batch, constant

CHILD = Path(__file__).with_name("_writer_child.py")
TRIALS = int(os.environ.get("CTXSCOPE_TRIALS", "1000" if os.environ.get("CTXSCOPE_FULL") == "1" else "40"))
ISO_MS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def age(path: Path, seconds: float = 60.0) -> None:
    """Make the file look untouched for ``seconds`` (no agent-active warning)."""
    then = time.time() - seconds
    os.utime(path, (then, then))


def custom(seq: int, **data: Any) -> dict[str, Any]:
    return {"type": "custom", "customType": "ctxscope.test", "data": {"writer": "parent", "seq": seq, **data}}


def parsed_lines(data: bytes) -> list[dict[str, Any]]:
    return [orjson.loads(raw) for raw in data.splitlines()]


def assert_chained(data: bytes, start: int) -> None:
    """Every line from byte ``start`` parses and its parentId is the id of the line physically before it."""
    previous = last_entry_id(data[:start])
    for raw in data[start:].split(b"\n")[:-1]:
        obj = orjson.loads(raw)
        assert obj["parentId"] == previous
        previous = obj["id"]


def last_entry_id(data: bytes) -> str | None:
    for raw in reversed(data.splitlines()):
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(obj, dict) and isinstance(obj.get("id"), str) and obj.get("type") != "session":
            return str(obj["id"])
    return None


@pytest.fixture
def session(tmp_path: Path) -> Path:
    path = tmp_path / MAIN_SESSION.name
    shutil.copyfile(MAIN_SESSION, path)
    age(path)
    return path


def test_append_keeps_old_bytes_as_prefix_and_chains_to_the_leaf(session: Path) -> None:
    before = session.read_bytes()
    old_ids = set(read_transcript(session).by_id)
    leaf = last_entry(session)
    assert leaf is not None
    seen: list[str | None] = []

    def build(leaf_id: str | None) -> list[dict[str, Any]]:
        seen.append(leaf_id)
        return [
            {"type": "custom_message", "customType": "ctxscope.checkpoint", "content": "state", "display": False},
            custom(1),
        ]

    result = append_entries(session, build)
    after = session.read_bytes()
    assert after.startswith(before)
    assert seen == [leaf[1]["id"]]
    assert (result.parent_id, result.offset, result.bytes_written) == (leaf[1]["id"], len(before),
                                                                       len(after) - len(before))
    assert result.agent_active_warning is None
    new = parsed_lines(after[len(before):])
    assert [e["id"] for e in new] == list(result.entry_ids)
    assert [e["parentId"] for e in new] == [leaf[1]["id"], new[0]["id"]]
    assert all(re.fullmatch(r"[0-9a-f]{8}", i) and i not in old_ids for i in result.entry_ids)
    assert all(ISO_MS.fullmatch(e["timestamp"]) for e in new)
    assert list(new[0])[:4] == ["type", "id", "parentId", "timestamp"]
    assert new[0]["customType"] == "ctxscope.checkpoint"
    reread = read_transcript(session)
    assert reread.bad_lines == []
    assert reread.leaf is not None and reread.leaf.id == result.entry_ids[-1]
    assert not lock_path_for(session).exists()


def test_given_ids_and_timestamps_are_kept(session: Path) -> None:
    result = append_entries(session, lambda _leaf: [
        {**custom(1), "id": "cafe0001", "timestamp": "2026-03-01T10:00:00.000Z"},
        {"type": "label", "targetId": "cafe0001", "label": "pin"},
    ])
    new = parsed_lines(session.read_bytes()[result.offset:])
    assert new[0]["id"] == "cafe0001"
    assert new[0]["timestamp"] == "2026-03-01T10:00:00.000Z"
    assert (new[1]["parentId"], new[1]["targetId"]) == ("cafe0001", "cafe0001")


def test_header_only_file_chains_the_first_entry_to_null(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(line({**HEADER, "version": 4}))
    result = append_entries(path, lambda leaf: [custom(0, leaf=leaf)])
    (entry,) = parsed_lines(path.read_bytes())[1:]
    assert result.parent_id is None
    assert entry["parentId"] is None
    assert entry["data"]["leaf"] is None


def refusal_cases(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    for name, source in [("headerless", HEADERLESS), ("v1", V1_LEGACY)]:
        path = tmp_path / source.name
        shutil.copyfile(source, path)
        yield name, path
    cases = {
        "v2": line({**HEADER, "version": 2}) + line(user("u1", None, "hi")),
        "no version": line({k: v for k, v in HEADER.items() if k != "version"}),
        "empty": b"",
        "partial last line": line(HEADER) + line(user("u1", None, "hi")) + b'{"type":"message","id":"hal',
        "header without newline": orjson.dumps(HEADER),
    }
    for name, content in cases.items():
        path = tmp_path / f"{name.replace(' ', '-')}.jsonl"
        path.write_bytes(content)
        yield name, path


def test_refuses_headerless_legacy_and_partial_files_without_touching_them(tmp_path: Path) -> None:
    cases = list(refusal_cases(tmp_path))
    assert len(cases) == 7
    for name, path in cases:
        before = path.read_bytes()
        called: list[str | None] = []

        def build(leaf: str | None, called: list[str | None] = called) -> list[dict[str, Any]]:
            called.append(leaf)
            return [custom(0)]

        with pytest.raises(AppendRefusedError) as raised:
            append_entries(path, build)
        assert path.read_bytes() == before, name
        assert called == [], name
        assert not lock_path_for(path).exists(), name
        if name in ("headerless",):
            assert "session header" in str(raised.value)
        if name in ("v1", "v2", "no version"):
            assert "rewrites" in str(raised.value)
        if name == "partial last line":
            assert "partial line" in str(raised.value)


def test_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(AppendRefusedError, match="does not exist"):
        append_entries(tmp_path / "nope.jsonl", lambda _leaf: [custom(0)])
    assert not (tmp_path / "nope.jsonl").exists()


def test_recent_change_sets_the_agent_active_warning(session: Path) -> None:
    os.utime(session)
    result = append_entries(session, lambda _leaf: [custom(0)], recent_write_seconds=3.0)
    assert result.agent_active_warning is not None
    assert "mid-run" in result.agent_active_warning
    age(session)
    assert append_entries(session, lambda _leaf: [custom(1)]).agent_active_warning is None


def test_live_lock_holder_blocks_the_append(session: Path) -> None:
    before = session.read_bytes()
    child = subprocess.Popen([sys.executable, str(CHILD), "hold", str(session)], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline() == "ready\n"
        with pytest.raises(LockHeldError):
            append_entries(session, lambda _leaf: [custom(0)], lock_timeout=0.3)
    finally:
        child.kill()
        child.wait()
        assert child.stdout is not None
        child.stdout.close()
    assert session.read_bytes() == before


@pytest.mark.parametrize(
    ("entries", "error"),
    [
        ([{"type": "session", "id": "x"}], ValueError),
        ([{"customType": "no type"}], ValueError),
        ([{**custom(0), "parentId": "not-the-leaf"}], ValueError),
        ([{**custom(0), "id": "48392785"}], ValueError),  # an id already in the fixture
        ([{**custom(0), "id": "dup00001"}, {**custom(1), "id": "dup00001"}], ValueError),
        ([{**custom(0), "timestamp": 1}], ValueError),
        (["not a mapping"], TypeError),
    ],
)
def test_malformed_entries_are_rejected_before_writing(
    session: Path, entries: Sequence[Mapping[str, Any]], error: type[Exception]
) -> None:
    before = session.read_bytes()
    with pytest.raises(error):
        append_entries(session, lambda _leaf: entries)
    assert session.read_bytes() == before
    assert not lock_path_for(session).exists()


def test_empty_batch_writes_nothing(session: Path) -> None:
    before = session.read_bytes()
    result = append_entries(session, lambda _leaf: [])
    assert (result.entry_ids, result.bytes_written, result.offset) == ((), 0, len(before))
    assert session.read_bytes() == before


def test_short_write_is_truncated_away(session: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = session.read_bytes()

    def half_write(fd: int, data: bytes) -> int:
        return os.write(fd, data[: len(data) // 2])

    monkeypatch.setattr(jsonl_append, "_write_once", half_write)
    with pytest.raises(AppendError, match="transcript is unchanged"):
        append_entries(session, lambda _leaf: [custom(0, pad="x" * 5000)])
    assert session.read_bytes() == before
    assert not lock_path_for(session).exists()


def test_torn_tail_of_a_killed_appender_is_trimmed_by_the_next_append(session: Path) -> None:
    before = session.read_bytes()
    leaf = last_entry_id(before)
    complete = line({**custom(0), "id": "aaaa0001", "parentId": leaf, "timestamp": "2026-03-01T10:00:00.000Z"})
    torn = b'{"type":"custom","id":"aaaa0002","parentId":"aaaa0001","tim'
    session.write_bytes(before + complete + torn)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    lock = lock_path_for(session)
    lock.write_bytes(orjson.dumps({
        "pid": dead.pid, "createdAt": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "ctxscopeAppend": {"offset": len(before), "length": len(complete) + 4000},
    }))
    result = append_entries(session, lambda _leaf: [custom(1)])
    after = session.read_bytes()
    assert result.trimmed_bytes == len(torn)
    assert after.startswith(before + complete)
    assert result.parent_id == "aaaa0001"
    assert_chained(after, len(before))


def test_torn_tail_without_a_recorded_intent_is_refused(session: Path) -> None:
    content = session.read_bytes() + b'{"type":"custom","id":"aaaa0002","par'
    session.write_bytes(content)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    lock_path_for(session).write_bytes(orjson.dumps({"pid": dead.pid, "createdAt": "2026-01-01T00:00:00.000Z"}))
    with pytest.raises(AppendRefusedError, match="partial line"):
        append_entries(session, lambda _leaf: [custom(1)])
    assert session.read_bytes() == content


def test_a_line_a_lock_holder_is_finishing_is_waited_for_not_refused(session: Path) -> None:
    # The tail is read without the lock: an appender that read it while the other was mid-line under the lock gave
    # up with "ends with a partial line" (seen once in a quiet run of the concurrent-appenders test).
    leaf = last_entry_id(session.read_bytes())
    finished = orjson.dumps({"type": "custom", "customType": "ctxscope.test", "id": "aaaa0003", "parentId": leaf,
                             "timestamp": "2026-01-01T00:00:00.000Z", "data": {}}) + b"\n"
    half_written = threading.Event()

    def appender() -> None:
        with acquire_lock(session, timeout=5.0), session.open("ab") as out:
            out.write(finished[:25])
            out.flush()
            half_written.set()
            time.sleep(0.2)
            out.write(finished[25:])

    writer = threading.Thread(target=appender)
    writer.start()
    try:
        assert half_written.wait(5.0)
        result = append_entries(session, lambda _leaf: [custom(1)])
    finally:
        writer.join()
    assert result.parent_id == "aaaa0003"
    data = session.read_bytes()
    assert_chained(data, len(data) - result.bytes_written - len(finished))


def test_a_partial_line_without_a_lock_holder_is_refused_at_once(session: Path) -> None:
    # A writer that ignores the lock (or died) mid-line is not waited out: the next append could land between the
    # two halves of its following line (tests/adversarial/test_writers.py, test_06).
    content = session.read_bytes() + b'{"type":"custom","id":"aaaa0004","par'
    session.write_bytes(content)
    start = time.monotonic()
    with pytest.raises(AppendRefusedError, match="partial line"):
        append_entries(session, lambda _leaf: [custom(1)], lock_timeout=30.0)
    assert time.monotonic() - start < jsonl_append.PARTIAL_TAIL_PATIENCE / 2
    assert session.read_bytes() == content


def test_a_half_line_written_while_the_intent_is_noted_is_seen_before_the_write(
    session: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A writer that ignores the lock started a line while ctxscope rewrote its lock file (test_06 of
    # tests/adversarial/test_writers.py found 2 torn lines under load): the write must not glue onto that half line.
    before = session.read_bytes()
    half = b'{"type":"custom","id":"aaaa0005","par'
    real_note = jsonl_append.SessionLock.note_append

    def note_then_writer_starts(lock: Any, offset: int, length: int) -> None:
        real_note(lock, offset, length)
        with session.open("ab") as out:
            out.write(half)

    monkeypatch.setattr(jsonl_append.SessionLock, "note_append", note_then_writer_starts)
    with pytest.raises(AppendError, match="mid-line"):
        append_entries(session, lambda _leaf: [custom(1)])
    assert session.read_bytes() == before + half


def test_new_entry_id_avoids_existing_ids_and_falls_back_to_a_uuid(monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = new_entry_id({"00000000"})
    assert re.fullmatch(r"[0-9a-f]{8}", fresh)
    monkeypatch.setattr("engine.fs.jsonl_entries.secrets.token_hex", lambda _n: "deadbeef")
    assert new_entry_id({"cafebabe"}) == "deadbeef"
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}", new_entry_id({"deadbeef"}))


@pytest.mark.reliability
def test_concurrent_appenders_never_interleave_and_always_chain_to_the_true_leaf(session: Path) -> None:
    start = session.stat().st_size
    count = 300
    child = subprocess.Popen(
        [sys.executable, str(CHILD), "append", str(session), str(count), "child"], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    try:
        assert child.stdout.readline() == "ready\n"
        rng = random.Random(7)
        for seq in range(count):
            append_entries(session, constant(batch("parent", seq, rng)), recent_write_seconds=0.0)
        assert child.wait(timeout=120) == 0
    finally:
        child.kill()
        child.wait()
        child.stdout.close()

    data = session.read_bytes()
    assert data.startswith(MAIN_SESSION.read_bytes())
    assert data.endswith(b"\n")
    assert_chained(data, start)
    writers = [(e["data"]["writer"], e["data"]["seq"], e["data"]["part"]) for e in parsed_lines(data[start:])]
    for tag in ("parent", "child"):
        mine = [(seq, part) for writer, seq, part in writers if writer == tag]
        assert mine == sorted(mine)
        assert sorted({seq for seq, _part in mine}) == list(range(count))
    switches = sum(1 for a, b in itertools.pairwise(writers) if a[0] != b[0])
    print(f"concurrent appends: {2 * count} batches, {len(writers)} entries, {switches} writer switches")
    assert switches >= 2  # the writers really did take turns, not run one after the other


@pytest.mark.reliability
def test_sigkill_during_appends_never_tears_a_line_and_the_lock_is_taken_over(session: Path) -> None:
    original = session.read_bytes()
    rng = random.Random()
    stats: Counter[str] = Counter()
    for trial in range(TRIALS):
        before = session.read_bytes()
        child = subprocess.Popen(
            [sys.executable, str(CHILD), "append", str(session), "0", "child"], stdout=subprocess.PIPE, text=True
        )
        assert child.stdout is not None
        assert child.stdout.readline() == "ready\n"
        time.sleep(rng.uniform(0.0, 0.05))
        child.kill()
        child.wait()
        child.stdout.close()

        after = session.read_bytes()
        assert after.startswith(before)
        complete = after[: after.rfind(b"\n") + 1]
        assert all(isinstance(obj, dict) for obj in parsed_lines(complete))
        info = inspect_lock(session)
        if not after.endswith(b"\n"):
            # Only possible if the kill landed between two pages of one write(); the lock names the batch.
            stats["torn"] += 1
            assert info is not None and info.append_intent is not None
            offset, length = info.append_intent
            assert offset < len(after) < offset + length
        if info is not None:
            stats["lock left"] += 1
            stats["lock left with intent"] += info.append_intent is not None
            # Never empty: the payload is in place before the lock name appears.
            assert (info.pid, info.stale, info.reason) == (child.pid, True, "dead-pid")
        result = append_entries(session, constant([custom(trial)]), lock_timeout=15.0)
        stats["trimmed bytes"] += result.trimmed_bytes
        assert inspect_lock(session) is None
        assert session.read_bytes().endswith(b"\n")
        stats["child lines"] += complete.count(b"\n") - before.count(b"\n")

    final = session.read_bytes()
    assert final.startswith(original)
    assert_chained(final, len(original))
    strays = [p.name for p in session.parent.iterdir() if p.name.startswith(f".{session.name}.lock.")]
    print(f"SIGKILL trials: {TRIALS}, " + ", ".join(f"{k}: {v}" for k, v in sorted(stats.items()))
          + f", stray lock temp files: {len(strays)}")
    assert stats["lock left"] >= 1 or TRIALS < 10  # the kills did land while a lock was held
