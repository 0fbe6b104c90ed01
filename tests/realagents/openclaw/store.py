"""OpenClaw's own store as the oracle reads it: a copy of the agent database, read with plain sqlite3.

The copy (database, ``-wal``, ``-shm``) is taken while nothing is writing; opening the copy replays its WAL in
the copy, so the live files are never opened by the test itself.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import zstandard

from tests.realagents.openclaw.harness import copy_store


@dataclass(frozen=True)
class SessionRow:
    """One ``session_nodes`` row."""

    key: str
    session_id: str
    entry: dict[str, Any]
    archived_at: int | None
    last_activity_at: int | None
    updated_at: int | None


@dataclass(frozen=True)
class StoreView:
    """Everything the tests compare against, read in one go."""

    sessions: dict[str, SessionRow]
    events: dict[str, list[dict[str, Any]]]
    """Events of every session id, in ``seq`` order."""
    leaves: dict[str, str | None]
    """``session_transcript_index_state.leaf_event_id`` by session id."""

    def row(self, key: str) -> SessionRow:
        return self.sessions[key]

    def current_events(self, key: str) -> list[dict[str, Any]]:
        return self.events.get(self.sessions[key].session_id, [])

    def compactions(self, key: str) -> list[dict[str, Any]]:
        return [e for e in self.current_events(key) if e.get("type") == "compaction"]


def _decode(event_json: str | bytes | None, event_zstd: bytes | None) -> dict[str, Any] | None:
    if event_json is not None:
        raw = event_json.encode() if isinstance(event_json, str) else bytes(event_json)
    elif event_zstd is not None:
        raw = zstandard.ZstdDecompressor().decompress(bytes(event_zstd), max_output_size=1 << 28)
    else:
        return None
    obj = json.loads(raw)
    return obj if isinstance(obj, dict) else None


@contextmanager
def _copied(agent_dir: Path) -> Iterator[sqlite3.Connection]:
    with tempfile.TemporaryDirectory(prefix="oc-store-") as tmp:
        db = copy_store(agent_dir, Path(tmp))
        with closing(sqlite3.connect(db)) as connection:
            yield connection


def read_store(agent_dir: Path) -> StoreView:
    """Read the agent database in ``agent_dir`` through a private copy."""
    with _copied(agent_dir) as connection:
        sessions = {}
        for key, sid, entry_json, archived_at, last_activity_at, updated_at in connection.execute(
            "SELECT session_key, current_session_id, entry_json, archived_at, last_activity_at, updated_at"
            " FROM session_nodes"
        ):
            entry = json.loads(entry_json) if entry_json else {}
            sessions[str(key)] = SessionRow(str(key), str(sid), entry, archived_at, last_activity_at, updated_at)
        events: dict[str, list[dict[str, Any]]] = {}
        for sid, event_json, event_zstd in connection.execute(
            "SELECT session_id, event_json, event_zstd FROM transcript_events ORDER BY session_id, seq"
        ):
            obj = _decode(event_json, event_zstd)
            if obj is not None:
                events.setdefault(str(sid), []).append(obj)
        leaves = {
            str(sid): (str(leaf) if leaf is not None else None)
            for sid, leaf in connection.execute("SELECT session_id, leaf_event_id FROM session_transcript_index_state")
        }
    return StoreView(sessions, events, leaves)
