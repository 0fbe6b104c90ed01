"""The index's oracle in tests: the engine's full reader over every line, reduced to the same records."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.index.records import CompactionRecord, UsageRecord, compaction_record, usage_record
from engine.stores.transcript import TranscriptReader


def full_records(path: Path) -> tuple[list[UsageRecord], list[CompactionRecord], int]:
    """``(calls, compactions, non-blank lines)`` of ``path`` read whole by :class:`TranscriptReader`."""
    reader = TranscriptReader(path)
    reader.read_new()
    calls: list[UsageRecord] = []
    compactions: list[CompactionRecord] = []
    for entry in reader.entries:
        found = compaction_record(entry)
        if found is not None:
            compactions.append(found)
            continue
        if entry.role == "assistant" and entry.usage is not None:
            message: Any = reader.read_object(entry).get("message")
            call = usage_record(entry, message if isinstance(message, Mapping) else None)
            if call is not None:
                calls.append(call)
    lines = len(reader.entries) + len([b for b in reader.bad_lines if not b.recovered])
    return calls, compactions, lines
