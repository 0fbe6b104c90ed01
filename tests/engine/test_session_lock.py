"""OpenClaw's write lock: live locks are never broken, stale ones (dead, recycled, old, malformed) are."""

from __future__ import annotations

import errno
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson
import pytest

from engine.fs.session_lock import (
    LockError,
    LockHeldError,
    _observe,
    _remove_if_unchanged,
    acquire_lock,
    inspect_lock,
    lock_path_for,
    process_starttime,
)
from tests.conftest import MAIN_SESSION

CHILD = Path(__file__).with_name("_writer_child.py")


def iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def write_lock(transcript: Path, payload: dict[str, object] | bytes) -> Path:
    lock = lock_path_for(transcript)
    data = payload if isinstance(payload, bytes) else orjson.dumps(payload, option=orjson.OPT_INDENT_2)
    lock.write_bytes(data)
    return lock


def snapshot(path: Path) -> tuple[bytes, int, float]:
    st = path.stat()
    return path.read_bytes(), st.st_ino, st.st_mtime


def leftovers(directory: Path) -> list[str]:
    """Temp or renamed lock files left beside the lock."""
    return [p.name for p in directory.iterdir() if p.name.startswith(".") and ".lock." in p.name]


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    path = tmp_path / "76cc5ab5.jsonl"
    path.write_bytes(b'{"type":"session","version":3,"id":"s"}\n')
    return path


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    yield child
    child.kill()
    child.wait()


