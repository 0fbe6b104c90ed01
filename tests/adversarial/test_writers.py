"""Writers that do not follow the rules (issue items 6–8): compaction beside a writer that ignores the lock and
writes lines in two parts or megabytes at a time, and what ctxscope does while it holds OpenClaw's lock."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from engine.agents.discovery import discover_sessions
from engine.compaction import controllers
from engine.compaction.controllers import apply_compaction
from engine.compaction.planner import plan_compaction
from engine.config.compaction_settings import CompactionSettings
from engine.config.loader import Config
from engine.fs import jsonl_append
from engine.fs.jsonl_append import append_entries
from engine.fs.session_lock import SessionLock
from engine.session.snapshot import SessionFollower
from tests.adversarial._harness import ROOT, Conversation, one_line_error, run_cli, trials
from tests.engine._transcripts import HEADER

pytestmark = pytest.mark.reliability
WRITER = Path(__file__).with_name("_unlocked_writer.py")


def _session(path: Path) -> Path:
    talk = Conversation()
    for n in range(10):
        talk.turn(n, f"step {n}: please continue", f"Working on step {n}. " + "details " * 200)
    return talk.write(path)


def _beside_writer(tmp_path: Path, mode: str, compactions: int) -> tuple[bytes, list[tuple[int, list[str]]], int]:
    """Run ``compactions`` CLI compactions while the unlocked writer runs; the final bytes, each run's exit code
    and entry ids, and the number of lines the writer wrote."""
    home, state = tmp_path / "home", tmp_path / "state"
    path = _session(tmp_path / "s" / "s.jsonl")
    stop, count = tmp_path / "stop", tmp_path / "count"
    writer = subprocess.Popen([sys.executable, str(WRITER), str(path), mode, str(stop), str(count)],
                              stdout=subprocess.PIPE, text=True, cwd=ROOT)
    runs: list[tuple[int, list[str]]] = []
    try:
        assert writer.stdout is not None and writer.stdout.readline() == "ready\n"
        for _ in range(compactions):
            result = run_cli(["--state-dir", str(state), "compact", str(path), "--yes", "--keep-recent", "200",
                              "--json"], home)
            assert result.returncode in (0, 1, 4), result.stderr[-2000:]
            if result.returncode:
                one_line_error(result)
                runs.append((result.returncode, []))
            else:
                runs.append((0, list(orjson.loads(result.stdout)["result"]["entry_ids"])))
    finally:
        stop.write_text("")
        writer.wait(timeout=120)
        if writer.stdout is not None:
            writer.stdout.close()
    return path.read_bytes(), runs, int(count.read_text())


def _check(data: bytes, runs: list[tuple[int, list[str]]], written: int) -> dict[str, int]:
    lines = data.split(b"\n")
    assert lines[-1] == b"", "the file ends mid-line"
    objects: list[dict[str, Any]] = []
    torn = 0
    for raw in lines[:-1]:
        try:
            objects.append(orjson.loads(raw))
        except orjson.JSONDecodeError:
            torn += 1
    writer_ids = [o["id"] for o in objects if str(o.get("id", "")).startswith("w")]
    ours = {o["id"]: (i, o) for i, o in enumerate(objects) if o.get("type") in ("compaction", "custom_message")}
    applied = [ids for code, ids in runs if code == 0]
    assert torn == 0, f"{torn} torn lines"
    assert writer_ids == [f"w{n:07d}" for n in range(written)], "the writer lost or duplicated lines"
    assert sorted(ours) == sorted(i for ids in applied for i in ids), "a refused compaction wrote something"
    for ids in applied:
        index, first = ours[ids[0]]
        previous = next(o for o in reversed(objects[:index]) if isinstance(o.get("id"), str))
        assert first["parentId"] == previous["id"], "a compaction was chained to a leaf that was no longer last"
    return {"applied": len(applied), "refused": len(runs) - len(applied), "writer lines": written}


def test_06_a_writer_mid_line_never_gets_entries_glued_on(tmp_path: Path) -> None:
    data, runs, written = _beside_writer(tmp_path, "split", trials(6, 18))
    outcome = _check(data, runs, written)
    print(f"writer mid-line: {outcome}")


def test_07_compactions_never_land_on_a_dead_branch(tmp_path: Path) -> None:
    data, runs, written = _beside_writer(tmp_path, "big", trials(6, 18))
    outcome = _check(data, runs, written)
    print(f"megabyte writer: {outcome}")


def test_08_under_the_lock_only_the_recheck_and_one_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    talk = Conversation()
    for n in range(12):
        talk.turn(n, f"step {n}", "details " * 300)
    session = talk.write(tmp_path / "s.jsonl", {**HEADER, "cwd": str(workspace)})
    config = Config(compaction=CompactionSettings(workspace=workspace))
    follower = SessionFollower(discover_sessions([session]).sessions[0], config)
    plan = plan_compaction(follower.refresh(), "drop-only", keep_recent=300, config=config,
                           load=follower.reader.read_object, state_dir=tmp_path / "state")
    assert plan.applicable, plan.blocked
    # The agent moves the leaf after planning, so the controller has to plan again and write a new archive record.
    append_entries(session, lambda _leaf: [{"type": "message", "message": {"role": "user", "content": "more",
                                                                          "timestamp": 1}}])

    held = {"now": False}
    under_lock: list[str] = []
    done: list[str] = []
    real_acquire, real_release = jsonl_append.acquire_lock, SessionLock.release

    def acquire(*args: Any, **kwargs: Any) -> SessionLock:
        lock = real_acquire(*args, **kwargs)
        held["now"] = True
        return lock

    def release(self: SessionLock) -> bool:
        held["now"] = False
        return real_release(self)

    def spy(name: str, function: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            done.append(name)
            if held["now"]:
                under_lock.append(name)
            return function(*args, **kwargs)

        return call

    monkeypatch.setattr(jsonl_append, "acquire_lock", acquire)
    monkeypatch.setattr(SessionLock, "release", release)
    for name in ("plan_compaction", "append_archive_record", "record_action"):
        monkeypatch.setattr(controllers, name, spy(name, getattr(controllers, name)))
    monkeypatch.setattr(os, "fsync", spy("fsync", os.fsync))
    result = apply_compaction(plan, follower=follower, config=config, state_dir=tmp_path / "state")
    assert result.replanned and result.archive is not None
    assert {"plan_compaction", "append_archive_record", "record_action", "fsync"} <= set(done)
    assert under_lock == [], f"done while holding OpenClaw's lock: {under_lock}"
