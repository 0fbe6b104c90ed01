"""SIGKILL at random points of compaction appends and memory-archive writes (docs/architecture.md, Targets).

Trials: ``CTXSCOPE_TRIALS`` (default 30), or 1,000 with ``CTXSCOPE_FULL=1``. The counts are printed.
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import select
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import orjson
import pytest

from engine.compaction.archive import ArchivedMessage, read_archive, render_archive_record
from engine.fs.jsonl_append import append_entries
from engine.fs.session_lock import inspect_lock
from tests.engine._compaction import coding_session, lines_of
from tests.engine._compaction_child import archive_record
from tests.engine._transcripts import HEADER
from tests.engine.test_jsonl_append import assert_chained

CHILD = Path(__file__).with_name("_compaction_child.py")
TRIALS = int(os.environ.get("CTXSCOPE_TRIALS", "1000" if os.environ.get("CTXSCOPE_FULL") == "1" else "30"))
WAIT_S = 120.0
"""The longest wait for a child's first applied compaction (a loaded machine takes seconds)."""
RECORD_REF = re.compile(r"\(record (ctx-[0-9a-f]{16})\)")


def _run_and_kill(argv: list[str], rng: random.Random, longest: float, *, after: str | None = None) -> None:
    """Start the child, wait for "ready" (and for an ``after`` line, bounded), then kill it at a random moment."""
    child = subprocess.Popen([sys.executable, str(CHILD), *argv], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    try:
        assert child.stdout.readline() == "ready\n"
        deadline = time.monotonic() + WAIT_S
        while after is not None and time.monotonic() < deadline:
            ready, _, _ = select.select([child.stdout], [], [], deadline - time.monotonic())
            if ready and child.stdout.readline() in (f"{after}\n", ""):
                break
        time.sleep(rng.uniform(0.0, longest))
    finally:
        child.kill()
        child.wait()
        child.stdout.close()


def _check_archives(memory: Path, stats: Counter[str]) -> set[str]:
    complete: set[str] = set()
    for path in sorted(memory.glob("*.md")) if memory.is_dir() else []:
        scan = read_archive(path)
        for record in scan.records:
            assert hashlib.sha256(record.body.encode()).hexdigest() == record.sha256
            assert record.meta.get("id") == record.record_id and record.body.endswith("\n")
            complete.add(record.record_id)
        stats["archive records complete"] = len(scan.records)
        stats["archive records incomplete"] = len(scan.incomplete)
    return complete


@pytest.mark.reliability
@pytest.mark.slow
def test_sigkill_during_compactions_never_tears_a_line_or_takes_half_an_archive(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    session = coding_session(tmp_path / "s.jsonl", turns=4, header={**HEADER, "cwd": str(workspace)})
    original = session.read_bytes()
    rng = random.Random()
    stats: Counter[str] = Counter()
    for trial in range(TRIALS):
        before = session.read_bytes()
        # Mostly early kills; every tenth child is killed only after a compaction it applied (however slow the
        # machine), so the trials always include finished compactions as well as torn ones.
        _run_and_kill(["compact", str(session), str(tmp_path / "state")], rng, 0.4,
                      after="compacted" if trial % 10 == 9 else None)
        after = session.read_bytes()
        assert after.startswith(before)
        complete = after[: after.rfind(b"\n") + 1]
        assert all(isinstance(obj, dict) for obj in lines_of(complete))
        info = inspect_lock(session)
        if not after.endswith(b"\n"):
            stats["torn transcript tails"] += 1
            assert info is not None and info.append_intent is not None
            offset, length = info.append_intent
            assert offset < len(after) < offset + length
        stats["locks left by the kill"] += info is not None
        # The next writer takes the stale lock over and trims only the torn batch.
        result = append_entries(session, lambda _leaf, trial=trial: [
            {"type": "custom", "customType": "ctxscope.test", "data": {"trial": trial}}], lock_timeout=15.0)
        stats["trimmed bytes"] += result.trimmed_bytes
        assert session.read_bytes().endswith(b"\n") and inspect_lock(session) is None
    final = session.read_bytes()
    assert final.startswith(original)
    assert_chained(final, len(original))
    entries = lines_of(final)[1:]
    ids = [e["id"] for e in entries]
    assert len(ids) == len(set(ids))  # no duplicated line
    archived = _check_archives(workspace / "memory", stats)
    parents = {e["id"]: e["parentId"] for e in entries}
    for entry in (e for e in entries if e["type"] == "compaction"):
        stats["compactions"] += 1
        node, ancestors = entry["parentId"], set()
        while node is not None:
            ancestors.add(node)
            node = parents.get(node)
        assert entry["firstKeptEntryId"] in ancestors
        reference = RECORD_REF.search(entry["summary"])
        if reference:
            stats["drop-only compactions"] += 1
            assert reference.group(1) in archived  # the archive record is whole before the entry is written
    print(f"SIGKILL compaction trials: {TRIALS}, " + ", ".join(f"{k}: {v}" for k, v in sorted(stats.items())))
    assert stats["compactions"] >= 1 or TRIALS < 10


@pytest.mark.reliability
@pytest.mark.slow
def test_sigkill_during_archive_writes_never_yields_a_half_record(tmp_path: Path) -> None:
    path = tmp_path / "ws" / "memory" / "2026-03-01.md"
    rng = random.Random()
    records = []
    for n in range(4):
        records.append(tmp_path / f"record-{n}.bin")
        records[-1].write_bytes(archive_record(n, rng))
    totals: Counter[str] = Counter()
    for _trial in range(TRIALS):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"# notes the agent wrote\n")
        _run_and_kill(["archive", str(path), *map(str, records)], rng, 0.05)
        stats: Counter[str] = Counter()
        _check_archives(path.parent, stats)
        data = path.read_bytes()
        begins = data.count(b"<!-- ctxscope-archive:begin ")
        assert begins == stats["archive records complete"] + stats["archive records incomplete"]
        assert data.startswith(b"# notes the agent wrote\n")
        if not data.endswith((b"-->\n", b"# notes the agent wrote\n")):
            totals["killed mid-record"] += 1
            # A torn record is reported once its begin line is whole, and never returned as a record.
            last_end = data.rfind(b"<!-- ctxscope-archive:end ")
            torn = data[data.index(b"\n", last_end) + 1:] if last_end >= 0 else data
            assert stats["archive records incomplete"] == (1 if re.search(rb"begin [^\n]* -->\n", torn) else 0)
        totals.update(stats)
        path.unlink()  # each trial starts small: the writer appends a MB per record
    print(f"SIGKILL archive trials: {TRIALS}, " + ", ".join(f"{k}: {v}" for k, v in sorted(totals.items())))
    assert totals["archive records complete"] >= 1


def _record(record_id: str, text: str) -> bytes:
    return render_archive_record(record_id, [ArchivedMessage("user", "u1", "2026-03-01T10:00:00Z", text)],
                                 session_key="agent:main:main", created_at="2026-03-01T10:00:00Z",
                                 first_kept_entry_id="a9")


@pytest.mark.reliability
def test_every_truncation_of_a_record_is_reported_incomplete(tmp_path: Path) -> None:
    whole = _record("r1", "hello <!-- ctxscope-archive:end id=r1 --> still the body\n" * 20)
    tail = _record("r2", "second")
    path = tmp_path / "m.md"
    for cut in range(len(whole) - 1):  # the last cut plus the separator would be the whole record
        path.write_bytes(whole[:cut] + b"\n" + tail)
        scan = read_archive(path)
        assert [r.record_id for r in scan.records] == ["r2"], cut
        assert len(scan.incomplete) <= 1
    path.write_bytes(whole + tail)
    assert [r.record_id for r in read_archive(path).records] == ["r1", "r2"]
    body_start = whole.index(b"-->\n") + 4
    flipped = whole[:body_start + 5] + bytes([whole[body_start + 5] ^ 1]) + whole[body_start + 6:]
    path.write_bytes(flipped)
    assert read_archive(path).incomplete[0].reason == "checksum mismatch"


def test_archive_records_round_trip_any_text(tmp_path: Path) -> None:
    text = "emoji 🧪, CJK 压缩, NUL-free control \x07, fake marker <!-- ctxscope-archive:begin id=x bytes=1 -->"
    path = tmp_path / "m.md"
    path.write_bytes(_record("r1", text))
    (record,) = read_archive(path).records
    assert text in record.body
    assert record.meta["session"] == "agent:main:main" and record.meta["entry_ids"] == ["u1"]
    assert orjson.loads(orjson.dumps(record.meta))["first_kept_entry_id"] == "a9"
