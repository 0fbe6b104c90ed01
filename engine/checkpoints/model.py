"""The checkpoint value: schema ``openclaw/checkpoint`` v1 (seed 000 §5.3), validated on read.

The field names are the YAML keys, so files interoperate with the TypeScript context manager the seed
describes. Seed 001 adds no fields (its ``last_tool_call`` already sits in ``working``). Timestamps stay
ISO-8601 strings, as in the file.

Exceptions: ``ValueError`` ← :class:`CheckpointFormatError` (a dict or file that is not a valid checkpoint).
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any, Final

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

SCHEMA: Final = "openclaw/checkpoint"
SCHEMA_VERSION: Final = 1
STATUSES: Final = frozenset({"in_progress", "idle", "waiting_for_user"})
EXCHANGE_ROLES: Final = frozenset({"user", "agent"})
CHECKPOINT_ID_RE: Final = re.compile(r"cp_[0-9]{3,}")
"""``cp_001`` …; three digits minimum, more beyond 999 (full match)."""
TRIGGER_RE: Final = re.compile(r"auto-[0-9]{1,3}pct|turns|pre-compaction-margin|compaction|manual|session-end")
"""The triggers of SPEC §5 (a superset of the seed's ``auto-80pct | compaction | session-end``)."""


class CheckpointFormatError(ValueError):
    """A dict or YAML document is not a valid checkpoint."""

    def __init__(self, problems: tuple[str, ...] | list[str], document: object = None) -> None:
        self.problems: tuple[str, ...] = tuple(problems)
        self.document = document
        """The parsed document when the text was YAML but not a valid checkpoint, else ``None``."""
        super().__init__("invalid checkpoint: " + "; ".join(self.problems))


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
    """The last tool call before the checkpoint (seed 001 issue 4)."""

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


def _kind(value: object) -> str:
    return type(value).__name__


class _Checker:
    """Collects problems as ``<path>: <message>``, e.g. ``meta.token_usage.input_tokens: missing``."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def add(self, where: str, message: str) -> None:
        self.problems.append(f"{where}: {message}")

    def section(self, m: Mapping[str, Any], at: str, key: str, *, required: bool) -> Mapping[str, Any]:
        value = m.get(key)
        if value is None or not isinstance(value, Mapping):
            if value is not None or required:
                self.add(at + key, "missing" if value is None else f"expected a mapping, got {_kind(value)}")
            return {}
        return value

    def text(self, m: Mapping[str, Any], at: str, key: str, *, optional: bool = False) -> None:
        value = m.get(key)
        if value is None and (optional or key in m):
            if not optional:
                self.add(at + key, "expected a string, got null")
        elif not isinstance(value, str):
            self.add(at + key, "missing" if value is None else f"expected a string, got {_kind(value)}")

    def time(self, m: Mapping[str, Any], at: str, key: str) -> None:
        value = m.get(key)
        if isinstance(value, str):
            try:
                datetime.fromisoformat(value)
            except ValueError:
                self.add(at + key, f"not an ISO-8601 time: {value[:40]!r}")
        elif not isinstance(value, date):
            self.add(at + key, "missing" if value is None else f"expected an ISO-8601 time, got {_kind(value)}")

    def integer(self, m: Mapping[str, Any], at: str, key: str, *, minimum: int) -> None:
        value = m.get(key)
        if not isinstance(value, int) or isinstance(value, bool):
            self.add(at + key, "missing" if value is None else f"expected an integer, got {_kind(value)}")
        elif value < minimum:
            self.add(at + key, f"must be >= {minimum}, got {value}")

    def pattern(
        self, m: Mapping[str, Any], at: str, key: str, regex: re.Pattern[str], *, optional: bool = False
    ) -> None:
        value = m.get(key)
        if value is None and optional:
            return
        if not isinstance(value, str):
            self.add(at + key, "missing" if value is None else f"expected a string, got {_kind(value)}")
        elif not regex.fullmatch(value):
            self.add(at + key, f"unexpected value {value[:40]!r}")

    def items(self, m: Mapping[str, Any], at: str, key: str, kind: type) -> list[Any]:
        """The items of an optional list that have type ``kind``; the others are reported."""
        value = m.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            self.add(at + key, f"expected a list, got {_kind(value)}")
            return []
        for i, item in enumerate(value):
            if not isinstance(item, kind):
                wanted = "a string" if kind is str else "a mapping"
                self.add(f"{at}{key}[{i}]", f"expected {wanted}, got {_kind(item)}")
        return [item for item in value if isinstance(item, kind)]


def validate_checkpoint(data: object) -> list[str]:
    """Every way ``data`` (a parsed YAML document) fails the v1 schema; empty means valid.

    Lists and ``resources``/``thread`` may be missing or null (read as empty); ``meta`` and ``working`` may not.
    Unknown keys are ignored, for forward compatibility.
    """
    if not isinstance(data, Mapping):
        return [f"document: expected a mapping, got {_kind(data)}"]
    c = _Checker()
    if data.get("schema") != SCHEMA:
        c.add("schema", f"expected {SCHEMA!r}, got {str(data.get('schema'))[:40]!r}")
    version = data.get("schema_version")
    if version != SCHEMA_VERSION or isinstance(version, bool):
        c.add("schema_version", f"unsupported version {str(version)[:20]!r}")

    if meta := c.section(data, "", "meta", required=True):
        c.pattern(meta, "meta.", "checkpoint_id", CHECKPOINT_ID_RE)
        c.text(meta, "meta.", "session_key")
        c.text(meta, "meta.", "session_file")
        c.time(meta, "meta.", "created_at")
        c.pattern(meta, "meta.", "trigger", TRIGGER_RE)
        c.integer(meta, "meta.", "compaction_count", minimum=0)
        if usage := c.section(meta, "meta.", "token_usage", required=True):
            c.integer(usage, "meta.token_usage.", "input_tokens", minimum=0)
            c.integer(usage, "meta.token_usage.", "context_window", minimum=1)
            ratio = usage.get("utilization")
            if not isinstance(ratio, int | float) or isinstance(ratio, bool) or not math.isfinite(ratio) or ratio < 0:
                c.add("meta.token_usage.utilization", f"expected a finite ratio >= 0, got {str(ratio)[:20]!r}")
        c.pattern(meta, "meta.", "previous_checkpoint", CHECKPOINT_ID_RE, optional=True)
        c.text(meta, "meta.", "channel", optional=True)
        c.text(meta, "meta.", "agent_id", optional=True)

    if work := c.section(data, "", "working", required=True):
        c.text(work, "working.", "topic")
        if work.get("status") not in STATUSES:
            c.add("working.status", f"expected one of {sorted(STATUSES)}, got {str(work.get('status'))[:40]!r}")
        if not isinstance(work.get("interrupted", False), bool):
            c.add("working.interrupted", "expected true or false")
        if call := c.section(work, "working.", "last_tool_call", required=False):
            c.text(call, "working.last_tool_call.", "name")
            c.text(
                call,
                "working.last_tool_call.",
                "params_summary" if "params_summary" in call else "paramsSummary",
                optional=True,
            )
        c.text(work, "working.", "next_action", optional=True)

    for i, d in enumerate(c.items(data, "", "decisions", Mapping)):
        c.text(d, f"decisions[{i}].", "id")
        c.text(d, f"decisions[{i}].", "what")
        c.time(d, f"decisions[{i}].", "when")
    resources = c.section(data, "", "resources", required=False)
    for key in ("files_read", "files_modified", "tools_used"):
        c.items(resources, "resources.", key, str)
    thread = c.section(data, "", "thread", required=False)
    c.text(thread, "thread.", "summary", optional=True)
    for i, e in enumerate(c.items(thread, "thread.", "key_exchanges", Mapping)):
        if e.get("role") not in EXCHANGE_ROLES:
            c.add(f"thread.key_exchanges[{i}].role", f"expected user or agent, got {str(e.get('role'))[:20]!r}")
        c.text(e, f"thread.key_exchanges[{i}].", "gist")
    c.items(data, "", "open_items", str)
    c.items(data, "", "learnings", str)
    return c.problems


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
