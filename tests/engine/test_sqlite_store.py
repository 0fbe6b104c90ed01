"""OpenClaw's SQLite-era store, built from the documented columns (docs/formats.md), read strictly read-only."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import orjson
import zstandard

from engine.agents.discovery import discover_sessions
from engine.agents.openclaw.sqlite_store import SqliteTranscriptReader, list_sqlite_sessions
from engine.session.snapshot import SessionFollower
from tests.conftest import MAIN_SESSION

SCHEMA = """
CREATE TABLE session_nodes (session_key TEXT PRIMARY KEY, current_session_id TEXT, entry_json TEXT,
  entry_valid INTEGER, updated_at INTEGER, status TEXT, created_at INTEGER);
CREATE TABLE session_windows (session_id TEXT PRIMARY KEY, session_key TEXT, previous_session_id TEXT,
  reason TEXT, created_at INTEGER, updated_at INTEGER);
CREATE TABLE transcript_events (session_id TEXT, seq INTEGER, event_json TEXT, created_at INTEGER,
  event_zstd BLOB, event_utf8_bytes INTEGER, PRIMARY KEY (session_id, seq));
"""


def build_db(path: Path, *, zstd_from: int = 100, wal: bool = True) -> list[bytes]:
    lines = [raw for raw in MAIN_SESSION.read_bytes().splitlines() if raw.strip()]
    connection = sqlite3.connect(path)
    if wal:
        connection.execute("PRAGMA journal_mode=WAL")
    connection.executescript(SCHEMA)
    entry = {"sessionId": "s-1", "updatedAt": 1, "contextTokens": 32768, "compactionCount": 3, "model": "MiniMax-M2.1"}
    connection.execute(
        "INSERT INTO session_nodes VALUES (?, ?, ?, 1, 1, 'done', 1)", ("agent:main:main", "s-1", orjson.dumps(entry))
    )
    connection.execute("INSERT INTO session_windows VALUES ('s-1', 'agent:main:main', NULL, 'initial', 1, 1)")
    compressor = zstandard.ZstdCompressor()
    for seq, raw in enumerate(lines):
        if seq >= zstd_from:
            row = ("s-1", seq, None, 1, compressor.compress(raw), len(raw))
        else:
            row = ("s-1", seq, raw.decode(), 1, None, len(raw))
        connection.execute("INSERT INTO transcript_events VALUES (?, ?, ?, ?, ?, ?)", row)
    connection.commit()
    connection.close()
    return lines


def _digest(directory: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(directory.iterdir())}


def test_sqlite_session_matches_the_jsonl_reading(tmp_path: Path) -> None:
    agent_dir = tmp_path / "agents" / "main" / "agent"
    agent_dir.mkdir(parents=True)
    db = agent_dir / "openclaw-agent.sqlite"
    lines = build_db(db)
    before = _digest(agent_dir)

    sources = list_sqlite_sessions(db)
    assert [(s.key, s.session_id, s.format) for s in sources] == [("agent:main:main", "s-1", "openclaw-sqlite")]
    assert sources[0].state_dir == tmp_path and not sources[0].writable

    snapshot = SessionFollower(sources[0]).refresh()
    assert snapshot.entries == len(lines)
    assert snapshot.tokens.tokens == 21_582  # the same figure as the JSONL fixture (docs/context-accounting.md)
    assert snapshot.window.tokens == 32768 and snapshot.window.source == "store"
    reader = SqliteTranscriptReader(db, "s-1")
    reader.read_new()
    zstd_entry = next(e for e in reader.entries if e.line_no >= 100 and e.id)
    assert reader.read_object(zstd_entry)["id"] == zstd_entry.id
    assert _digest(agent_dir) == before


def test_sqlite_reader_is_incremental_by_seq(tmp_path: Path) -> None:
    db = tmp_path / "openclaw-agent.sqlite"
    lines = build_db(db, wal=False)
    reader = SqliteTranscriptReader(db, "s-1")
    assert len(reader.read_new().entries) == len(lines)
    assert reader.read_new().entries == ()
    connection = sqlite3.connect(db)
    new = {"type": "message", "id": "zz1", "parentId": "x", "message": {"role": "user", "content": "hi"}}
    connection.execute(
        "INSERT INTO transcript_events VALUES ('s-1', ?, ?, 1, NULL, 0)", (len(lines), orjson.dumps(new).decode())
    )
    connection.execute("INSERT INTO transcript_events VALUES ('s-1', ?, NULL, 1, ?, 0)", (len(lines) + 1, b"junk"))
    connection.commit()
    connection.close()
    batch = reader.read_new()
    assert [e.id for e in batch.entries] == ["zz1"]
    assert len(batch.bad_lines) == 1 and "zstd" in batch.bad_lines[0].reason


def test_discovery_finds_the_sqlite_store(tmp_path: Path) -> None:
    agent_dir = tmp_path / "agents" / "main" / "agent"
    agent_dir.mkdir(parents=True)
    build_db(agent_dir / "openclaw-agent.sqlite")
    before = _digest(agent_dir)
    found = discover_sessions([tmp_path])
    assert [s.key for s in found.sessions] == ["agent:main:main"]
    assert _digest(agent_dir) == before


def test_live_gateway_wal_content_is_read_without_touching_the_database(tmp_path: Path) -> None:
    db = tmp_path / "openclaw-agent.sqlite"
    lines = build_db(db)
    gateway = sqlite3.connect(db)  # a live writer: keeps -wal/-shm in place
    gateway.execute("PRAGMA journal_mode=WAL")
    gateway.execute("PRAGMA wal_autocheckpoint=0")
    new = {"type": "message", "id": "live1", "parentId": None, "message": {"role": "user", "content": "hi"}}
    gateway.execute(
        "INSERT INTO transcript_events VALUES ('s-1', ?, ?, 1, NULL, 0)", (len(lines), orjson.dumps(new).decode())
    )
    gateway.commit()
    main_before = hashlib.sha256(db.read_bytes()).hexdigest()
    reader = SqliteTranscriptReader(db, "s-1")
    reader.read_new()
    assert reader.entries[-1].id == "live1"
    assert hashlib.sha256(db.read_bytes()).hexdigest() == main_before
    gateway.close()