@pytest.fixture
def holder(transcript: Path) -> Iterator[subprocess.Popen[str]]:
    child = subprocess.Popen(
        [sys.executable, str(CHILD), "hold", str(transcript)], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    assert child.stdout.readline() == "ready\n"
    yield child
    child.kill()
    child.wait()
    child.stdout.close()


def test_acquire_writes_openclaw_payload_and_release_removes_it(transcript: Path) -> None:
    with open("/proc/self/stat", "rb") as fh:
        stat = fh.read()
    own_starttime = int(stat[stat.rfind(b")") + 2 :].split()[19])
    with acquire_lock(transcript) as lock:
        assert lock.path == transcript.with_name(transcript.name + ".lock")
        payload = orjson.loads(lock.path.read_bytes())
        assert set(payload) == {"pid", "createdAt", "starttime"}
        assert payload["pid"] == os.getpid()
        assert payload["starttime"] == own_starttime == process_starttime(os.getpid())
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", payload["createdAt"])
        assert lock.replaced is None
    assert not lock.path.exists()
    assert leftovers(transcript.parent) == []


def test_live_lock_held_by_a_subprocess_is_never_broken(
    transcript: Path, holder: subprocess.Popen[str]
) -> None:
    lock = lock_path_for(transcript)
    before = snapshot(lock)
    with pytest.raises(LockHeldError) as raised:
        acquire_lock(transcript, timeout=0.5)
    assert raised.value.info.pid == holder.pid
    assert f"pid {holder.pid}" in str(raised.value)
    assert "retry" in str(raised.value)
    assert snapshot(lock) == before
    info = inspect_lock(transcript)
    assert info is not None
    assert (info.pid, info.alive, info.stale, info.reason) == (holder.pid, True, False, "held")
    assert info.starttime == process_starttime(holder.pid)


def test_lock_of_a_killed_process_is_taken_over(transcript: Path, holder: subprocess.Popen[str]) -> None:
    holder.kill()
    holder.wait()
    info = inspect_lock(transcript)
    assert info is not None
    assert (info.pid, info.alive, info.stale, info.reason) == (holder.pid, False, True, "dead-pid")
    with acquire_lock(transcript, timeout=0) as lock:
        assert orjson.loads(lock.path.read_bytes())["pid"] == os.getpid()
        assert lock.replaced is not None
        assert lock.replaced.pid == holder.pid
    assert leftovers(transcript.parent) == []


def test_unreaped_zombie_holder_counts_as_dead(transcript: Path, holder: subprocess.Popen[str]) -> None:
    holder.send_signal(signal.SIGKILL)
    os.waitid(os.P_PID, holder.pid, os.WEXITED | os.WNOWAIT)  # exited, but left as a zombie
    info = inspect_lock(transcript)
    assert info is not None
    assert info.reason == "dead-pid"


def test_lock_older_than_thirty_minutes_is_stale_even_with_a_live_pid(
    transcript: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    now = datetime.now(UTC)
    write_lock(transcript, {"pid": sleeper.pid, "createdAt": iso(now - timedelta(minutes=29))})
    info = inspect_lock(transcript)
    assert info is not None
    assert (info.alive, info.stale, info.reason) == (True, False, "held")
    with pytest.raises(LockHeldError):
        acquire_lock(transcript, timeout=0.2)

    write_lock(transcript, {"pid": sleeper.pid, "createdAt": iso(now - timedelta(minutes=31))})
    info = inspect_lock(transcript)
    assert info is not None
    assert (info.alive, info.stale, info.reason) == (True, True, "too-old")
    assert info.age_seconds is not None and info.age_seconds > 30 * 60
    with acquire_lock(transcript, timeout=0) as lock:
        assert lock.replaced is not None and lock.replaced.reason == "too-old"


def test_recycled_pid_is_stale_and_matching_starttime_is_held(
    transcript: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    real = process_starttime(sleeper.pid)
    assert real is not None
    created = iso(datetime.now(UTC))
    write_lock(transcript, {"pid": sleeper.pid, "createdAt": created, "starttime": real})
    info = inspect_lock(transcript)
    assert info is not None
    assert (info.alive, info.stale) == (True, False)

    write_lock(transcript, {"pid": sleeper.pid, "createdAt": created, "starttime": real + 1})
    info = inspect_lock(transcript)
    assert info is not None
    assert (info.alive, info.stale, info.reason) == (False, True, "recycled-pid")
    with acquire_lock(transcript, timeout=0) as lock:
        assert lock.replaced is not None and lock.replaced.reason == "recycled-pid"


def test_committed_fixture_lock_payload_parses(tmp_path: Path) -> None:
    transcript = tmp_path / MAIN_SESSION.name
    shutil.copyfile(MAIN_SESSION.with_name(MAIN_SESSION.name + ".lock"), lock_path_for(transcript))
    info = inspect_lock(transcript)
    assert info is not None
    assert (info.pid, info.created_at, info.starttime) == (3748, "2026-01-31T11:53:47.108Z", None)
    assert info.stale
    assert "too-old" in info.reason


@pytest.mark.parametrize("payload", [b"", b"{not json", b"[]", b'{"createdAt": "2026-01-01T00:00:00.000Z"}'])
def test_malformed_payload_is_held_within_the_grace_period_then_stale(transcript: Path, payload: bytes) -> None:
    lock = write_lock(transcript, payload)
    info = inspect_lock(transcript)
    assert info is not None
    assert (info.pid, info.stale, info.reason) == (None, False, "held-malformed")
    with pytest.raises(LockHeldError, match="has not written its pid"):
        acquire_lock(transcript, timeout=0.2)
    assert lock.read_bytes() == payload

    old = lock.stat().st_mtime - 10
    os.utime(lock, (old, old))
    info = inspect_lock(transcript)
    assert info is not None
    assert (info.stale, info.reason) == (True, "malformed")
    with acquire_lock(transcript, timeout=0) as taken:
        assert orjson.loads(taken.path.read_bytes())["pid"] == os.getpid()


def test_release_leaves_a_lock_that_is_no_longer_ours(
    transcript: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    with acquire_lock(transcript) as lock:
        os.unlink(lock.path)
        foreign = write_lock(transcript, {"pid": sleeper.pid, "createdAt": iso(datetime.now(UTC))})
        before = snapshot(foreign)
        assert lock.release() is False
    assert snapshot(foreign) == before
    assert leftovers(transcript.parent) == []


def test_breaking_a_stale_lock_spares_a_fresh_lock_that_replaced_it(
    transcript: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    lock = write_lock(transcript, {"pid": dead_pid(), "createdAt": iso(datetime.now(UTC))})
    seen = _observe(lock)
    assert seen is not None
    # Another breaker removed the stale lock and took a fresh one before we acted on what we saw.
    os.unlink(lock)
    write_lock(transcript, {"pid": sleeper.pid, "createdAt": iso(datetime.now(UTC))})
    before = snapshot(lock)
    assert _remove_if_unchanged(lock, seen) is False
    assert snapshot(lock)[:2] == before[:2]
    assert leftovers(transcript.parent) == []

    seen = _observe(lock)
    assert seen is not None
    assert _remove_if_unchanged(lock, seen) is True
    assert not lock.exists()


def test_threads_racing_from_a_stale_lock_never_share_it(transcript: Path) -> None:
    write_lock(transcript, {"pid": dead_pid(), "createdAt": iso(datetime.now(UTC))})
    guard = threading.Lock()
    inside = 0
    most = 0
    errors: list[BaseException] = []
    barrier = threading.Barrier(6)

    def worker() -> None:
        nonlocal inside, most
        try:
            barrier.wait()
            for _ in range(15):
                with acquire_lock(transcript, timeout=20):
                    with guard:
                        inside += 1
                        most = max(most, inside)
                    with guard:
                        inside -= 1
        except BaseException as exc:  # noqa: BLE001 - surfaced below: a thread cannot fail the test itself
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert most == 1
    assert not lock_path_for(transcript).exists()
    assert leftovers(transcript.parent) == []


def test_note_append_records_the_intent_and_notices_a_lost_lock(
    transcript: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    with acquire_lock(transcript) as lock:
        lock.note_append(40, 1234)
        info = inspect_lock(transcript)
        assert info is not None
        assert (info.pid, info.stale, info.append_intent) == (os.getpid(), False, (40, 1234))
        assert {"pid", "createdAt", "starttime"} <= set(orjson.loads(lock.path.read_bytes()))

        os.unlink(lock.path)
        write_lock(transcript, {"pid": sleeper.pid, "createdAt": iso(datetime.now(UTC))})
        with pytest.raises(LockError, match="no longer ours"):
            lock.note_append(40, 1234)
    assert orjson.loads(lock_path_for(transcript).read_bytes())["pid"] == sleeper.pid


def test_no_lock_inspects_as_none(transcript: Path) -> None:
    assert inspect_lock(transcript) is None


def test_without_hard_links_the_lock_is_created_with_o_excl(
    transcript: Path, monkeypatch: pytest.MonkeyPatch, sleeper: subprocess.Popen[bytes]
) -> None:
    def no_links(_src: object, _dst: object) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    with acquire_lock(transcript) as lock:
        assert orjson.loads(lock.path.read_bytes())["pid"] == os.getpid()
        assert leftovers(transcript.parent) == []
    assert not lock.path.exists()
    write_lock(transcript, {"pid": sleeper.pid, "createdAt": iso(datetime.now(UTC))})
    with pytest.raises(LockHeldError):
        acquire_lock(transcript, timeout=0.1)


def test_breaking_a_stale_lock_sweeps_files_left_by_dead_processes(
    transcript: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    lock = lock_path_for(transcript)
    gone = dead_pid()
    dead_tmp = lock.with_name(f".{lock.name}.{gone}-0123abcd.tmp")
    dead_grave = lock.with_name(f".{lock.name}.{gone}-4567abcd.gone")
    live_tmp = lock.with_name(f".{lock.name}.{sleeper.pid}-89abcdef.tmp")
    for path in (dead_tmp, dead_grave, live_tmp):
        path.write_bytes(b"{}")
    write_lock(transcript, {"pid": gone, "createdAt": iso(datetime.now(UTC))})
    with acquire_lock(transcript, timeout=0):
        pass
    assert leftovers(transcript.parent) == [live_tmp.name]
