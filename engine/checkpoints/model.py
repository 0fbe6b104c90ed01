"""The checkpoint value: schema ``openclaw/checkpoint`` v1 (docs/checkpoints.md), validated on read by
:mod:`engine.checkpoints.schema`.

The field names are the YAML keys, so files interoperate with the TypeScript context manager the schema was
designed for. Timestamps stay ISO-8601 strings, as in the file.

Exceptions: ``ValueError`` ← :class:`CheckpointFormatError` (a dict or file that is not a valid checkpoint).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any, Final

from engine.checkpoints.schema import (
    CHECKPOINT_ID_RE,
    EXCHANGE_ROLES,
    SCHEMA,
    SCHEMA_VERSION,
    STATUSES,
    TRIGGER_RE,
    CheckpointFormatError,
    validate_checkpoint,
)

__all__ = [
    "CHECKPOINT_ID_RE",
    "EXCHANGE_ROLES",
    "SCHEMA",
    "SCHEMA_VERSION",
    "STATUSES",
    "TRIGGER_RE",
    "Checkpoint",
    "CheckpointFormatError",
    "CheckpointMeta",
    "Decision",
    "Exchange",
    "Resources",
    "Thread",
    "TokenUsage",
    "ToolCallSummary",
    "WorkingState",
    "map_text",
    "validate_checkpoint",
]

@dataclass(frozen=True, slots=True)
class TokenUsage:
    """Context size when the checkpoint was written."""

    input_tokens: int
    """Tokens in the context (usage or estimate)."""
    context_window: int
    """The window limit, in tokens."""
    utilization: float
    """``input_tokens / context_window`` as a ratio (0.81, not 81); may exceed 1."""


@dataclass(frozen=True, slots=True)
class CheckpointMeta:
    """Identity, provenance and size of a checkpoint."""

    checkpoint_id: str
    session_key: str
    session_file: str
    created_at: str
    """ISO-8601 time, e.g. ``2026-02-24T15:30:00Z``."""
    trigger: str
    """One of :data:`TRIGGER_RE`: ``auto-80pct``, ``turns``, ``pre-compaction-margin``, ``compaction``, …"""
    compaction_count: int
    token_usage: TokenUsage
    previous_checkpoint: str | None = None
    channel: str | None = None
    agent_id: str | None = None


@dataclass(frozen=True, slots=True)
class ToolCallSummary:
    """The last tool call before the checkpoint."""

    name: str
    params_summary: str


@dataclass(frozen=True, slots=True)
class WorkingState:
    """What the agent was doing."""

    topic: str
    status: str
    """``in_progress``, ``idle`` or ``waiting_for_user``."""
    interrupted: bool = False
    last_tool_call: ToolCallSummary | None = None
    next_action: str = ""


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision taken in the session."""

    id: str
    what: str
    when: str
    """ISO-8601 time."""


@dataclass(frozen=True, slots=True)
class Resources:
    """Files and tools the session touched (deduplicated by the capture)."""

    files_read: tuple[str, ...] = ()
    files_modified: tuple[str, ...] = ()
    tools_used: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Exchange:
    """A key exchange: who spoke and the gist (first 120 chars) of what they said."""

    role: str
    """``user`` or ``agent``."""
    gist: str


@dataclass(frozen=True, slots=True)
class Thread:
    """The conversation in brief."""

    summary: str = ""
    key_exchanges: tuple[Exchange, ...] = ()


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """One ``openclaw/checkpoint`` v1 document."""

    meta: CheckpointMeta
    working: WorkingState
    decisions: tuple[Decision, ...] = ()
    resources: Resources = field(default_factory=Resources)
    thread: Thread = field(default_factory=Thread)
    open_items: tuple[str, ...] = ()
    learnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The YAML document as plain dicts and lists: field names are the keys, in schema order."""
        plain = _plain(self)
        assert isinstance(plain, dict)
        return {"schema": SCHEMA, "schema_version": SCHEMA_VERSION, **plain}

    @classmethod
    def from_dict(cls, data: object) -> Checkpoint:
        """Build a checkpoint from a parsed document.

        Raises:
            CheckpointFormatError: with every problem :func:`validate_checkpoint` finds.
        """
        problems = validate_checkpoint(data)
        if problems:
            raise CheckpointFormatError(problems)
        assert isinstance(data, Mapping)
        return _build(data)


def _plain(value: object) -> object:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return value


def _time_text(value: object) -> str:
    # YAML 1.1 turns unquoted timestamps (written by other tools) into datetimes; keep the file's string form.
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, date):
        return value.isoformat()
    assert isinstance(value, str)
    return value


def _texts(value: object) -> tuple[str, ...]:
    return tuple(value) if isinstance(value, list) else ()


def _build(d: Mapping[str, Any]) -> Checkpoint:
    meta, work = d["meta"], d["working"]
    tu = meta["token_usage"]
    ltc = work.get("last_tool_call")
    res = d.get("resources") or {}
    thread = d.get("thread") or {}
    return Checkpoint(
        meta=CheckpointMeta(
            checkpoint_id=meta["checkpoint_id"],
            session_key=meta["session_key"],
            session_file=meta["session_file"],
            created_at=_time_text(meta["created_at"]),
            trigger=meta["trigger"],
            compaction_count=meta["compaction_count"],
            token_usage=TokenUsage(tu["input_tokens"], tu["context_window"], float(tu["utilization"])),
            previous_checkpoint=meta.get("previous_checkpoint"),
            channel=meta.get("channel"),
            agent_id=meta.get("agent_id"),
        ),
        working=WorkingState(
            topic=work["topic"],
            status=work["status"],
            interrupted=work.get("interrupted", False),
            last_tool_call=None
            if ltc is None
            else ToolCallSummary(ltc["name"], ltc.get("params_summary") or ltc.get("paramsSummary") or ""),
            next_action=work.get("next_action") or "",
        ),
        decisions=tuple(Decision(x["id"], x["what"], _time_text(x["when"])) for x in d.get("decisions") or ()),
        resources=Resources(
            _texts(res.get("files_read")), _texts(res.get("files_modified")), _texts(res.get("tools_used"))
        ),
        thread=Thread(
            thread.get("summary") or "",
            tuple(Exchange(x["role"], x["gist"]) for x in thread.get("key_exchanges") or ()),
        ),
        open_items=_texts(d.get("open_items")),
        learnings=_texts(d.get("learnings")),
    )


# Identity fields: not transcript text, so redaction leaves them alone (see map_text).
_IDENTITY_FIELDS: Final = frozenset(
    {"checkpoint_id", "session_key", "session_file", "created_at", "trigger", "previous_checkpoint", "channel"}
    | {"agent_id", "status", "id", "when", "role"}
)


def map_text(cp: Checkpoint, fn: Callable[[str], str], *, all_strings: bool = False) -> Checkpoint:
    """Apply ``fn`` to every transcript-derived string of ``cp`` (or to every string, with ``all_strings``).

    Transcript-derived: topic, next action, last tool call, decisions' text, files, tools, thread summary and
    gists, open items and learnings. The rest (ids, times, trigger, status, roles, session key and file,
    channel, agent id) is identity, left alone unless ``all_strings``.
    """

    def walk(value: Any, name: str) -> Any:
        if isinstance(value, str):
            return value if name in _IDENTITY_FIELDS and not all_strings else fn(value)
        if isinstance(value, tuple):
            return tuple(walk(item, name) for item in value)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            fields = dataclasses.fields(value)
            return type(value)(**{f.name: walk(getattr(value, f.name), f.name) for f in fields})
        return value

    result: Checkpoint = walk(cp, "")
    return result
