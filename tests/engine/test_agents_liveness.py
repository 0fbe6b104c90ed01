"""Telling whether Claude Code or Codex is writing a session, without touching anything (docs/claude-code.md,
docs/codex.md)."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

from engine.agents.claude_code import ADAPTER as CLAUDE
from engine.agents.codex import ADAPTER as CODEX
from engine.fs.lock_info import process_starttime
from tests.engine._agent_files import SID, claude_session, codex_session


def _claude(tmp_path: Path) -> Path:
    return claude_session(tmp_path / ".claude" / "projects" / "-w" / f"{SID}.jsonl")


def _announce(tmp_path: Path, pid: int, start: int | None) -> Path:
    path = tmp_path / ".claude" / "sessions" / f"{pid}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"pid": pid, "sessionId": SID, "procStart": str(start), "status": "busy"}))
    return path


def test_a_live_claude_process_naming_the_session_is_its_writer(tmp_path: Path) -> None:
    transcript = _claude(tmp_path)
    assert CLAUDE.writer(transcript, SID, {}) is None
    announced = _announce(tmp_path, os.getpid(), process_starttime(os.getpid()))
    before = announced.read_bytes()
    assert CLAUDE.writer(transcript, SID, {}) == f"Claude Code pid {os.getpid()} (busy)"
    assert CLAUDE.writer(transcript, "another-session", {}) is None
    assert announced.read_bytes() == before


def test_a_dead_or_recycled_pid_is_no_writer(tmp_path: Path) -> None:
    transcript = _claude(tmp_path)
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    _announce(tmp_path, child.pid, 1)
    assert CLAUDE.writer(transcript, SID, {}) is None
    start = process_starttime(os.getpid())
    _announce(tmp_path, os.getpid(), (start or 0) + 1)  # our pid, another process's start: recycled
    assert CLAUDE.writer(transcript, SID, {}) is None


def test_the_codex_writer_is_whoever_holds_the_thread_lock(tmp_path: Path) -> None:
    home = tmp_path / ".codex"
    rollout = codex_session(home, compacted=False)
    lock = home / "thread-writer-locks" / f"{SID}.lock"
    lock.parent.mkdir(parents=True)
    lock.write_bytes(b"")
    assert CODEX.writer(rollout, SID, {}) is None
    with lock.open("rb") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        assert CODEX.writer(rollout, SID, {}) == f"Codex pid {os.getpid()}"
    assert CODEX.writer(rollout, SID, {}) is None
