"""Reading OpenClaw 2026.9.6's database never changes it, never misses a committed row, never cries corruption.

The database files are copied while the gateway is idle: a copy is exactly what a stopped gateway leaves behind
(the database, its ``-wal`` and ``-shm``), without stopping the gateway the other tests share.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import sqlite3
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests.realagents.openclaw import ctxscope_side as cs
from tests.realagents.openclaw.harness import OpenClawHome, copy_store
from tests.realagents.openclaw.store import read_store
from tests.realagents.openclaw.waiting import wait_until

pytestmark = pytest.mark.realagents

KEY = "agent:main:readonly"
TUI_WAIT_S = 90.0
WRITER_S = 20.0


def _octet_length(value: object) -> int | None:
    if value is None:
        return None
    return len(value.encode()) if isinstance(value, str) else len(bytes(value))  # type: ignore[arg-type]


def _digests(agent_dir: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(agent_dir.iterdir())}


@pytest.fixture(scope="module")
def stopped_copy(oc: OpenClawHome, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A state dir holding the database files as a stopped gateway leaves them (with -wal and -shm)."""
    oc.agent(KEY, "read-only turn 1")
    oc.agent(KEY, "read-only turn 2")
    state = tmp_path_factory.mktemp("stopped") / "state"
    copy_store(oc.agent_dir, state / "agents" / "main" / "agent")
    shutil.copy2(oc.config_path, state / "openclaw.json")
    return state


