"""The persistent index: a second read costs the new bytes, and a stale, damaged or foreign cache is never trusted."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from engine.index.cache import FORMAT_VERSION, IndexCache, LoadedIndex, decode_index, encode_index, shard_of
from engine.index.transcript_index import TranscriptIndex, index_transcript
from tests.conftest import MAIN_SESSION, OPENCLAW
from tests.engine._index_oracle import full_records

ROOT = Path(__file__).resolve().parents[2]
CHILD = Path(__file__).with_name("_index_child.py")
TRIALS = int(os.environ.get("CTXSCOPE_TRIALS", "200" if os.environ.get("CTXSCOPE_FULL") == "1" else "12"))


def _agrees(result: TranscriptIndex, path: Path) -> None:
    calls, compactions, lines = full_records(path)
    assert list(result.calls or ()) == calls
    assert list(result.compactions) == compactions
    assert result.lines == lines


def _copy(tmp_path: Path, name: str = "s.jsonl") -> Path:
    path = tmp_path / name
    shutil.copy(MAIN_SESSION, path)
    return path


@pytest.fixture
def cache(tmp_path: Path) -> IndexCache:
    return IndexCache(tmp_path / "cache")


def test_a_second_read_scans_nothing(tmp_path: Path, cache: IndexCache) -> None:
    path = _copy(tmp_path)
    first = index_transcript(path, cache, calls=True)
    second = index_transcript(path, IndexCache(cache.root), calls=True)  # a new process: only the file is shared
    assert (first.cache, second.cache) == ("cold", "warm")
    assert first.scanned_bytes == path.stat().st_size and second.scanned_bytes == 0
    _agrees(second, path)


def test_an_append_scans_only_the_new_bytes(tmp_path: Path, cache: IndexCache) -> None:
    path = _copy(tmp_path)
    index_transcript(path, cache)  # status: calls only located
    extra = [raw for raw in MAIN_SESSION.read_bytes().splitlines(keepends=True) if b'"role":"assistant"' in raw][:5]
    with path.open("ab") as out:
        out.write(b"".join(extra))
    grown = index_transcript(path, IndexCache(cache.root), calls=True)
    assert grown.cache == "extended" and grown.scanned_bytes == sum(map(len, extra))
    _agrees(grown, path)


def test_a_partial_last_line_waits_for_its_newline(tmp_path: Path, cache: IndexCache) -> None:
    path = _copy(tmp_path)
    line = MAIN_SESSION.read_bytes().splitlines(keepends=True)[-1]
    with path.open("ab") as out:
        out.write(line[:40])
    before = index_transcript(path, cache, calls=True)
    with path.open("ab") as out:
        out.write(line[40:])
    after = index_transcript(path, IndexCache(cache.root), calls=True)
    assert after.cache == "extended" and after.offset == path.stat().st_size > before.offset
    _agrees(after, path)


@pytest.mark.parametrize("regrow", [False, True], ids=["shorter", "regrown-past-the-old-offset"])
def test_truncation_is_rebuilt(tmp_path: Path, cache: IndexCache, regrow: bool) -> None:
    path = _copy(tmp_path)
    index_transcript(path, cache, calls=True)
    lines = MAIN_SESSION.read_bytes().splitlines(keepends=True)
    kept = b"".join(lines[: len(lines) // 2])
    with path.open("r+b") as handle:  # in place: same inode, as a careless tool would do it
        handle.truncate(len(kept) - 10)
        if regrow:
            handle.seek(0, os.SEEK_END)
            handle.write(lines[-1][10:] + b"".join(reversed(lines[len(lines) // 2 :])) + lines[0])
    result = index_transcript(path, IndexCache(cache.root), calls=True)
    assert result.cache == "rebuilt"
    _agrees(result, path)


def test_rotation_is_rebuilt(tmp_path: Path, cache: IndexCache) -> None:
    path = _copy(tmp_path)
    index_transcript(path, cache, calls=True)
    other = OPENCLAW / "42naodia__moltbot-config__f8c3e7a8-7dc1-43cc-8ce0-a9d268c29be1.jsonl"
    replacement = tmp_path / "new.jsonl"
    replacement.write_bytes(other.read_bytes() * 4)  # larger than before: growth alone would look like an append
    os.replace(replacement, path)
    result = index_transcript(path, IndexCache(cache.root), calls=True)
    assert result.cache == "rebuilt"
    _agrees(result, path)


def _flip_digit(path: Path, needle: bytes, *, occurrence: int) -> None:
    data = bytearray(path.read_bytes())
    at = -1
    for _ in range(occurrence + 1):
        at = data.index(needle, at + 1)
    digit = at + len(needle)
    data[digit] = ord("1") if data[digit] != ord("1") else ord("2")
    with path.open("r+b") as handle:
        handle.write(bytes(data))


@pytest.mark.parametrize("where", ["middle-new-mtime", "start-old-mtime", "end-old-mtime"])
def test_an_in_place_edit_is_rebuilt(tmp_path: Path, cache: IndexCache, where: str) -> None:
    path = _copy(tmp_path)
    index_transcript(path, cache, calls=True)
    before = path.stat()
    count = MAIN_SESSION.read_bytes().count(b'"input":')
    if where == "middle-new-mtime":
        _flip_digit(path, b'"input":', occurrence=count // 2)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))
    else:
        if where == "start-old-mtime":
            _flip_digit(path, b'"timestamp":"2026-01-31T0', occurrence=0)
        else:
            _flip_digit(path, b'"input":', occurrence=count - 1)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # the edit hides its time; the digests see it
    assert path.stat().st_size == before.st_size
    result = index_transcript(path, IndexCache(cache.root), calls=True)
    assert result.cache == "rebuilt"
    _agrees(result, path)


def _only_file(cache: IndexCache) -> Path:
    assert cache.directory is not None
    (found,) = [p for p in cache.directory.iterdir() if p.suffix == ".idx"]
    return found


def test_a_cache_from_another_version_is_rebuilt_and_replaced(tmp_path: Path, cache: IndexCache) -> None:
    path = _copy(tmp_path)
    index_transcript(path, cache, calls=True)
    stored = _only_file(cache)
    head, _, body = stored.read_bytes().partition(b"\n")
    header = orjson.loads(head)
    header["version"] = FORMAT_VERSION + 1
    stored.write_bytes(orjson.dumps(header) + b"\n" + body)
    result = index_transcript(path, IndexCache(cache.root), calls=True)
    assert result.cache == "rebuilt"
    _agrees(result, path)
    assert decode_index(stored.read_bytes()) is not None  # written back in this version


@pytest.mark.parametrize("damage", ["truncated", "flipped-byte-in-calls", "garbage", "empty", "swapped-sections"])
def test_a_damaged_cache_file_is_never_trusted(tmp_path: Path, cache: IndexCache, damage: str) -> None:
    path = _copy(tmp_path)
    index_transcript(path, cache, calls=True)
    stored = _only_file(cache)
    data = stored.read_bytes()
    if damage == "truncated":
        data = data[: len(data) - 100]
    elif damage == "flipped-byte-in-calls":
        at = data.index(b"claude", data.index(b"\n")) if b"claude" in data else data.rindex(b"MiniMax")
        data = data[:at] + b"X" + data[at + 1 :]
    elif damage == "garbage":
        data = bytes(random.Random(3).randrange(256) for _ in range(len(data)))
    elif damage == "empty":
        data = b""
    else:  # a valid file whose entry for this transcript holds another transcript's sections
        other = tmp_path / "other.jsonl"
        other.write_bytes(b"".join(MAIN_SESSION.read_bytes().splitlines(keepends=True)[:9]))
        index_transcript(other, cache, calls=True)
        entries = decode_index(stored.read_bytes())
        assert entries is not None and len(entries) == 2  # one shard: both sessions of the directory
        entries[os.path.abspath(path)] = entries[os.path.abspath(other)]
        data = encode_index({k: {n: d for n, (d, _) in v.items()} for k, v in entries.items()})
    stored.write_bytes(data)
    result = index_transcript(path, IndexCache(cache.root), calls=True)
    assert result.cache == "rebuilt"
    _agrees(result, path)


def test_damage_to_a_section_status_skipped_is_caught_when_report_reads_it(tmp_path: Path, cache: IndexCache) -> None:
    path = _copy(tmp_path)
    index_transcript(path, cache, calls=True)
    stored = _only_file(cache)
    data = stored.read_bytes()
    sections = decode_index(data)
    assert sections is not None
    header, _, body = data.partition(b"\n")
    calls_at = body.index(b"[[", body.index(b"]}") + 2)  # the calls section follows the core section
    stored.write_bytes(header + b"\n" + body[:calls_at + 3] + b"9" + body[calls_at + 4 :])
    assert index_transcript(path, IndexCache(cache.root)).cache == "warm"  # status: the calls are not read
    result = index_transcript(path, IndexCache(cache.root), calls=True)
    assert result.cache == "rebuilt"
    _agrees(result, path)


def _wait_ready(child: subprocess.Popen[str]) -> None:
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "ready"


@pytest.mark.reliability
def test_a_concurrent_writer_never_makes_the_index_wrong(tmp_path: Path, cache: IndexCache) -> None:
    path = tmp_path / "live.jsonl"
    path.write_bytes(orjson.dumps({"type": "session", "version": 3, "id": "live", "cwd": "/w"}) + b"\n")
    seen: list[TranscriptIndex] = []
    with subprocess.Popen([sys.executable, str(CHILD), "write", str(path), "40"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True, cwd=ROOT) as child:
        assert child.stdin is not None and child.stdout is not None
        try:
            _wait_ready(child)
            seen.append(index_transcript(path, IndexCache(cache.root), calls=True))  # before any batch
            for _ in range(40):
                child.stdin.write("go\n")
                child.stdin.flush()  # the child writes a batch while the index reads the file
                seen.append(index_transcript(path, IndexCache(cache.root), calls=True))
            child.stdin.close()
            assert child.stdout.readline().strip() == "done"
            # After every batch: the same cache, now behind the file. How many of the rounds above overlapped a
            # write depends on the scheduler (on a loaded machine the child may not run before they all end).
            seen.append(index_transcript(path, IndexCache(cache.root), calls=True))
        finally:
            child.kill()
    calls, compactions, _ = full_records(path)
    data = path.read_bytes()
    assert seen[0].offset < seen[-1].offset == len(data)
    for result in seen:
        last_line = data[: result.offset].count(b"\n")
        assert list(result.calls or ()) == [c for c in calls if c.line <= last_line]
        assert list(result.compactions) == [c for c in compactions if c.line <= last_line]
    final = index_transcript(path, IndexCache(cache.root), calls=True)
    assert final.offset == len(data)
    _agrees(final, path)


def _kill_rounds(path: Path, directory: Path, trials: int) -> Iterator[int]:
    rng = random.Random(16)
    for trial in range(trials):
        with subprocess.Popen([sys.executable, str(CHILD), "index", str(path), str(directory)],
                              stdout=subprocess.PIPE, text=True, cwd=ROOT) as child:
            try:
                _wait_ready(child)
                time.sleep(rng.uniform(0.02, 0.4))
            finally:
                child.send_signal(signal.SIGKILL)
        yield trial


@pytest.mark.reliability
def test_sigkill_during_cache_writes_never_leaves_a_wrong_or_torn_index(tmp_path: Path) -> None:
    path = tmp_path / "killed.jsonl"
    path.write_bytes(orjson.dumps({"type": "session", "version": 3, "id": "k", "cwd": "/w"}) + b"\n")
    directory = tmp_path / "cache"
    kills_with_temp = 0
    for _ in _kill_rounds(path, directory, TRIALS):
        index = directory / "index"
        kills_with_temp += any(p.name.endswith(".tmp") for p in index.iterdir()) if index.exists() else 0
        for stored in index.glob("*.idx") if index.exists() else ():
            assert decode_index(stored.read_bytes()) is not None, "a torn index file"
        times_only = _touched_without_growing(path, directory)
        result = index_transcript(path, IndexCache(directory), calls=True)
        # A write killed before its first byte still sets the file's times (Linux updates them before copying):
        # the same size with new times reads as rewritten in place, and rebuilding is then the right answer.
        assert result.cache in ("warm", "extended", "cold", *(("rebuilt",) if times_only else ()))
        _agrees(result, path)
    print(f"{TRIALS} kills, {kills_with_temp} left a temp file behind")


def _touched_without_growing(path: Path, directory: Path) -> bool:
    """Whether ``path`` has the size its stored index recorded but other modification or change times."""
    key = os.path.abspath(path)
    loaded = IndexCache(directory).load(key, shard=shard_of(key))
    if not isinstance(loaded, LoadedIndex):
        return False
    core, st = loaded.section("core"), os.stat(path)
    return bool(st.st_size == core["size"] and (st.st_mtime_ns, st.st_ctime_ns) != (core["mtime_ns"], core["ctime_ns"]))


def test_temp_files_of_dead_writers_are_swept(tmp_path: Path, cache: IndexCache) -> None:
    assert cache.directory is not None
    cache.directory.mkdir(parents=True)
    old = cache.directory / ".abc.idx.123.456.tmp"
    fresh = cache.directory / ".def.idx.123.456.tmp"
    old.write_bytes(b"x")
    fresh.write_bytes(b"y")
    past = time.time() - 3600
    os.utime(old, (past, past))
    index_transcript(_copy(tmp_path), cache)
    assert not old.exists() and fresh.exists()  # a fresh one may belong to a writer still running


def test_an_unwritable_cache_turns_itself_off_once(tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-dir"
    blocked.write_bytes(b"")  # the cache directory cannot be created under a file
    said: list[str] = []
    cache = IndexCache(blocked, warn=said.append)
    path = _copy(tmp_path)
    for _ in range(3):
        result = index_transcript(path, cache, calls=True)
        _agrees(result, path)
    assert not cache.enabled and len(said) == 1 and "running without it" in said[0]


def test_encoded_files_round_trip() -> None:
    entries = {"/a/s.jsonl": {"core": b'{"a":1}', "calls": b"[]"}, "/a/t.jsonl": {"core": b"{}", "pending": b"[1]"}}
    decoded = decode_index(encode_index(entries))
    assert decoded is not None
    assert {k: {n: bytes(d) for n, (d, _) in v.items()} for k, v in decoded.items()} == entries


def test_a_shard_is_written_once_per_batch(tmp_path: Path) -> None:
    cache = IndexCache(tmp_path / "cache")
    paths = [_copy(tmp_path, f"s{i}.jsonl") for i in range(3)]
    with cache.batch():
        for path in paths:
            index_transcript(path, cache, calls=True)
        assert cache.directory is not None and not cache.directory.exists()  # nothing written yet
    stored = _only_file(cache)
    entries = decode_index(stored.read_bytes())
    assert entries is not None and sorted(entries) == sorted(os.path.abspath(p) for p in paths)
    assert all(index_transcript(p, IndexCache(cache.root), calls=True).cache == "warm" for p in paths)


def test_a_section_damaged_on_disk_stays_damaged_when_another_save_rewrites_its_shard(tmp_path: Path) -> None:
    cache = IndexCache(tmp_path / "cache")
    assert cache.save("a", {"calls": b"[1,2,3]"}, shard="dir") and cache.save("b", {"calls": b"[4]"}, shard="dir")
    stored = cache.file_for("dir")
    assert stored is not None
    data = stored.read_bytes()
    stored.write_bytes(data.replace(b"[1,2,3]", b"[1,2,9]"))  # same length: only the digest can tell
    again = IndexCache(tmp_path / "cache")
    assert again.save("b", {"calls": b"[5]"}, shard="dir")  # rewrites the shard, "a" copied as read
    loaded = IndexCache(tmp_path / "cache").load("a", shard="dir")
    assert isinstance(loaded, LoadedIndex)
    assert loaded.raw("calls") is None, "the rewrite must not vouch for bytes it never checked"
