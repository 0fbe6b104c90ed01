"""What an index keeps of a transcript's lines: one record per billed call and per compaction (``docs/index.md``).

Records are small tuples so that an index of a long session stays a few hundred kilobytes and loads in
milliseconds. Each carries a *request key* that names the call or compaction across files: the provider's
``responseId`` when the agent recorded one, else ``<entry id>@<timestamp>``. A forked session, a pre-compaction
copy, an archive and the SQLite import of the same transcript all repeat the same entries with the same ids and
timestamps, so the key lets a report count each request once (``docs/usage.md``).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, NamedTuple

from engine.index.record_types import CompactionRecord, UsageRecord
from engine.stores.entries import Entry, Usage, assistant_call, entry_from_object

__all__ = [
    "CompactionRecord",
    "HeaderInfo",
    "UsageRecord",
    "compaction_record",
    "header_info",
    "record_of",
    "usage_record",
]


class HeaderInfo(NamedTuple):
    """What the first line says about the session."""

    session_id: str | None
    cwd: str | None
    """The working directory the agent ran in: the report's *project*."""
    version: int
    """pi format version (1 when the header has none, 3 for a header-less file)."""
    headerless: bool


def header_info(obj: Any) -> HeaderInfo:
    """The header fields of the parsed first line (a header-less file when it is not a ``session`` object)."""
    if not isinstance(obj, dict) or obj.get("type") != "session":
        return HeaderInfo(None, None, 3, True)
    version = obj.get("version")
    sid, cwd = obj.get("id"), obj.get("cwd")
    return HeaderInfo(
        sid if isinstance(sid, str) else None,
        cwd if isinstance(cwd, str) else None,
        version if isinstance(version, int) and not isinstance(version, bool) else 1,
        False,
    )


def _request_key(entry_id: str | None, timestamp: str | None) -> str | None:
    return f"{entry_id}@{timestamp}" if entry_id is not None and timestamp is not None else None


def _epoch_ms_iso(value: Any) -> str | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 < value < 1e14:
        moment = datetime.fromtimestamp(value / 1000, UTC)
        return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return None


def usage_record(entry: Entry, message: Mapping[str, Any] | None = None) -> UsageRecord | None:
    """The call record of an entry, or ``None`` when it is not a billed call.

    ``message`` is the line's ``message`` object, for the provider's ``responseId`` and the epoch-ms time. A billed
    call is an assistant message with a ``usage`` object that is not OpenClaw's synthetic mirror
    (``provider: "openclaw"``, never sent to a model) and reports some tokens or a cost. Aborted and failed
    calls count: the provider billed what they report.
    """
    if entry.role != "assistant":
        return None
    return _call_record(entry.line_no, entry.id, entry.timestamp, entry.provider, entry.model, entry.usage,
                        entry.stop_reason, message)


def _call_record(
    line: int, entry_id: str | None, timestamp: str | None, provider: str | None, model: str | None,
    usage: Usage | None, stop_reason: str | None, message: Mapping[str, Any] | None,
) -> UsageRecord | None:
    if usage is None or provider == "openclaw":
        return None
    if usage.input + usage.output + usage.cache_read + usage.cache_write == 0 and not usage.cost_total:
        return None
    message = message or {}
    timestamp = timestamp or _epoch_ms_iso(message.get("timestamp"))
    response_id = message.get("responseId")
    key = f"response:{response_id}" if isinstance(response_id, str) and response_id else _request_key(
        entry_id, timestamp)
    return UsageRecord(line, key, entry_id, timestamp, model, provider, usage.input, usage.output, usage.cache_read,
                       usage.cache_write, usage.cost_total, stop_reason)


def compaction_record(entry: Entry) -> CompactionRecord | None:
    """The record of a ``compaction`` entry, else ``None``."""
    if entry.type != "compaction":
        return None
    return CompactionRecord(entry.line_no, _request_key(entry.id, entry.timestamp), entry.id, entry.timestamp,
                            entry.tokens_before, entry.first_kept_entry_id, entry.from_hook, entry.fallback_summary)


def record_of(obj: Mapping[str, Any], *, line: int) -> UsageRecord | CompactionRecord | None:
    """The record of one parsed line (a billed call or a compaction), if it is one."""
    call = assistant_call(obj)
    if call is not None:
        message = obj.get("message")
        return _call_record(line, call.id, call.timestamp, call.provider, call.model, call.usage, call.stop_reason,
                            message if isinstance(message, Mapping) else None)
    if obj.get("type") != "compaction":
        return None
    return compaction_record(entry_from_object(obj, line_no=line, offset=0, length=0))
