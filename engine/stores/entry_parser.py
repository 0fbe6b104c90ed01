"""Turning raw transcript lines into entries: pi's in-memory migrations, one line at a time.

Shared by the JSONL and SQLite readers (docs/formats.md, Versions and migration; docs/pi.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from engine.stores.entries import Entry, entry_from_object
from engine.stores.number_bounds import out_of_bounds

__all__ = ["BOM", "BadLine", "EntryParser", "migrate_v2_role"]

BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class BadLine:
    """A line that did not parse as a transcript entry."""

    line_no: int
    offset: int
    reason: str
    recovered: bool = False
    """True when the line was still read (e.g. invalid UTF-8 replaced with U+FFFD)."""


class EntryParser:
    """Turns raw transcript lines into :class:`Entry` values, applying pi's in-memory migrations.

    Stateful across lines of one transcript (header, version, v1 id chain); shared by the file and SQLite readers.
    """

    def __init__(self) -> None:
        self.header: dict[str, Any] | None = None
        self.headerless = False
        self.version = 3
        self._ordinal = 0
        self._v1_ids: list[str | None] = []
        self._prev_id: str | None = None

    def parse(self, raw: bytes, *, line_no: int, offset: int) -> tuple[Entry | None, BadLine | None]:
        """Parse one line (without newline). Blank lines yield ``(None, None)``."""
        if offset == 0 and raw.startswith(BOM):
            raw = raw[len(BOM) :]
            offset += len(BOM)
        if not raw.strip():
            return None, None
        bad: BadLine | None = None
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            try:
                obj = orjson.loads(raw.decode("utf-8", "replace"))
            except orjson.JSONDecodeError:
                return None, BadLine(line_no, offset, _reason(exc))
            bad = BadLine(line_no, offset, "invalid UTF-8 (replaced)", recovered=True)
        if not isinstance(obj, dict):
            return None, BadLine(line_no, offset, f"not a JSON object ({type(obj).__name__})")
        entry = self._accept(obj, line_no=line_no, offset=offset, length=len(raw))
        if entry.role == "assistant" and bad is None:
            bad = _bounds_problem(obj, line_no, offset)
        return entry, bad

    def _accept(self, obj: dict[str, Any], *, line_no: int, offset: int, length: int) -> Entry:
        ordinal = self._ordinal
        self._ordinal += 1
        if ordinal == 0:
            if obj.get("type") == "session":
                self.header = obj
                version = obj.get("version")
                self.version = version if isinstance(version, int) and not isinstance(version, bool) else 1
            else:
                self.headerless = True
        if self.version == 1 and obj.get("type") != "session":
            obj = self._migrate_v1(obj, line_no)
        if self.version < 3:
            obj = migrate_v2_role(obj)
        return entry_from_object(obj, line_no=line_no, offset=offset, length=length)

    def state(self) -> dict[str, Any]:
        """What the parser carries from line to line, as JSON-able values (see :meth:`restore`)."""
        return {"header": self.header, "headerless": self.headerless, "version": self.version,
                "ordinal": self._ordinal, "v1_ids": self._v1_ids, "prev_id": self._prev_id}

    @classmethod
    def restore(cls, state: Mapping[str, Any]) -> EntryParser:
        """A parser that continues where the one whose :meth:`state` this is stopped.

        Raises:
            KeyError, TypeError: ``state`` is not one :meth:`state` produced.
        """
        parser = cls()
        header = state["header"]
        parser.header = dict(header) if header is not None else None
        parser.headerless, parser.version = bool(state["headerless"]), int(state["version"])
        parser._ordinal, parser._prev_id = int(state["ordinal"]), state["prev_id"]
        parser._v1_ids = list(state["v1_ids"])
        return parser

    def _migrate_v1(self, obj: dict[str, Any], line_no: int) -> dict[str, Any]:
        migrated = dict(obj)
        if not isinstance(migrated.get("id"), str):
            migrated["id"] = f"v1-{line_no}"
        migrated["parentId"] = self._prev_id
        index = obj.get("firstKeptEntryIndex")
        if migrated.get("type") == "compaction" and isinstance(index, int) and "firstKeptEntryId" not in obj:
            ids = self._v1_ids
            migrated["firstKeptEntryId"] = ids[index] if 0 <= index < len(ids) else None
        self._prev_id = migrated["id"]
        if not self._v1_ids:
            self._v1_ids.append(None)  # the header occupies index 0
        self._v1_ids.append(migrated["id"])
        return migrated


def migrate_v2_role(obj: dict[str, Any]) -> dict[str, Any]:
    """pi's v2→v3 migration of one entry: the message role ``hookMessage`` becomes ``custom``.

    Only files below version 3 are migrated; in a v3 file pi leaves ``hookMessage`` as it is (docs/pi.md).
    """
    message = obj.get("message")
    if obj.get("type") == "message" and isinstance(message, Mapping) and message.get("role") == "hookMessage":
        return {**obj, "message": {**message, "role": "custom"}}
    return obj


def _bounds_problem(obj: dict[str, Any], line_no: int, offset: int) -> BadLine | None:
    # The line is read, the number is not (docs/formats.md, Number bounds).
    fields = out_of_bounds(obj.get("message"))
    if not fields:
        return None
    return BadLine(line_no, offset, f"{', '.join(fields)} out of bounds (counted as absent)", recovered=True)


def _reason(exc: orjson.JSONDecodeError) -> str:
    return f"invalid JSON: {str(exc).split(':', 1)[0]}"
