"""Reading OpenClaw's SQLite-era store (≥ 2026.8), strictly read-only (FORMATS §3.10).

``transcript_events`` rows are the former JSONL lines in ``seq`` order (large ones zstd-compressed in
``event_zstd`` with ``event_json`` NULL); ``session_nodes.entry_json`` is the former ``sessions.json`` value.
The database is opened with ``mode=ro`` — the gateway is its only writer — so a read never changes a byte.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson

from engine.stores.entries import Entry
from engine.stores.source import SessionSource
from engine.stores.transcript import MAX_LINE_BYTES, BadLine, EntryLog, ReadBatch, TranscriptError

__all__ = ["SqliteTranscriptReader", "connect_readonly", "list_sqlite_sessions"]


def connect_readonly(db: Path) -> sqlite3.Connection:
    """Open ``db`` read-only with a busy timeout, so a live gateway is never blocked.

    With a live gateway the ``-wal`` and ``-shm`` files exist and ``mode=ro`` shares them. Without them,
    ``mode=ro`` would *create* both next to the database — a change on disk — so the file is opened
    ``immutable=1`` instead: nothing is created, and there is no write-ahead log whose content we could miss.
    """
    resolved = Path(db).resolve()
    live = resolved.with_name(resolved.name + "-wal").exists() and resolved.with_name(resolved.name + "-shm").exists()
    uri = f"file:{quote(str(resolved))}?mode=ro" + ("" if live else "&immutable=1")
    connection = sqlite3.connect(uri, uri=True, timeout=2.0, check_same_thread=False)
    connection.execute("PRAGMA query_only = ON")
    return connection


@contextmanager
def _reading(db: Path) -> Iterator[sqlite3.Connection]:
    try:
        with closing(connect_readonly(db)) as connection:
            yield connection
    except sqlite3.Error as exc:
        raise TranscriptError(f"{db}: {exc}") from exc


def _columns(connection: sqlite3.Connection, table: str) -> set[str]:
    return {str(row[1]) for row in connection.execute(f"PRAGMA table_info({table})")}


def list_sqlite_sessions(db: Path) -> tuple[SessionSource, ...]:
    """The current session of every key in an ``openclaw-agent.sqlite`` database."""
    state_dir = db.parent.parent.parent.parent if db.parent.name == "agent" else None
    agent_id = db.parent.parent.name if db.parent.name == "agent" else None
    with _reading(db) as connection:
        rows = connection.execute(
            "SELECT session_key, current_session_id, entry_json FROM session_nodes ORDER BY session_key"
        ).fetchall()
    sources = []
    for key, session_id, entry_json in rows:
        try:
            entry = orjson.loads(entry_json) if entry_json else None
        except orjson.JSONDecodeError:
            entry = None
        sources.append(
            SessionSource(
                key=str(key),
                path=db,
                format="openclaw-sqlite",
                store_entry=entry if isinstance(entry, dict) else None,
                store_path=db,
                session_id=str(session_id) if session_id is not None else None,
                agent_id=agent_id,
                state_dir=state_dir,
            )
        )
    return tuple(sources)


def _decompress(blob: bytes) -> bytes:
    """The event a blob holds, streamed so that no more than :data:`MAX_LINE_BYTES` (+1) is ever produced.

    Raises:
        ValueError: it decompresses to more than :data:`MAX_LINE_BYTES` (a bomb, or a frame without a size
            header that never ends); zstandard.ZstdError: it is not zstd.
    """
    import zstandard

    parts: list[bytes] = []
    size = 0
    with zstandard.ZstdDecompressor().stream_reader(blob) as reader:
        while size <= MAX_LINE_BYTES:
            part = reader.read(min(1 << 20, MAX_LINE_BYTES + 1 - size))
            if not part:
                break
            parts.append(part)
            size += len(part)
    if size > MAX_LINE_BYTES:
        raise ValueError(f"decompresses to more than {MAX_LINE_BYTES:,} bytes; skipped")
    return b"".join(parts)


class SqliteTranscriptReader(EntryLog):
    """Incremental reader of one session's ``transcript_events``; the cursor is the last ``seq`` read."""

    def __init__(self, db: Path, session_id: str) -> None:
        super().__init__()
        self.path = Path(db)
        self.session_id = session_id
        self.last_seq: int | None = None
        self.mtime: float | None = None

    def _event_bytes(self, event_json: str | bytes | None, event_zstd: bytes | None) -> bytes | None:
        if event_json is not None:
            return event_json.encode() if isinstance(event_json, str) else bytes(event_json)
        if event_zstd is not None:
            return _decompress(bytes(event_zstd))
        return None

    def read_new(self) -> ReadBatch:
        """Parse events with ``seq`` greater than the cursor.

        Raises:
            TranscriptError: the database cannot be opened or queried.
        """
        try:
            self.mtime = self.path.stat().st_mtime
        except OSError as exc:
            raise TranscriptError(f"cannot read {self.path}: {exc.strerror}") from exc
        with _reading(self.path) as connection:
            has_zstd = "event_zstd" in _columns(connection, "transcript_events")
            select = "seq, event_json, event_zstd" if has_zstd else "seq, event_json, NULL"
            rows = connection.execute(
                f"SELECT {select} FROM transcript_events WHERE session_id = ? AND seq > ? ORDER BY seq",
                (self.session_id, self.last_seq if self.last_seq is not None else -(1 << 62)),
            ).fetchall()
        new_entries: list[Entry] = []
        new_bad: list[BadLine] = []
        size = 0
        for seq, event_json, event_zstd in rows:
            self.last_seq = int(seq)
            try:
                raw = self._event_bytes(event_json, event_zstd)
            except Exception as exc:  # noqa: BLE001 - a corrupt blob is one bad event, not a failed read
                problem = BadLine(int(seq), int(seq), f"undecodable event_zstd ({exc})")
                new_bad.append(problem)
                self.bad_lines.append(problem)
                continue
            if raw is None:
                continue
            size += len(raw)
            # offset = seq and length = byte length keep entries addressable for re-reads and caches.
            entry, problem_line = self.parser.parse(raw, line_no=int(seq), offset=int(seq))
            self._keep(entry, problem_line, new_entries, new_bad)
        return ReadBatch(tuple(new_entries), tuple(new_bad), False, size, 0)

    def read_object(self, entry: Entry) -> dict[str, Any]:
        """Re-read one event by its ``seq``."""
        with _reading(self.path) as connection:
            has_zstd = "event_zstd" in _columns(connection, "transcript_events")
            select = "event_json, event_zstd" if has_zstd else "event_json, NULL"
            row = connection.execute(
                f"SELECT {select} FROM transcript_events WHERE session_id = ? AND seq = ?",
                (self.session_id, entry.line_no),
            ).fetchone()
        raw = self._event_bytes(*row) if row else None
        if raw is None:
            raise TranscriptError(f"event {entry.line_no} of session {self.session_id} is gone")
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            obj = orjson.loads(raw.decode("utf-8", "replace"))
        if not isinstance(obj, dict):
            raise TranscriptError(f"event {entry.line_no} is not an object")
        if entry.id is not None and obj.get("id") != entry.id:
            obj = {**obj, "id": entry.id, "parentId": entry.parent_id}
        return obj
