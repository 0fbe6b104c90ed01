"""Transcript entries for tests that append to a copied session: replies, user turns, compactions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

Entry = dict[str, Any]


def append(path: Path, *entries: Entry) -> None:
    """Append whole lines, as the agent does."""
    with path.open("ab") as handle:
        handle.write(b"".join(orjson.dumps(e) + b"\n" for e in entries))


def reply(entry_id: str, parent: str, total: int, text: str = "Done.", *, when: str = "15:02:00") -> Entry:
    """An assistant message whose usage puts the context at ``total`` tokens."""
    return {
        "type": "message", "id": entry_id, "parentId": parent, "timestamp": f"2026-05-05T{when}.000Z",
        "message": {
            "role": "assistant", "content": [{"type": "text", "text": text}], "provider": "kimi",
            "model": "kimi-code", "stopReason": "stop",
            "usage": {"input": total - 100, "output": 100, "cacheRead": 0, "cacheWrite": 0, "totalTokens": total},
        },
    }


def user(entry_id: str, parent: str, text: str, *, when: str = "15:03:00") -> Entry:
    """A real user message."""
    return {
        "type": "message", "id": entry_id, "parentId": parent, "timestamp": f"2026-05-05T{when}.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": text}]},
    }


def compaction(entry_id: str, parent: str, first_kept: str) -> Entry:
    """A compaction entry as pi/OpenClaw append it."""
    return {
        "type": "compaction", "id": entry_id, "parentId": parent, "timestamp": "2026-05-05T15:04:00.000Z",
        "summary": "## Goal\nKeep going.", "firstKeptEntryId": first_kept, "tokensBefore": 200_000,
        "details": {"readFiles": [], "modifiedFiles": []}, "fromHook": True,
    }


PROPOSAL = (
    "I compared the two storage options for the session index. SQLite keeps everything in one file and needs "
    "no server, while Postgres would need a running service on every developer machine.\n\n"
    "Decision: use SQLite for the session index, with WAL mode on.\n\n"
    "TODO: migrate the existing JSON index files to the new SQLite store."
)
"""A long agent proposal: with a short user reply after it the capture records a decision and an open item."""


def decision_exchange(parent: str, total: int, *, prefix: str = "d") -> tuple[list[Entry], str]:
    """The proposal, a short "yes" and a standing preference; returns the entries and the new leaf id."""
    entries = [
        reply(f"{prefix}1", parent, total, PROPOSAL, when="15:10:00"),
        user(f"{prefix}2", f"{prefix}1", "Yes, go with SQLite.", when="15:11:00"),
        reply(f"{prefix}3", f"{prefix}2", total + 200, "Switching the index to SQLite now.", when="15:12:00"),
        user(f"{prefix}4", f"{prefix}3", "Always run the tests before you commit.", when="15:13:00"),
    ]
    return entries, f"{prefix}4"
