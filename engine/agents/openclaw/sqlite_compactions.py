"""A gateway call's real outcome, read from OpenClaw's SQLite store: the compactions of one key (docs/openclaw.md).

The gateway's answer can be missing (a timeout) or only say "started" (``/compact`` through ``chat.send``);
the compaction events in ``transcript_events`` and the row's ``compactionCount`` say what happened.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from engine.agents.openclaw.sqlite_store import columns, decompress, query
from engine.stores.number_bounds import token_count

__all__ = ["CompactionRecord", "StoreCompactions", "read_store_compactions"]


@dataclass(frozen=True, slots=True)
class CompactionRecord:
    """One compaction event as OpenClaw wrote it."""

    id: str
    tokens_before: int | None
    tokens_after: int | None


@dataclass(frozen=True, slots=True)
class StoreCompactions:
    """What the store says about one key's compactions (read to learn a gateway call's real outcome)."""

    session_id: str | None
    compaction_count: int | None
    """``compactionCount`` of the row (absent before the first compaction, and after a rewind)."""
    compactions: tuple[CompactionRecord, ...]
    """Compaction events of the current session, oldest first."""
    reply: str | None = None
    """Text of the assistant reply to the message sent with the asked idempotency key, once written."""

    def new_since(self, before: StoreCompactions) -> CompactionRecord | None:
        """The newest compaction that ``before`` did not have, if any."""
        known = {c.id for c in before.compactions}
        fresh = [c for c in self.compactions if c.id not in known]
        return fresh[-1] if fresh else None


def _record(obj: dict[str, Any]) -> CompactionRecord | None:
    ident = obj.get("id")
    if not isinstance(ident, str):
        return None
    return CompactionRecord(ident, _count(obj.get("tokensBefore")), _count(obj.get("tokensAfter")))


def _count(value: Any) -> int | None:
    return token_count(value) if type(value) is int else None  # bounded: docs/formats.md, Number bounds


def _reply_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    parts = [b.get("text") for b in content or () if isinstance(b, dict) and isinstance(b.get("text"), str)]
    return "\n".join(str(p) for p in parts)


def read_store_compactions(db: Path, key: str, idempotency_key: str | None = None) -> StoreCompactions:
    """The compactions of ``key``'s current session, and the reply to ``idempotency_key`` if given.

    Raises:
        TranscriptError: the database cannot be read.
    """

    def read(connection: sqlite3.Connection) -> StoreCompactions:
        row = connection.execute(
            "SELECT current_session_id, entry_json FROM session_nodes WHERE session_key = ?", (key,)
        ).fetchone()
        if row is None:
            return StoreCompactions(None, None, ())
        session_id = str(row[0]) if row[0] is not None else None
        try:
            entry = orjson.loads(row[1]) if row[1] else {}
        except orjson.JSONDecodeError:
            entry = {}
        count = _count(entry.get("compactionCount")) if isinstance(entry, dict) else None
        has_zstd = "event_zstd" in columns(connection, "transcript_events")
        select = "seq, event_json, event_zstd" if has_zstd else "seq, event_json, NULL"
        records: list[CompactionRecord] = []
        reply: str | None = None
        asked_seq: int | None = None
        for seq, event_json, event_zstd in connection.execute(
            f"SELECT {select} FROM transcript_events WHERE session_id = ? ORDER BY seq", (session_id,)
        ):
            raw = event_json if event_json is not None else (decompress(bytes(event_zstd)) if event_zstd else None)
            if raw is None or (idempotency_key is None and b'"compaction"' not in _bytes(raw)):
                continue
            try:
                obj = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            if not isinstance(obj, dict):
                continue
            if obj.get("type") == "compaction":
                found = _record(obj)
                if found is not None:
                    records.append(found)
            message = obj.get("message")
            if idempotency_key is not None and isinstance(message, dict):
                asked = message.get("idempotencyKey")
                if message.get("role") == "user" and asked in (idempotency_key, f"{idempotency_key}:user"):
                    asked_seq = int(seq)
                elif message.get("role") == "assistant" and asked_seq is not None and reply is None:
                    reply = _reply_text(message)
        return StoreCompactions(session_id, count, tuple(records), reply)

    return query(db, read)


def _bytes(raw: str | bytes) -> bytes:
    return raw.encode() if isinstance(raw, str) else raw
