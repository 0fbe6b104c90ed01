"""What an append to a pi/OpenClaw transcript needs before it may write: the header check, the ids already in
the file, and the new entries chained to the leaf (docs/formats.md, Header; Tree and leaf).

Ids: pi checks new 8-hex ids against every id in the file. We do the same with a byte scan for ``"id":"…"``
(about 1 GB/s; it over-approximates by also catching nested ids, which only avoids more).
"""

from __future__ import annotations

import os
import re
import secrets
import uuid
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import orjson

__all__ = ["HeaderProblem", "chain_entries", "check_header", "new_entry_id", "scan_ids"]

_HEADER_MAX: Final = 64 * 1024
_ID_PATTERN: Final = re.compile(rb'"id":"([^"\\]{1,120})"')
_SCAN_BLOCK: Final = 8 << 20
_SCAN_OVERLAP: Final = 128
"""Longer than any ``"id":"…"`` match the pattern allows, so no match is lost at a block edge."""
_BOM: Final = b"\xef\xbb\xbf"


class HeaderProblem(ValueError):
    """The transcript's first line is not a v3+ session header; the message says what it is instead."""


def new_entry_id(existing: AbstractSet[str]) -> str:
    """A fresh pi-style id: 8 hex chars not in ``existing``, a full UUID after 100 collisions (as pi)."""
    for _ in range(100):
        candidate = secrets.token_hex(4)
        if candidate not in existing:
            return candidate
    return str(uuid.uuid4())


def scan_ids(fd: int, start: int, end: int) -> set[str]:
    """Every ``"id":"…"`` value between byte ``start`` and ``end`` of the open file ``fd``."""
    ids: set[str] = set()
    pos = start
    while pos < end:
        lo = max(start, pos - _SCAN_OVERLAP)
        hi = min(end, pos + _SCAN_BLOCK)
        data = os.pread(fd, hi - lo, lo)
        ids.update(raw.decode("utf-8", "replace") for raw in _ID_PATTERN.findall(data))
        if len(data) < hi - lo:
            break
        pos = hi
    return ids


def check_header(fd: int, transcript: Path) -> None:
    """Refuse a file pi would not keep appending to: no header, a damaged one, or a version below 3.

    Raises:
        HeaderProblem: the first line is not a v3+ session header.
    """
    head = os.pread(fd, _HEADER_MAX, 0)
    nl = head.find(b"\n")
    if nl < 0:
        raise HeaderProblem(f"{transcript} has no complete first line, so no session header")
    line = head[:nl].removesuffix(b"\r").removeprefix(_BOM)
    try:
        header = orjson.loads(line)
    except orjson.JSONDecodeError:
        header = None
    if not isinstance(header, dict) or header.get("type") != "session" or not isinstance(header.get("id"), str):
        raise HeaderProblem(
            f"{transcript} does not start with a session header; pi would discard it and start a new "
            "session, so ctxscope only reads it (docs/formats.md, Header)"
        )
    version = header.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        version = 1
    if version < 3:
        raise HeaderProblem(
            f"{transcript} is a version {version} session; pi migrates and rewrites such files when it "
            "opens them, so ctxscope only reads them (docs/formats.md, Versions and migration). Open it once in pi or "
            "OpenClaw first."
        )


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def chain_entries(
    raw_entries: Sequence[Mapping[str, Any]], leaf_id: str | None, existing: AbstractSet[str]
) -> tuple[list[dict[str, Any]], tuple[str, ...]]:
    """The entries with ids (fresh where absent), timestamps and ``parentId`` chained from ``leaf_id``.

    Raises:
        ValueError, TypeError: an entry is malformed, reuses an id, or sets a ``parentId`` that breaks the chain.
    """
    taken = set(existing)
    parent = leaf_id
    now = _now_iso()
    entries: list[dict[str, Any]] = []
    for index, raw in enumerate(raw_entries):
        if not isinstance(raw, Mapping):
            raise TypeError(f"entry {index} is a {type(raw).__name__}, not a mapping")
        kind = raw.get("type")
        if not isinstance(kind, str) or not kind or kind == "session":
            raise ValueError(f"entry {index}: type must be a non-empty string other than 'session'")
        entry_id = raw.get("id")
        if entry_id is None:
            entry_id = new_entry_id(taken)
        elif not isinstance(entry_id, str) or not entry_id:
            raise ValueError(f"entry {index}: id must be a non-empty string")
        elif entry_id in taken:
            raise ValueError(f"entry {index}: id {entry_id!r} is already used in the transcript or batch")
        if "parentId" in raw and raw["parentId"] != parent:
            raise ValueError(
                f"entry {index}: parentId {raw['parentId']!r} would break the chain (expected {parent!r}); "
                "leave parentId out, the writer chains entries to the leaf"
            )
        timestamp = raw.get("timestamp", now)
        if not isinstance(timestamp, str):
            raise ValueError(f"entry {index}: timestamp must be an ISO string")
        taken.add(entry_id)
        entry: dict[str, Any] = {"type": kind, "id": entry_id, "parentId": parent, "timestamp": timestamp}
        entry.update((key, value) for key, value in raw.items() if key not in entry)
        entries.append(entry)
        parent = entry_id
    return entries, tuple(entry["id"] for entry in entries)
