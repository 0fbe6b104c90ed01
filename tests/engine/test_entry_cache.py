"""A follower restarts from the entries a previous run stored, and never from entries that no longer fit the file."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from engine.index.cache import IndexCache
from engine.index.entry_cache import restore_reader, save_reader
from engine.session.snapshot import SessionFollower, SessionSnapshot
from engine.stores.source import SessionSource
from engine.stores.transcript import read_transcript
from sim.session_generator import generate_session_file
from tests.conftest import MAIN_SESSION, V1_LEGACY


def _source(path: Path) -> SessionSource:
    return SessionSource(key=path.name, path=path, format="pi-jsonl")


def _same(a: SessionSnapshot, b: SessionSnapshot) -> None:
    assert a.to_status() == b.to_status()
    assert [e.id for e in a.view.path] == [e.id for e in b.view.path]
    assert [m.entry_id for m in a.view.messages] == [m.entry_id for m in b.view.messages]


@pytest.fixture
def big(tmp_path: Path) -> Path:
    path = tmp_path / "big.jsonl"
    generate_session_file(path, target_bytes=600_000, seed=5, branches=True, window=80_000)
    return path


def test_a_restart_reads_only_what_was_appended(tmp_path: Path, big: Path) -> None:
    cache = IndexCache(tmp_path / "cache")
    first = SessionFollower(_source(big), index=cache)
    first.refresh()
    assert first.restored_bytes == 0
    again = SessionFollower(_source(big), index=IndexCache(cache.root))
    assert again.restored_bytes == big.stat().st_size
    _same(again.refresh(), SessionFollower(_source(big)).refresh())
    tail = MAIN_SESSION.read_bytes().splitlines(keepends=True)[5:40]
    with big.open("ab") as out:
        out.write(b"".join(tail))
    grown = SessionFollower(_source(big), index=IndexCache(cache.root))
    batch_start = grown.restored_bytes
    _same(grown.refresh(), SessionFollower(_source(big)).refresh())
    assert batch_start < big.stat().st_size


@pytest.mark.parametrize("fault", ["rotated", "truncated", "edited", "damaged"])
def test_stored_entries_that_no_longer_fit_are_not_used(tmp_path: Path, big: Path, fault: str) -> None:
    cache = IndexCache(tmp_path / "cache")
    SessionFollower(_source(big), index=cache).refresh()
    if fault == "rotated":
        other = tmp_path / "other.jsonl"
        generate_session_file(other, target_bytes=700_000, seed=6)
        os.replace(other, big)
    elif fault == "truncated":
        with big.open("r+b") as handle:
            handle.truncate(big.stat().st_size // 3)
    elif fault == "edited":
        data = bytearray(big.read_bytes())
        at = data.index(b'"input":') + 8
        data[at] = ord("7") if data[at] != ord("7") else ord("8")
        before = big.stat()
        big.write_bytes(bytes(data))
        os.utime(big, ns=(before.st_atime_ns, before.st_mtime_ns))
    else:
        assert cache.directory is not None
        for stored in cache.directory.iterdir():
            raw = bytearray(stored.read_bytes())
            raw[-20] ^= 0xFF
            stored.write_bytes(bytes(raw))
    follower = SessionFollower(_source(big), index=IndexCache(cache.root))
    assert follower.restored_bytes == 0
    _same(follower.refresh(), SessionFollower(_source(big)).refresh())


def test_a_legacy_file_resumes_with_its_migrated_ids(tmp_path: Path) -> None:
    path = tmp_path / "v1.jsonl"
    shutil.copy(V1_LEGACY, path)
    cache = IndexCache(tmp_path / "cache")
    reader = read_transcript(path)
    assert save_reader(cache, reader)
    restored = restore_reader(cache, path)
    assert restored is not None and restored.entries == reader.entries and restored.by_id == reader.by_id
    assert restored.parser.state() == reader.parser.state()


def test_small_sessions_are_stored_too(tmp_path: Path) -> None:
    path = tmp_path / "main.jsonl"
    shutil.copy(MAIN_SESSION, path)
    cache = IndexCache(tmp_path / "cache")
    SessionFollower(_source(path), index=cache).refresh()
    assert SessionFollower(_source(path), index=IndexCache(cache.root)).restored_bytes == path.stat().st_size
