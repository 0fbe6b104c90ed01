"""Bad input that hangs, crashes or explodes, failures that were silent, and the SQLite read mode (issue 18,
items 9–14). Memory is the peak RSS of the command itself; wall time is only bounded
generously here (``bench/`` measures it)."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
import threading
from pathlib import Path

import orjson
import pytest

from engine.agents import discovery
from tests.adversarial._harness import (
    FULL,
    ROOT,
    Conversation,
    measure_cli,
    one_line_error,
    openclaw_store,
    run_cli,
    trials,
    without_dac_override,
    write_config,
)
from tests.engine._transcripts import HEADER, line, tool_result

pytestmark = pytest.mark.reliability
RSS_LIMIT_MB = 300.0


def test_09_one_bad_entry_never_breaks_discovery(tmp_path: Path) -> None:
    home = tmp_path / "home"
    directory = openclaw_store(tmp_path / "a", {"agent:main:good": Conversation().turn(0, "hi", "hello")})
    store = orjson.loads((directory / "sessions.json").read_bytes())
    store.update({f"agent:main:{n}": {"sessionId": sid} for n, sid in enumerate(["*", "**", "[a-", "../*"])})
    (directory / "sessions.json").write_bytes(orjson.dumps(store))
    (directory / "loop.jsonl").symlink_to(directory / "loop.jsonl")
    os.mkfifo(directory / "fifo.jsonl")
    other = tmp_path / "b" / "agents" / "main" / "sessions"
    Conversation().turn(0, "hi", "there").write(other / "good2.jsonl")
    os.mkfifo(other / "sessions.json")
    result = run_cli(["status", str(directory), str(other), "--json"], home, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert len(orjson.loads(result.stdout)) == 2
    errors = one_line_error(result)
    for name in ("loop.jsonl", "fifo.jsonl", "sessions.json"):
        assert name in errors
    inspected = run_cli(["inspect", "agent:main:good", "--in", str(directory)], home, timeout=120)
    assert inspected.returncode == 0, inspected.stderr[-2000:]


def _write_huge_line(path: Path, size: int) -> None:
    with path.open("wb") as handle:
        handle.write(line(HEADER) + line(Conversation().turn(0, "hi", "hello").entries[0]))
        handle.write(b'{"type":"message","id":"big","parentId":"u0","message":{"role":"user","content":"')
        block = b"x" * (1 << 20)
        for _ in range(size >> 20):
            handle.write(block)


def _sqlite_bomb(path: Path, blobs: int) -> None:
    import zstandard

    connection = sqlite3.connect(path)
    connection.executescript("""
        CREATE TABLE session_nodes (session_key TEXT PRIMARY KEY, current_session_id TEXT, entry_json TEXT,
          entry_valid INTEGER, updated_at INTEGER, status TEXT, created_at INTEGER);
        CREATE TABLE session_windows (session_id TEXT PRIMARY KEY, session_key TEXT, previous_session_id TEXT,
          reason TEXT, created_at INTEGER, updated_at INTEGER);
        CREATE TABLE transcript_events (session_id TEXT, seq INTEGER, event_json TEXT, created_at INTEGER,
          event_zstd BLOB, event_utf8_bytes INTEGER, PRIMARY KEY (session_id, seq));""")
    connection.execute("INSERT INTO session_nodes VALUES ('agent:main:main', 's-1', ?, 1, 1, 'done', 1)",
                       (orjson.dumps({"sessionId": "s-1", "updatedAt": 1}).decode(),))
    connection.execute("INSERT INTO session_windows VALUES ('s-1', 'agent:main:main', NULL, 'initial', 1, 1)")
    connection.execute("INSERT INTO transcript_events VALUES ('s-1', 0, ?, 1, NULL, 1)", (line(HEADER).decode(),))
    # No content size in the frame header: the decompressor cannot know how much is coming (2 GiB each).
    compressor = zstandard.ZstdCompressor(level=1, write_content_size=False).compressobj()
    chunks = [compressor.compress(b'{"type":"message","id":"b","message":{"role":"user","content":"')]
    zeros = b"a" * (64 << 20)
    chunks += [compressor.compress(zeros) for _ in range(32)]
    blob = b"".join([*chunks, compressor.flush()])
    for seq in range(1, blobs + 1):
        connection.execute("INSERT INTO transcript_events VALUES ('s-1', ?, NULL, 1, ?, 1)", (seq, blob))
    connection.commit()
    connection.close()


def test_10_huge_and_sparse_inputs_stay_bounded(tmp_path: Path) -> None:
    home = tmp_path / "home"
    big = tmp_path / "big" / "s.jsonl"
    big.parent.mkdir()
    _write_huge_line(big, 256 << 20)  # a 256 MiB line with no newline
    sparse = tmp_path / "sparse" / "s.jsonl"
    sparse.parent.mkdir()
    with sparse.open("wb") as handle:
        handle.write(line(HEADER) + line(Conversation().turn(0, "hi", "hello").entries[0]))
        handle.truncate(2 << 30)  # a 2 GiB hole, then one more line after it
        handle.seek(0, os.SEEK_END)
        handle.write(b"\n" + line(tool_result("t1", "u0", "after the hole")))
    token = Conversation().turn(0, "run it", "ok", call={"command": "cat blob"},
                                output="A" * (16 << 20)).write(tmp_path / "token" / "s.jsonl")
    bomb = tmp_path / "bomb" / "openclaw-agent.sqlite"
    bomb.parent.mkdir()
    _sqlite_bomb(bomb, 8)
    runs = [(big, "status"), (big, "status --full"), (big, "inspect"), (sparse, "status"), (sparse, "status --full"),
            (sparse, "inspect"), (token, "status"), (token, "inspect"), (bomb, "status --full")]
    report = []
    for path, command in runs:
        words = command.split()
        args = [words[0], str(path), *words[1:]] if words[0] == "status" else [words[0], str(path)]
        measured = measure_cli(args, home, timeout=300)
        report.append(f"{path.parent.name} {command}: {measured.max_rss_mb:.0f} MB, {measured.seconds:.1f} s")
        assert not measured.timed_out, report[-1]
        assert measured.returncode in (0, 1), (report[-1], measured.stderr[-2000:])
        assert "Traceback" not in measured.stderr, measured.stderr[-2000:]
        assert measured.max_rss_mb <= RSS_LIMIT_MB, report[-1]
    print("\n".join(report))


def test_10_a_store_is_listed_once_not_globbed_per_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    entries = trials(1000, 4000)
    directory = openclaw_store(tmp_path, {f"agent:main:{n}": Conversation() for n in range(entries)})
    globs, listings = [], []
    real_glob, real_listdir = Path.glob, os.listdir
    monkeypatch.setattr(Path, "glob", lambda self, pattern: globs.append(pattern) or real_glob(self, pattern))
    monkeypatch.setattr(os, "listdir", lambda path=".": listings.append(path) or real_listdir(path))
    found = discovery.discover_sessions([directory / "sessions.json"])
    assert len(found.sessions) == entries
    assert globs == [] and len(listings) <= 2, (len(globs), len(listings))


_BILLION_LAUGHS = "\n".join(
    ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    + [f"{c}: &{c} [{','.join(['*' + p] * 9)}]" for p, c in zip("abcdefgh", "bcdefghi", strict=True)]
    + ["retention: *i"]
)


@pytest.mark.parametrize(("text", "key"), [
    (_BILLION_LAUGHS, "alias"),
    ("retention: .nan", "retention"),
    ("retention: 0", "retention"),
    ("retention: -1", "retention"),
    ("thresholds: {gauge: .inf}", "thresholds.gauge"),
    ("keep_recent_tokens: " + "9" * 5000, "YAML"),
    (b"reserve_floor: 1\nstate_dir: \xff\xfe\n", "UTF-8"),
    ("state_dir: ''", "state_dir"),
    ("state_dir: [1, 2]", "state_dir"),
    ("compaction: {max_auto_compactions: 1e400}", "compaction.max_auto_compactions"),
], ids=["billion-laughs", "nan", "zero", "negative", "inf", "5000-digits", "non-utf8", "empty-dir", "list-dir",
        "huge-float"])
def test_11_a_bad_config_is_refused_in_one_line_naming_the_key(tmp_path: Path, text: str | bytes, key: str) -> None:
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    cwd.mkdir()
    config = write_config(home, "")
    config.write_bytes(text if isinstance(text, bytes) else text.encode())
    session = Conversation().turn(0, "hi", "hello").write(tmp_path / "s" / "s.jsonl")
    result = run_cli(["checkpoint", str(session)], home, cwd=cwd, timeout=120)
    assert result.returncode == 2, result.stderr[-500:]
    error = one_line_error(result)
    assert len(error) < 400 and key in error, error[:400]
    assert list(cwd.iterdir()) == []


def test_12_errors_are_one_line_never_a_traceback(tmp_path: Path) -> None:
    home = tmp_path / "home"
    no_dac = without_dac_override()
    session = Conversation().turn(0, "hi", "hello " * 50).turn(1, "more", "text " * 50).write(
        tmp_path / "s" / "s.jsonl")
    session.chmod(0)
    result = run_cli(["--state-dir", str(tmp_path / "state"), "checkpoint", str(session)], home, prefix=no_dac)
    assert result.returncode == 1 and "Permission denied" in one_line_error(result)
    session.chmod(0o644)
    read_only = tmp_path / "ro"
    read_only.mkdir()
    read_only.chmod(0o555)
    result = run_cli(["--state-dir", str(read_only / "state"), "checkpoint", str(session)], home, prefix=no_dac)
    assert result.returncode == 1 and "Permission denied" in one_line_error(result)

    for kind in ("directory", "symlink"):
        lock = session.with_name(session.name + ".lock")
        if kind == "directory":
            lock.mkdir()
        else:
            lock.symlink_to(tmp_path / "nowhere")
        result = run_cli(["--state-dir", str(tmp_path / "state"), "compact", str(session), "--yes",
                          "--keep-recent", "10"], home)
        assert result.returncode in (1, 4) and "not a lock file" in one_line_error(result), kind
        assert run_cli(["status", str(session)], home).returncode == 0
        lock.rmdir() if kind == "directory" else lock.unlink()


def test_12_a_transcript_truncated_or_replaced_mid_read_gives_one_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    talk = Conversation()
    for n in range(200):
        talk.turn(n, f"step {n}", "details " * 400, call={"command": f"make {n}"}, output="output line\n" * 200)
    original = talk.write(tmp_path / "orig.jsonl")
    target = tmp_path / "s" / "s.jsonl"
    target.parent.mkdir()
    target.write_bytes(original.read_bytes())
    churn = subprocess.Popen([sys.executable, "-c", _CHURN, str(original), str(target)], cwd=ROOT)
    outcomes: dict[str, int] = {}
    try:
        for command in ("inspect", "checkpoint"):
            for _ in range(trials(10, 30)):
                result = run_cli(["--state-dir", str(tmp_path / "state"), command, str(target)], home, timeout=300)
                assert result.returncode in (0, 1, 3), result.stderr[-2000:]
                if result.returncode:
                    one_line_error(result)
                outcomes[f"{command} exit {result.returncode}"] = outcomes.get(f"{command} exit {result.returncode}",
                                                                               0) + 1
    finally:
        churn.kill()
        churn.wait()
    print(f"mid-read churn: {outcomes}")


_CHURN = r"""
import os, random, sys, time
src, dst = sys.argv[1], sys.argv[2]
data = open(src, "rb").read()
rng = random.Random(3)
while True:
    mode = rng.choice(["truncate", "replace", "rewrite"])
    if mode == "truncate":
        with open(dst, "r+b") as f:
            f.truncate(rng.randrange(1, len(data)))
    elif mode == "replace":
        tmp = dst + ".tmp"
        with open(tmp, "wb") as f:
            f.write(data[: rng.randrange(len(data) // 2, len(data))])
        os.replace(tmp, dst)
    else:
        with open(dst, "wb") as f:
            f.write(data)
    time.sleep(rng.uniform(0, 0.003))
"""


def test_13_an_unreadable_sessions_dir_is_reported_not_empty(tmp_path: Path) -> None:
    home = tmp_path / "home"
    no_dac = without_dac_override()
    directory = openclaw_store(tmp_path / "oc", {"agent:main:main": Conversation().turn(0, "hi", "hello")})
    directory.chmod(0)
    try:
        result = run_cli(["status", str(directory)], home, prefix=no_dac)
        assert result.returncode == 1 and str(directory) in one_line_error(result)
        assert "No sessions found" not in result.stdout
        # The same through the default locations: ~/.openclaw/agents/main/sessions unreadable.
        default = home / ".openclaw" / "agents" / "main" / "sessions"
        default.mkdir(parents=True)
        default.chmod(0)
        result = run_cli(["status"], home, prefix=no_dac)
        assert result.returncode == 1 and str(default) in one_line_error(result)
        default.chmod(stat.S_IRWXU)
    finally:
        directory.chmod(stat.S_IRWXU)
    if FULL:
        assert run_cli(["status", str(directory)], home).returncode == 0


def test_13_a_corrupt_sqlite_store_is_named(tmp_path: Path) -> None:
    home = tmp_path / "home"
    agent_dir = tmp_path / "state" / "agents" / "main" / "agent"
    agent_dir.mkdir(parents=True)
    db = agent_dir / "openclaw-agent.sqlite"
    db.write_bytes(b"SQLite format 3\x00" + os.urandom(64 << 10))
    for args in (["status", str(db)], ["status", str(tmp_path / "state")], ["inspect", "agent:main:main"]):
        result = run_cli(args, home, OPENCLAW_STATE_DIR=str(tmp_path / "state"))
        assert result.returncode != 0, args
        assert str(db) in result.stderr and "not a database" in result.stderr, (args, result.stderr[-1000:])
        assert "Traceback" not in result.stderr


def _journal_db(path: Path, extra: int) -> int:
    """A database in rollback-journal mode (no ``-wal``/``-shm``: the case ``immutable=1`` was once chosen for)
    whose session has ``extra`` more events, so a read takes long enough for a writer to move pages under it."""
    from tests.engine.test_sqlite_store import build_db

    entries = len(build_db(path, wal=False))
    with sqlite3.connect(path) as connection:
        connection.executemany("INSERT INTO transcript_events VALUES ('s-1', ?, ?, 1, NULL, 0)", [
            (entries + i, orjson.dumps({"type": "message", "id": f"x{i}", "parentId": None,
                                        "message": {"role": "user", "content": "filler " * 100}}).decode())
            for i in range(extra)])
    connection.close()
    return entries + extra


def test_14_no_false_corruption_beside_a_rollback_journal_writer(tmp_path: Path) -> None:
    home = tmp_path / "home"
    db = tmp_path / "state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    db.parent.mkdir(parents=True)
    entries = _journal_db(db, extra=3000)
    stop = threading.Event()

    def churn() -> None:
        # Splits and merges the pages next to the session's rows ('s-10' sorts right after 's-1') in short
        # transactions, as a rollback-journal writer does: the old immutable reads saw torn B-trees (15 of 15).
        connection = sqlite3.connect(db, timeout=30)
        try:
            while not stop.is_set():
                with connection:
                    connection.executemany("INSERT INTO transcript_events VALUES ('s-10', ?, ?, 0, NULL, 0)",
                                           [(i, "x" * 3000) for i in range(200)])
                with connection:
                    connection.execute("DELETE FROM transcript_events WHERE session_id = 's-10'")
                stop.wait(0.002)
        finally:
            connection.close()

    writer = threading.Thread(target=churn, daemon=True)
    writer.start()
    outcomes: dict[str, int] = {}
    try:
        for _ in range(trials(12, 50)):
            result = run_cli(["status", str(db), "--json", "--full"], home, timeout=120)
            rows = orjson.loads(result.stdout) if result.returncode == 0 else []
            seen = "ok" if [r.get("entries") for r in rows] == [entries] else result.stderr.strip()[:200]
            outcomes[seen] = outcomes.get(seen, 0) + 1
    finally:
        stop.set()
        writer.join(30)
    print(f"reads beside a rollback-journal writer: {outcomes}")
    assert outcomes == {"ok": sum(outcomes.values())}, outcomes


def test_14_a_wal_without_its_shm_gives_every_committed_row(tmp_path: Path) -> None:
    home = tmp_path / "home"
    staging = tmp_path / "staging" / "openclaw-agent.sqlite"
    staging.parent.mkdir()
    from tests.engine.test_sqlite_store import build_db

    entries = len(build_db(staging))
    writer = sqlite3.connect(staging, isolation_level=None)
    try:
        writer.execute("PRAGMA wal_autocheckpoint=0")
        for seq in range(entries, entries + 3):
            event = {"type": "message", "id": f"w{seq}", "parentId": None,
                     "message": {"role": "user", "content": f"only in the WAL {seq}"}}
            writer.execute("INSERT INTO transcript_events VALUES ('s-1', ?, ?, 1, NULL, 0)",
                           (seq, orjson.dumps(event).decode()))
        # Copied while the writer is open: what a killed gateway leaves, minus the -shm index.
        db = tmp_path / "state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
        db.parent.mkdir(parents=True)
        for suffix in ("", "-wal"):
            (db.parent / (db.name + suffix)).write_bytes((staging.parent / (staging.name + suffix)).read_bytes())
    finally:
        writer.close()
    wal = db.with_name(db.name + "-wal")
    assert wal.stat().st_size > 0 and not db.with_name(db.name + "-shm").exists()
    before = {p: p.read_bytes() for p in (db, wal)}
    for full in ([], ["--full"]):
        result = run_cli(["status", str(db), "--json", *full], home)
        assert result.returncode == 0, result.stderr[-1000:]
        row = orjson.loads(result.stdout)[0]
        assert row["leaf_id"] == f"w{entries + 2}", row
        if full:
            assert row["entries"] == entries + 3
    assert all(p.read_bytes() == data for p, data in before.items())