def _tui_start(env: dict[str, str], db: Path, key: str, workdir: Path) -> str:
    """Start ``ctxscope tui DB`` in tmux, wait (bounded) until it shows ``key``, stop it; returns the screen."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is needed to start the TUI (apt-get install tmux)")
    script = workdir / "tui.sh"
    exports = "".join(f"export {k}={shlex.quote(v)}\n" for k, v in env.items() if k.isidentifier())
    command = " ".join(shlex.quote(p) for p in [*cs.ctxscope_command(), "tui", str(db)])
    script.write_text(f"#!/bin/sh\n{exports}exec {command}\n")
    script.chmod(0o755)
    session = f"ctxscope-oc-{os.getpid()}"
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "200", "-y", "50", str(script)], check=True,
                   timeout=30)
    try:
        def screen() -> str | None:
            shown = subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True,
                                   timeout=30).stdout
            return shown if key in shown else None

        return wait_until(screen, TUI_WAIT_S, f"the TUI to show {key}")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], check=False, timeout=30, capture_output=True)


def test_status_inspect_history_and_the_tui_leave_the_database_and_wal_byte_identical(
    oc: OpenClawHome, stopped_copy: Path, tmp_path: Path
) -> None:
    agent_dir = stopped_copy / "agents" / "main" / "agent"
    db = agent_dir / "openclaw-agent.sqlite"
    assert (agent_dir / "openclaw-agent.sqlite-wal").is_file(), "the copy should hold a -wal, as a stopped gateway"
    before = _digests(agent_dir)
    env = {**oc.env, "OPENCLAW_STATE_DIR": str(stopped_copy)}
    assert cs.status_row(env, KEY, db)["entries"] > 0
    assert cs.inspect(env, KEY, where=db).returncode == 0
    assert cs.history(env, KEY, where=db).returncode == 0
    _tui_start(env, db, KEY, tmp_path)
    after = _digests(agent_dir)
    for name in ("openclaw-agent.sqlite", "openclaw-agent.sqlite-wal"):
        assert after[name] == before[name], f"{name} changed"
    # -shm is SQLite's shared-memory index: a correct read of a WAL may rebuild it (docs/openclaw.md).
    assert set(after) <= set(before) | {"openclaw-agent.sqlite-shm"}


def _rows_moved_into_the_wal(staging: Path, dest: Path, session_id: str, count: int) -> None:
    """Copy ``staging``'s database to ``dest`` with the session's last ``count`` rows only in the ``-wal``.

    OpenClaw checkpoints its WAL when a store goes idle, so whether a turn's rows are still only in the WAL when a
    copy is taken depends on timing (a loaded machine lost that race). The rows are OpenClaw's own: taken out,
    the rest checkpointed into the main file, then put back unchanged (same rowid and columns) by a writer that
    never checkpoints; the files are copied while it is still open, which is the state a killed gateway leaves.
    """
    writer = sqlite3.connect(staging / "openclaw-agent.sqlite", isolation_level=None)
    try:
        writer.create_function("octet_length", 1, _octet_length, deterministic=True)
        writer.execute("PRAGMA wal_autocheckpoint=0")
        rows = writer.execute(
            "SELECT rowid, * FROM transcript_events WHERE session_id = ? ORDER BY seq DESC LIMIT ?",
            (session_id, count),
        ).fetchall()
        columns = [d[0] for d in writer.execute("SELECT rowid, * FROM transcript_events LIMIT 0").description]
        writer.execute("BEGIN")
        writer.executemany("DELETE FROM transcript_events WHERE rowid = ?", [(r[0],) for r in rows])
        writer.execute("COMMIT")
        writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        marks = ", ".join("?" for _ in columns)
        writer.execute("BEGIN")
        writer.executemany(f"INSERT INTO transcript_events ({', '.join(columns)}) VALUES ({marks})", rows)
        writer.execute("COMMIT")
        dest.mkdir(parents=True, exist_ok=True)
        for name in ("openclaw-agent.sqlite", "openclaw-agent.sqlite-wal"):
            shutil.copy2(staging / name, dest / name)
    finally:
        writer.close()


def test_a_wal_without_its_shm_is_read_with_every_committed_row(oc: OpenClawHome, tmp_path: Path) -> None:
    oc.agent(KEY, "read-only turn 3: only in the WAL so far")
    staging = tmp_path / "staging"
    copy_store(oc.agent_dir, staging)
    sid = read_store(staging).row(KEY).session_id
    agent_dir = tmp_path / "state" / "agents" / "main" / "agent"
    _rows_moved_into_the_wal(staging, agent_dir, sid, count=2)
    db = agent_dir / "openclaw-agent.sqlite"
    wal = agent_dir / "openclaw-agent.sqlite-wal"
    assert not (agent_dir / "openclaw-agent.sqlite-shm").exists()
    assert wal.is_file() and wal.stat().st_size > 0
    oracle = read_store(agent_dir)
    # The test means something only if the main file alone lacks rows the WAL holds.
    with sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True) as main_only:
        in_main = main_only.execute("SELECT count(*) FROM transcript_events WHERE session_id = ?", (sid,)).fetchone()
    assert in_main[0] == len(oracle.events[sid]) - 2, "the last two rows should be in the WAL only"
    before = {p: p.read_bytes() for p in (db, wal)}
    env = {**oc.env, "OPENCLAW_STATE_DIR": str(tmp_path / "state")}
    row = cs.status_row(env, KEY, db)
    assert row["entries"] == len(oracle.events[sid])
    assert all(p.read_bytes() == data for p, data in before.items())


def test_no_false_corruption_next_to_a_rollback_journal_writer(oc: OpenClawHome, tmp_path: Path) -> None:
    agent_dir = tmp_path / "state" / "agents" / "main" / "agent"
    db = copy_store(oc.agent_dir, agent_dir)
    with sqlite3.connect(db) as connection:
        connection.execute("PRAGMA journal_mode=DELETE")
    assert not (agent_dir / "openclaw-agent.sqlite-wal").exists()
    expected = cs.status_row({**oc.env, "OPENCLAW_STATE_DIR": str(tmp_path / "state")}, KEY, db)["entries"]
    stop = threading.Event()
    commits = [0]

    def writer() -> None:
        # Churns the transcript table's B-tree in short transactions, as a rollback-journal writer does.
        connection = sqlite3.connect(db, timeout=30)
        # OpenClaw's schema checks event sizes with octet_length(), which SQLite gained in 3.43.
        connection.create_function("octet_length", 1, _octet_length, deterministic=True)
        blob = "x" * 3000
        try:
            while not stop.is_set():
                with connection:
                    connection.executemany(
                        "INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, 0)",
                        [("churn", i, blob) for i in range(200)],
                    )
                with connection:
                    connection.execute("DELETE FROM transcript_events WHERE session_id = 'churn'")
                commits[0] += 2
                stop.wait(0.002)
        finally:
            connection.close()

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    env = {**oc.env, "OPENCLAW_STATE_DIR": str(tmp_path / "state")}
    failures = []
    deadline = time.monotonic() + WRITER_S
    runs = 0
    try:
        while time.monotonic() < deadline or runs < 3:
            out = cs.ctxscope("status", "--json", str(db), env=env, timeout=120)
            runs += 1
            rows = [r for r in out.json() if r.get("key") == KEY] if out.returncode == 0 else []
            if out.returncode != 0 or "malformed" in out.stderr or len(rows) != 1 or rows[0]["entries"] != expected:
                failures.append(out.describe())
    finally:
        stop.set()
        thread.join(60)
    assert commits[0] > 0 and runs >= 3
    assert not failures, failures[0]
