"""Reading OpenClaw's SQLite-era store (≥ 2026.8), strictly read-only (docs/formats.md, OpenClaw, SQLite era).

``transcript_events`` rows are the former JSONL lines in ``seq`` order (large ones zstd-compressed in
``event_zstd`` with ``event_json`` NULL); ``session_nodes.entry_json`` is the former ``sessions.json`` value.
The database is opened with ``mode=ro`` — the gateway is its only writer — so a read never changes a byte.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

import orjson

from engine.stores.entries import Entry
from engine.stores.source import SessionSource
from engine.stores.transcript import MAX_LINE_BYTES, BadLine, EntryLog, ReadBatch, TranscriptError

__all__ = ["SqliteTranscriptReader", "columns", "connect_readonly", "decompress", "list_sqlite_sessions", "query"]

_T = TypeVar("_T")


_WAL_FORMAT = 2
_ATTEMPTS = 3
_BUSY_RETRIES = 3


def _wal_mode(db: Path) -> bool:
    """Whether the database header says WAL (file format read/write versions 2); False if unreadable."""
    try:
        with db.open("rb") as f:
            header = f.read(20)
    except OSError:
        return False
    return len(header) == 20 and header[18] == _WAL_FORMAT and header[19] == _WAL_FORMAT


def _identity(db: Path) -> tuple[int, int, int, bool] | None:
    try:
        st = db.stat()
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns, db.with_name(db.name + "-wal").exists()


def connect_readonly(db: Path, *, immutable: bool | None = None) -> sqlite3.Connection:
    """Open ``db`` read-only with a busy timeout, so a live gateway is never blocked (docs/openclaw.md).

    ``immutable=1`` is only ever used for a WAL-mode database whose ``-wal`` is absent: then every committed row
    is in the main file, and no file is created. Otherwise ``mode=ro``: SQLite's own locking keeps a read
    consistent next to a rollback-journal writer, and a ``-wal`` left without its ``-shm`` is still read (SQLite
    then rebuilds ``-shm``, its shared-memory index; the database and ``-wal`` are never written).

    Args:
        immutable: force the choice (``None`` decides as above).
    """
    resolved = Path(db).resolve()
    if immutable is None:
        immutable = _wal_mode(resolved) and not resolved.with_name(resolved.name + "-wal").exists()
    uri = f"file:{quote(str(resolved))}?mode=ro" + ("&immutable=1" if immutable else "")
    connection = sqlite3.connect(uri, uri=True, timeout=5.0, check_same_thread=False)
    connection.execute("PRAGMA query_only = ON")
    return connection


def query(db: Path, read: Callable[[sqlite3.Connection], _T]) -> _T:
    """Run ``read`` on a read-only connection to ``db`` and return its result, never a torn one.

    An ``immutable`` read is trusted only if the file and the absence of ``-wal`` were the same before and
    after it; otherwise (a writer started meanwhile) it is repeated, finally under ``mode=ro``, which takes
    SQLite's locks. A "malformed" error seen by an immutable read is treated the same way, so a writer's
    half-written page is never reported as corruption.

    Raises:
        TranscriptError: the database cannot be opened or queried.
    """
    path = Path(db).resolve()
    attempt = busy = 0
    while True:
        before = _identity(path)
        last = attempt >= _ATTEMPTS - 1
        immutable = not last and before is not None and not before[3] and _wal_mode(path)
        try:
            with closing(connect_readonly(path, immutable=immutable)) as connection:
                result = read(connection)
        except sqlite3.DatabaseError as exc:
            if not immutable and _busy(exc) and busy < _BUSY_RETRIES:
                busy += 1  # a writer held its lock past the busy timeout: wait again, bounded
                continue
            if immutable:
                attempt += 1
                continue
            raise TranscriptError(f"{db}: {exc}") from exc
        if not immutable or _identity(path) == before:
            return result
        attempt += 1


def _busy(exc: sqlite3.DatabaseError) -> bool:
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


def columns(connection: sqlite3.Connection, table: str) -> set[str]:
    return {str(row[1]) for row in connection.execute(f"PRAGMA table_info({table})")}


def _sessions_of(connection: sqlite3.Connection) -> list[tuple[Any, ...]]:
    node_columns = columns(connection, "session_nodes")
    wanted = ("archived_at", "last_activity_at", "updated_at")
    extra = ", ".join(c if c in node_columns else "NULL" for c in wanted)
    rows = connection.execute(
        f"SELECT session_key, current_session_id, entry_json, {extra} FROM session_nodes ORDER BY session_key"
    ).fetchall()
    cold: set[str] = set()
    tables = {str(r[0]) for r in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "session_transcript_cold_archives" in tables:
        listed = connection.execute("SELECT DISTINCT session_id FROM session_transcript_cold_archives")
        cold = {str(r[0]) for r in listed}
        # A session whose events are still (partly) in transcript_events reads as live.
        if cold:
            placeholders = ",".join("?" * len(cold))
            hot = connection.execute(
                f"SELECT DISTINCT session_id FROM transcript_events WHERE session_id IN ({placeholders})", tuple(cold)
            ).fetchall()
            cold -= {str(r[0]) for r in hot}
    return [(*row, str(row[1]) in cold) for row in rows]


_MAX_MILLIS = 253_402_300_799_999
"""9999-12-31T23:59:59.999Z: past it a timestamp cannot become a ``datetime`` (docs/formats.md, Number bounds)."""


def _millis(value: Any) -> int | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 < value <= _MAX_MILLIS:
        return int(value)
    return None


def list_sqlite_sessions(db: Path) -> tuple[SessionSource, ...]:
    """The current session of every key in an ``openclaw-agent.sqlite`` database.

    A row with ``archived_at`` set, or whose transcript was moved to cold storage, is an ``archive``: shown,
    never compacted (docs/openclaw.md).

    Raises:
        TranscriptError: the database cannot be read.
    """
    state_dir = db.parent.parent.parent.parent if db.parent.name == "agent" else None
    agent_id = db.parent.parent.name if db.parent.name == "agent" else None
    sources = []
    for key, session_id, entry_json, archived_at, last_activity_at, updated_at, cold in query(db, _sessions_of):
        try:
            entry = orjson.loads(entry_json) if entry_json else None
        except orjson.JSONDecodeError:
            entry = None
        entry = entry if isinstance(entry, dict) else None
        activity = _millis(last_activity_at) or _millis((entry or {}).get("lastActivityAt")) or _millis(updated_at)
        archived = _millis(archived_at) is not None or cold
        sources.append(
            SessionSource(
                key=str(key),
                path=db,
                format="openclaw-sqlite",
                kind="archive" if archived else "live",
                store_entry=entry,
                store_path=db,
                session_id=str(session_id) if session_id is not None else None,
                agent_id=agent_id,
                state_dir=state_dir,
                last_activity_ms=activity,
                cold_archive=cold,
            )
        )
    return tuple(sources)


def decompress(blob: bytes) -> bytes:
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


def _cold_events(connection: sqlite3.Connection, session_id: str) -> list[tuple[Any, ...]]:
    """Events moved to cold storage, as ``(seq, event_json, None)`` rows (docs/openclaw.md).

    Only archives kept inside the database are read; a blob is JSONL, zstd-compressed or not.
    """
    tables = {str(r[0]) for r in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "session_transcript_cold_archives" not in tables:
        return []
    rows: list[tuple[Any, ...]] = []
    for (blob,) in connection.execute(
        "SELECT archive_blob FROM session_transcript_cold_archives WHERE session_id = ? AND archive_blob IS NOT NULL"
        " ORDER BY generation",
        (session_id,),
    ):
        data = bytes(blob)
        if data[:4] == b"\x28\xb5\x2f\xfd":
            try:
                data = decompress(data)
            except Exception:  # noqa: BLE001 - an unreadable archive reads as empty, the session stays archived
                continue
        for line in data.splitlines():
            if not line.strip():
                continue
            rows.append((len(rows), line, None))
    return rows


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
            return decompress(bytes(event_zstd))
        return None

    def renamed(self, to: Path) -> bool:
        """A database is never renamed into an archive: archived sessions stay rows in it."""
        return False

    def read_new(self) -> ReadBatch:
        """Parse events with ``seq`` greater than the cursor.

        Raises:
            TranscriptError: the database cannot be opened or queried.
        """
        try:
            self.mtime = self.path.stat().st_mtime
        except OSError as exc:
            raise TranscriptError(f"cannot read {self.path}: {exc.strerror}") from exc
        after = self.last_seq if self.last_seq is not None else -(1 << 62)

        def read(connection: sqlite3.Connection) -> list[tuple[Any, ...]]:
            has_zstd = "event_zstd" in columns(connection, "transcript_events")
            select = "seq, event_json, event_zstd" if has_zstd else "seq, event_json, NULL"
            found = connection.execute(
                f"SELECT {select} FROM transcript_events WHERE session_id = ? AND seq > ? ORDER BY seq",
                (self.session_id, after),
            ).fetchall()
            if not found and self.last_seq is None:
                found = _cold_events(connection, self.session_id)
            return found

        rows = query(self.path, read)
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
        def read(connection: sqlite3.Connection) -> tuple[Any, ...] | None:
            has_zstd = "event_zstd" in columns(connection, "transcript_events")
            select = "event_json, event_zstd" if has_zstd else "event_json, NULL"
            found = connection.execute(
                f"SELECT {select} FROM transcript_events WHERE session_id = ? AND seq = ?",
                (self.session_id, entry.line_no),
            ).fetchone()
            if found is None:
                found = next(((j, z) for seq, j, z in _cold_events(connection, self.session_id)
                              if seq == entry.line_no), None)
            return tuple(found) if found is not None else None

        row = query(self.path, read)
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
