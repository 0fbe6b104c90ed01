"""The index of a session in OpenClaw's SQLite store, kept up to date by ``seq`` (``docs/index.md``).

The store is read strictly read-only (:func:`engine.agents.openclaw.sqlite_store.connect_readonly`). The
stored index is trusted when the database is the same file (device and inode), the session still has as many
events up to the indexed ``seq`` as it had, and the event at that ``seq`` still hashes the same; then only events
with a greater ``seq`` are read. Anything else rebuilds it. Every event is parsed whole: rows hold one line each,
there is no byte stream to skim.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from engine.agents.openclaw.sqlite_store import connect_readonly
from engine.index.cache import IndexCache, LoadedIndex, shard_of
from engine.index.records import CompactionRecord, HeaderInfo, UsageRecord, header_info, record_of
from engine.index.transcript_index import CacheOutcome, TranscriptIndex
from engine.stores.transcript import TranscriptError

__all__ = ["index_sqlite_session"]

_EMPTY_HEADER = HeaderInfo(None, None, 3, True)


def _event_bytes(event_json: str | bytes | None, event_zstd: bytes | None) -> bytes | None:
    if event_json is not None:
        return event_json.encode() if isinstance(event_json, str) else bytes(event_json)
    if event_zstd is not None:
        import zstandard

        return bytes(zstandard.ZstdDecompressor().decompress(bytes(event_zstd), max_output_size=1 << 30))
    return None


def _event_digest(event_json: str | bytes | None, event_zstd: bytes | None) -> str:
    try:
        raw = _event_bytes(event_json, event_zstd)
    except Exception:  # noqa: BLE001 - a corrupt blob still has an identity: its bytes
        raw = b"\0corrupt:" + bytes(event_zstd or b"")
    return hashlib.blake2b(raw or b"", digest_size=16).hexdigest()


def _select(connection: sqlite3.Connection) -> str:
    columns = {str(row[1]) for row in connection.execute("PRAGMA table_info(transcript_events)")}
    return "seq, event_json, event_zstd" if "event_zstd" in columns else "seq, event_json, NULL"


@dataclass
class _State:
    last_seq: int | None = None
    count: int = 0
    """Events read up to :attr:`last_seq`."""
    last_hash: str | None = None
    header: HeaderInfo | None = None
    lines: int = 0
    bad: int = 0
    calls: list[UsageRecord] = field(default_factory=list)
    compactions: list[CompactionRecord] = field(default_factory=list)

    def meta(self, key: str, st: os.stat_result) -> dict[str, Any]:
        return {"path": key, "dev": st.st_dev, "ino": st.st_ino, "last_seq": self.last_seq, "count": self.count,
                "last_hash": self.last_hash, "header": list(self.header) if self.header else None,
                "lines": self.lines, "bad": self.bad}


def index_sqlite_session(db: Path, session_id: str, cache: IndexCache | None = None) -> TranscriptIndex:
    """Bring the index of one SQLite-stored session up to date (reading only new events) and return it.

    Raises:
        TranscriptError: the database cannot be opened or queried.
    """
    key = f"{os.path.abspath(db)}#{session_id}"
    try:
        st = os.stat(db)
        with closing(connect_readonly(db)) as connection:
            return _index(connection, key, db, session_id, st, cache)
    except (OSError, sqlite3.Error) as exc:
        raise TranscriptError(f"{db}: {exc}") from exc


def _restore(connection: sqlite3.Connection, loaded: LoadedIndex, key: str, session_id: str,
             st: os.stat_result) -> _State | None:
    """The stored state when it still describes the session, else ``None``."""
    try:
        meta = loaded.section("meta")
        if not isinstance(meta, dict) or meta.get("path") != key or (meta["dev"], meta["ino"]) != (
                st.st_dev, st.st_ino):
            return None
        state = _State(meta["last_seq"], meta["count"], meta["last_hash"],
                       HeaderInfo(*meta["header"]) if meta["header"] is not None else None, meta["lines"], meta["bad"])
        if state.last_seq is not None:
            (count,) = connection.execute(
                "SELECT count(*) FROM transcript_events WHERE session_id = ? AND seq <= ?", (session_id, state.last_seq)
            ).fetchone()
            event = connection.execute(
                f"SELECT {_select(connection)} FROM transcript_events WHERE session_id = ? AND seq = ?",
                (session_id, state.last_seq),
            ).fetchone()
            if count != state.count or event is None or _event_digest(event[1], event[2]) != state.last_hash:
                return None
        state.calls = [UsageRecord(*r) for r in loaded.section("calls")]
        state.compactions = [CompactionRecord(*r) for r in loaded.section("compactions")]
        return state
    except (KeyError, TypeError, ValueError, IndexError):
        return None


def _read_event(state: _State, seq: int, raw: bytes | None) -> None:
    if raw is None or not raw.strip():
        return
    state.lines += 1
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        state.bad += 1
        return
    if state.header is None:
        state.header = header_info(obj)
        if not state.header.headerless:
            return
    if not isinstance(obj, dict):
        state.bad += 1
        return
    record = record_of(obj, line=seq)
    if isinstance(record, UsageRecord):
        state.calls.append(record)
    elif isinstance(record, CompactionRecord):
        state.compactions.append(record)


def _index(connection: sqlite3.Connection, key: str, db: Path, session_id: str, st: os.stat_result,
           cache: IndexCache | None) -> TranscriptIndex:
    outcome: CacheOutcome = "off"
    state: _State | None = None
    if cache is not None and cache.enabled:
        loaded = cache.load(key, shard=shard_of(key))
        outcome = "cold" if loaded is None else "rebuilt"
        if isinstance(loaded, LoadedIndex):
            state = _restore(connection, loaded, key, session_id, st)
            outcome = "warm" if state is not None else "rebuilt"
    state = state or _State()
    rows = connection.execute(
        f"SELECT {_select(connection)} FROM transcript_events WHERE session_id = ? AND seq > ? ORDER BY seq",
        (session_id, state.last_seq if state.last_seq is not None else -(1 << 62)),
    ).fetchall()
    scanned = 0
    for seq, event_json, event_zstd in rows:
        state.count += 1
        state.last_seq = int(seq)
        state.last_hash = _event_digest(event_json, event_zstd)
        try:
            raw = _event_bytes(event_json, event_zstd)
        except Exception:  # noqa: BLE001 - a corrupt blob is one bad event, not a failed read
            state.bad += 1
            continue
        scanned += len(raw or b"")
        _read_event(state, int(seq), raw)
    if rows and outcome == "warm":
        outcome = "extended"
    if cache is not None and cache.enabled and outcome != "warm":
        cache.save(key, shard=shard_of(key), sections={
            "meta": orjson.dumps(state.meta(key, st)),
            "compactions": orjson.dumps([list(r) for r in state.compactions]),
            "calls": orjson.dumps([list(r) for r in state.calls]),
        })
    return TranscriptIndex(
        path=Path(db), size=st.st_size, offset=state.last_seq or 0, lines=state.lines,
        header=state.header or _EMPTY_HEADER, compactions=tuple(state.compactions), calls=tuple(state.calls),
        bad_lines=state.bad, gauge=None, scanned_bytes=scanned, cache=outcome,
    )
