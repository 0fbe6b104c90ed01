"""SQLite-era facts from docs/openclaw.md on small databases built here: leaf entries, tokensAfter, archived and
cold-stored sessions, last activity, windows from openclaw.json, legacy JSONL, several sessions, read modes.

The real OpenClaw 2026.9.6 checks the same behaviour in ``tests/realagents/openclaw``.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import orjson
import pytest
import zstandard

from engine.agents.discovery import SessionNotFoundError, discover_sessions, find_session
from engine.agents.openclaw.sqlite_store import list_sqlite_sessions
from engine.session.snapshot import SessionFollower
from tests.conftest import MAIN_SESSION, SESSIONS_JSON

SCHEMA = """
CREATE TABLE session_nodes (session_key TEXT PRIMARY KEY, current_session_id TEXT, entry_json TEXT,
  updated_at INTEGER, archived_at INTEGER, last_activity_at INTEGER);
CREATE TABLE transcript_events (session_id TEXT, seq INTEGER, event_json TEXT, created_at INTEGER,
  event_zstd BLOB, PRIMARY KEY (session_id, seq));
CREATE TABLE session_transcript_cold_archives (session_id TEXT, generation INTEGER, archive_name TEXT,
  archive_blob BLOB);
"""


def _message(id_: str, parent: str | None, role: str, text: str, usage: dict[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": role, "content": [{"type": "text", "text": text}]}
    if usage is not None:
        message.update(usage=usage, provider="fake", model="fake-model", stopReason="stop")
    return {"type": "message", "id": id_, "parentId": parent, "timestamp": "2026-11-23T10:00:00.000Z",
            "message": message}


def _usage(inp: int, out: int) -> dict[str, Any]:
    return {"input": inp, "output": out, "cacheRead": 0, "cacheWrite": 0, "totalTokens": inp + out}


HEADER = {"type": "session", "version": 4, "id": "s-1", "timestamp": "2026-11-23T10:00:00.000Z"}
TURNS = [
    HEADER,
    _message("u1", None, "user", "first"),
    _message("a1", "u1", "assistant", "one", _usage(1000, 100)),
    _message("u2", "a1", "user", "second"),
    _message("a2", "u2", "assistant", "two", _usage(2000, 200)),
]


def _db(tmp_path: Path, rows: list[tuple[str, str, dict[str, Any], int | None, int | None]],
        events: dict[str, list[dict[str, Any]]], *, wal: bool = False) -> Path:
    agent_dir = tmp_path / "state" / "agents" / "main" / "agent"
    agent_dir.mkdir(parents=True)
    db = agent_dir / "openclaw-agent.sqlite"
    with sqlite3.connect(db) as connection:
        if wal:
            connection.execute("PRAGMA journal_mode=WAL")
        connection.executescript(SCHEMA)
        for key, sid, entry, archived, activity in rows:
            connection.execute("INSERT INTO session_nodes VALUES (?, ?, ?, 1, ?, ?)",
                               (key, sid, json.dumps(entry), archived, activity))
        for sid, items in events.items():
            connection.executemany("INSERT INTO transcript_events VALUES (?, ?, ?, 1, NULL)",
                                   [(sid, i, json.dumps(e)) for i, e in enumerate(items)])
    connection.close()
    return db


def _snapshot(db: Path, key: str) -> Any:
    source = next(s for s in discover_sessions([db]).sessions if s.key == key)
    return SessionFollower(source).refresh()


def test_a_leaf_entry_moves_the_leaf_to_its_target(tmp_path: Path) -> None:
    leaf = {"type": "leaf", "id": "2635b528", "parentId": "a2", "timestamp": "2026-11-23T10:01:00.000Z",
            "targetId": "a1"}
    db = _db(tmp_path, [("agent:main:r", "s-1", {"contextTokens": 128000}, None, None)], {"s-1": [*TURNS, leaf]})
    snapshot = _snapshot(db, "agent:main:r")
    assert snapshot.view.leaf.id == "a1"
    assert [m.entry.id for m in snapshot.view.messages] == ["u1", "a1"]
    assert snapshot.tokens.tokens == 1100


def test_after_a_compaction_the_context_is_openclaws_tokens_after(tmp_path: Path) -> None:
    compaction = {"type": "compaction", "id": "c1", "parentId": "a2", "timestamp": "2026-11-23T10:02:00.000Z",
                  "summary": "## Decisions\n- x", "firstKeptEntryId": "a2", "tokensBefore": 2200, "tokensAfter": 321}
    db = _db(tmp_path, [("agent:main:c", "s-1", {"contextTokens": 128000, "compactionCount": 1}, None, None)],
             {"s-1": [*TURNS, compaction]})
    snapshot = _snapshot(db, "agent:main:c")
    assert (snapshot.tokens.tokens, snapshot.tokens.source) == (321, "tokens-after")


def test_archived_and_cold_sessions_are_archives_and_cold_events_are_read(tmp_path: Path) -> None:
    blob = zstandard.ZstdCompressor().compress(b"\n".join(orjson.dumps(e) for e in TURNS) + b"\n")
    db = _db(tmp_path, [("agent:main:a", "s-1", {}, 1795464838368, None), ("agent:main:cold", "s-2", {}, None, None),
                        ("agent:main:live", "s-3", {}, None, 1795464818807)],
             {"s-1": TURNS, "s-3": TURNS})
    with sqlite3.connect(db) as connection:
        connection.execute("INSERT INTO session_transcript_cold_archives VALUES ('s-2', 1, 'x', ?)", (blob,))
    connection.close()
    kinds = {s.key: (s.kind, s.cold_archive) for s in list_sqlite_sessions(db)}
    assert kinds == {"agent:main:a": ("archive", False), "agent:main:cold": ("archive", True),
                     "agent:main:live": ("live", False)}
    assert _snapshot(db, "agent:main:cold").entries == len(TURNS)
    live = _snapshot(db, "agent:main:live")
    assert live.last_activity is not None and int(live.last_activity.timestamp() * 1000) == 1795464818807


def test_a_row_without_context_tokens_takes_its_window_from_openclaw_json(tmp_path: Path) -> None:
    db = _db(tmp_path, [("agent:main:w", "s-1", {"model": "fake-model", "modelProvider": "fake"}, None, None)],
             {"s-1": TURNS})
    config = {"models": {"providers": {"fake": {"models": [{"id": "fake-model", "contextWindow": 64000}]}}}}
    (tmp_path / "state" / "openclaw.json").write_text(json.dumps(config))
    window = _snapshot(db, "agent:main:w").window
    assert (window.tokens, window.source) == (64000, "openclaw.json")


def test_legacy_jsonl_beside_the_database_never_makes_a_key_ambiguous(tmp_path: Path) -> None:
    db = _db(tmp_path, [("agent:main:main", "s-1", {}, None, None)], {"s-1": TURNS})
    sessions = tmp_path / "state" / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    shutil.copy2(MAIN_SESSION, sessions / "76cc5ab5-0425-4038-b41f-0af9f313d594.jsonl")
    shutil.copy2(SESSIONS_JSON, sessions / "sessions.json")
    found = discover_sessions([tmp_path / "state"])
    kinds = sorted((s.kind, s.format) for s in found.sessions if s.key == "agent:main:main")
    assert kinds == [("legacy", "openclaw-jsonl"), ("live", "openclaw-sqlite")]
    chosen = find_session(found, "agent:main:main")
    assert chosen.path == db and chosen.kind == "live"
    legacy = next(s for s in found.sessions if s.kind == "legacy")
    assert not legacy.writable


def test_a_database_with_several_sessions_is_not_picked_silently(tmp_path: Path) -> None:
    db = _db(tmp_path, [("agent:main:one", "s-1", {}, None, None), ("agent:main:two", "s-2", {}, None, None)],
             {"s-1": TURNS, "s-2": TURNS})
    found = discover_sessions([db])
    with pytest.raises(SessionNotFoundError, match="holds 2 sessions: agent:main:one, agent:main:two"):
        find_session(found, str(db))
    assert find_session(found, "agent:main:two").key == "agent:main:two"


def _files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def test_a_wal_without_shm_is_read_and_a_closed_wal_database_creates_nothing(tmp_path: Path) -> None:
    db = _db(tmp_path, [("agent:main:w", "s-1", {}, None, None)], {"s-1": TURNS[:3]}, wal=True)
    agent_dir = db.parent
    before = _files(agent_dir)
    assert set(before) == {"openclaw-agent.sqlite"}  # closed cleanly: no -wal, no -shm
    assert _snapshot(db, "agent:main:w").entries == 3
    assert _files(agent_dir) == before  # immutable read: nothing created

    writer = sqlite3.connect(db)
    writer.execute("PRAGMA wal_autocheckpoint=0")
    with writer:
        writer.executemany("INSERT INTO transcript_events VALUES ('s-1', ?, ?, 1, NULL)",
                           [(i, json.dumps(e)) for i, e in enumerate(TURNS) if i >= 3])
    copy = tmp_path / "copy" / "agents" / "main" / "agent"
    copy.mkdir(parents=True)
    for name in ("openclaw-agent.sqlite", "openclaw-agent.sqlite-wal"):
        shutil.copy2(agent_dir / name, copy / name)
    writer.close()
    kept = {name: (copy / name).read_bytes() for name in os.listdir(copy)}
    assert _snapshot(copy / "openclaw-agent.sqlite", "agent:main:w").entries == len(TURNS)
    for name, data in kept.items():
        assert (copy / name).read_bytes() == data  # database and -wal byte-identical; -shm may be rebuilt


def test_a_reset_entry_starts_the_context_afresh(tmp_path: Path) -> None:
    reset = {"type": "reset", "id": "f059c2dc", "parentId": "a2", "timestamp": "2026-11-23T10:03:00.000Z",
             "reason": "reset"}
    after = [_message("u3", "f059c2dc", "user", "fresh"), _message("a3", "u3", "assistant", "new", _usage(900, 50))]
    db = _db(tmp_path, [("agent:main:r", "s-1", {}, None, None), ("agent:main:r2", "s-2", {}, None, None)],
             {"s-1": [*TURNS, reset], "s-2": [*TURNS, reset, *after]})
    just_reset = _snapshot(db, "agent:main:r")
    assert just_reset.view.messages == () and just_reset.tokens.tokens == 0
    continued = _snapshot(db, "agent:main:r2")
    assert [m.entry.id for m in continued.view.messages] == ["u3", "a3"] and continued.tokens.tokens == 950
