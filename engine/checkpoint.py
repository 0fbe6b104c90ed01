"""The checkpoint value: schema ``openclaw/checkpoint`` v1 (seed 000 §5.3), validated on read.

The field names are the YAML keys, so files interoperate with the TypeScript context manager the seed
describes. Seed 001 adds no fields (its ``last_tool_call`` already sits in ``working``). Timestamps stay
ISO-8601 strings, as in the file.

Exceptions: ``ValueError`` ← :class:`CheckpointFormatError` (a dict or file that is not a valid checkpoint).
"""

from __future__ import annotations

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
        """The YAML document as plain dicts and lists, keys in schema order."""
        m, w, tu = self.meta, self.working, self.meta.token_usage
        ltc = w.last_tool_call
        return {
            "schema": SCHEMA,
            "schema_version": SCHEMA_VERSION,
            "meta": {
                "checkpoint_id": m.checkpoint_id,
                "session_key": m.session_key,
                "session_file": m.session_file,
                "created_at": m.created_at,
                "trigger": m.trigger,
                "compaction_count": m.compaction_count,
                "token_usage": {
                    "input_tokens": tu.input_tokens,
                    "context_window": tu.context_window,
                    "utilization": tu.utilization,
                },
                "previous_checkpoint": m.previous_checkpoint,
                "channel": m.channel,
                "agent_id": m.agent_id,
            },
            "working": {
                "topic": w.topic,
                "status": w.status,
                "interrupted": w.interrupted,
                "last_tool_call": None if ltc is None else {"name": ltc.name, "params_summary": ltc.params_summary},
                "next_action": w.next_action,
            },
            "decisions": [{"id": d.id, "what": d.what, "when": d.when} for d in self.decisions],
            "resources": {
                "files_read": list(self.resources.files_read),
                "files_modified": list(self.resources.files_modified),
                "tools_used": list(self.resources.tools_used),
            },
            "thread": {
                "summary": self.thread.summary,
                "key_exchanges": [{"role": e.role, "gist": e.gist} for e in self.thread.key_exchanges],
            },
            "open_items": list(self.open_items),
            "learnings": list(self.learnings),
        }

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


class _Checker:
    """Collects problems with paths like ``meta.token_usage.input_tokens``."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def add(self, where: str, message: str) -> None:
        self.problems.append(f"{where}: {message}")

    def section(self, parent: Mapping[str, Any], key: str, where: str, *, required: bool) -> Mapping[str, Any]:
        value = parent.get(key)
        if value is None:
            if required:
                self.add(where, "missing")
            return {}
        if not isinstance(value, Mapping):
            self.add(where, f"expected a mapping, got {type(value).__name__}")
            return {}
        return value

    def text(
        self, m: Mapping[str, Any], key: str, where: str, *, required: bool = True, nullable: bool = False
    ) -> None:
        if key not in m:
            if required:
                self.add(where, "missing")
            return
        value = m[key]
        if value is None and (nullable or not required):
            return
        if not isinstance(value, str):
            self.add(where, f"expected a string, got {type(value).__name__}")

    def time(self, m: Mapping[str, Any], key: str, where: str) -> None:
        value = m.get(key)
        if isinstance(value, date):
            return
        if not isinstance(value, str):
            self.add(where, "missing" if value is None else f"expected an ISO-8601 time, got {type(value).__name__}")
            return
        try:
            datetime.fromisoformat(value)
        except ValueError:
            self.add(where, f"not an ISO-8601 time: {value[:40]!r}")

    def integer(self, m: Mapping[str, Any], key: str, where: str, *, minimum: int) -> None:
        value = m.get(key)
        if not isinstance(value, int) or isinstance(value, bool):
            self.add(where, "missing" if value is None else f"expected an integer, got {type(value).__name__}")
        elif value < minimum:
            self.add(where, f"must be >= {minimum}, got {value}")

    def pattern(self, m: Mapping[str, Any], key: str, where: str, regex: re.Pattern[str], *, nullable: bool) -> None:
        value = m.get(key)
        if value is None and nullable:
            return
        if not isinstance(value, str):
            self.add(where, "missing" if value is None else f"expected a string, got {type(value).__name__}")
        elif not regex.fullmatch(value):
            self.add(where, f"unexpected value {value[:40]!r}")

    def text_list(self, m: Mapping[str, Any], key: str, where: str) -> None:
        value = m.get(key)
        if value is None:
            return
        if not isinstance(value, list):
            self.add(where, f"expected a list, got {type(value).__name__}")
            return
        for i, item in enumerate(value):
            if not isinstance(item, str):
                self.add(f"{where}[{i}]", f"expected a string, got {type(item).__name__}")

    def record_list(self, m: Mapping[str, Any], key: str, where: str) -> list[Mapping[str, Any]]:
        value = m.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            self.add(where, f"expected a list, got {type(value).__name__}")
            return []
        records = []
        for i, item in enumerate(value):
            if isinstance(item, Mapping):
                records.append(item)
            else:
                self.add(f"{where}[{i}]", f"expected a mapping, got {type(item).__name__}")
        return records


def validate_checkpoint(data: object) -> list[str]:
    """Every way ``data`` (a parsed YAML document) fails the v1 schema; empty means valid.

    Lists and ``resources``/``thread`` may be missing or null (read as empty); ``meta`` and ``working`` may not.
    Unknown keys are ignored, for forward compatibility.
    """
    c = _Checker()
    if not isinstance(data, Mapping):
        return [f"document: expected a mapping, got {type(data).__name__}"]
    if data.get("schema") != SCHEMA:
        c.add("schema", f"expected {SCHEMA!r}, got {str(data.get('schema'))[:40]!r}")
    version = data.get("schema_version")
    if version != SCHEMA_VERSION or isinstance(version, bool):
        c.add("schema_version", f"unsupported version {str(version)[:20]!r}")

    meta = c.section(data, "meta", "meta", required=True)
    if meta:
        c.pattern(meta, "checkpoint_id", "meta.checkpoint_id", CHECKPOINT_ID_RE, nullable=False)
        c.text(meta, "session_key", "meta.session_key")
        c.text(meta, "session_file", "meta.session_file")
        c.time(meta, "created_at", "meta.created_at")
        c.pattern(meta, "trigger", "meta.trigger", TRIGGER_RE, nullable=False)
        c.integer(meta, "compaction_count", "meta.compaction_count", minimum=0)
        usage = c.section(meta, "token_usage", "meta.token_usage", required=True)
        if usage:
            c.integer(usage, "input_tokens", "meta.token_usage.input_tokens", minimum=0)
            c.integer(usage, "context_window", "meta.token_usage.context_window", minimum=1)
            ratio = usage.get("utilization")
            if not isinstance(ratio, int | float) or isinstance(ratio, bool):
                c.add("meta.token_usage.utilization", "expected a number")
            elif not math.isfinite(ratio) or ratio < 0:
                c.add("meta.token_usage.utilization", f"must be a finite ratio >= 0, got {ratio}")
        c.pattern(meta, "previous_checkpoint", "meta.previous_checkpoint", CHECKPOINT_ID_RE, nullable=True)
        c.text(meta, "channel", "meta.channel", required=False)
        c.text(meta, "agent_id", "meta.agent_id", required=False)

    work = c.section(data, "working", "working", required=True)
    if work:
        c.text(work, "topic", "working.topic")
        status = work.get("status")
        if status not in STATUSES:
            c.add("working.status", f"expected one of {sorted(STATUSES)}, got {str(status)[:40]!r}")
        if not isinstance(work.get("interrupted", False), bool):
            c.add("working.interrupted", "expected true or false")
        ltc = work.get("last_tool_call")
        if ltc is not None:
            if not isinstance(ltc, Mapping):
                c.add("working.last_tool_call", "expected a mapping or null")
            else:
                c.text(ltc, "name", "working.last_tool_call.name")
                key = "params_summary" if "params_summary" in ltc else "paramsSummary"
                c.text(ltc, key, f"working.last_tool_call.{key}", required=False)
        c.text(work, "next_action", "working.next_action", required=False)

    for i, d in enumerate(c.record_list(data, "decisions", "decisions")):
        c.text(d, "id", f"decisions[{i}].id")
        c.text(d, "what", f"decisions[{i}].what")
        c.time(d, "when", f"decisions[{i}].when")

    resources = c.section(data, "resources", "resources", required=False)
    for key in ("files_read", "files_modified", "tools_used"):
        c.text_list(resources, key, f"resources.{key}")

    thread = c.section(data, "thread", "thread", required=False)
    c.text(thread, "summary", "thread.summary", required=False)
    for i, e in enumerate(c.record_list(thread, "key_exchanges", "thread.key_exchanges")):
        if e.get("role") not in EXCHANGE_ROLES:
            c.add(f"thread.key_exchanges[{i}].role", f"expected user or agent, got {str(e.get('role'))[:20]!r}")
        c.text(e, "gist", f"thread.key_exchanges[{i}].gist")

    c.text_list(data, "open_items", "open_items")
    c.text_list(data, "learnings", "learnings")
    return c.problems


def map_text(cp: Checkpoint, fn: Callable[[str], str], *, all_strings: bool = False) -> Checkpoint:
    """Apply ``fn`` to every transcript-derived string of ``cp`` (or to every string, with ``all_strings``).

    Transcript-derived: topic, next action, last tool call, decisions' text, files, tools, thread, open items
    and learnings. The rest (ids, times, trigger, status, roles, session key/file, channel, agent id) is
    identity, left alone unless ``all_strings``.
    """

    def ident(s: str) -> str:
        return fn(s) if all_strings else s

    def opt(s: str | None) -> str | None:
        return None if s is None else ident(s)

    m, w, r = cp.meta, cp.working, cp.resources
    ltc = w.last_tool_call
    return Checkpoint(
        meta=CheckpointMeta(
            checkpoint_id=ident(m.checkpoint_id),
            session_key=ident(m.session_key),
            session_file=ident(m.session_file),
            created_at=ident(m.created_at),
            trigger=ident(m.trigger),
            compaction_count=m.compaction_count,
            token_usage=m.token_usage,
            previous_checkpoint=opt(m.previous_checkpoint),
            channel=opt(m.channel),
            agent_id=opt(m.agent_id),
        ),
        working=WorkingState(
            topic=fn(w.topic),
            status=ident(w.status),
            interrupted=w.interrupted,
            last_tool_call=None if ltc is None else ToolCallSummary(fn(ltc.name), fn(ltc.params_summary)),
            next_action=fn(w.next_action),
        ),
        decisions=tuple(Decision(ident(d.id), fn(d.what), ident(d.when)) for d in cp.decisions),
        resources=Resources(
            tuple(map(fn, r.files_read)), tuple(map(fn, r.files_modified)), tuple(map(fn, r.tools_used))
        ),
        thread=Thread(
            fn(cp.thread.summary), tuple(Exchange(ident(e.role), fn(e.gist)) for e in cp.thread.key_exchanges)
        ),
        open_items=tuple(map(fn, cp.open_items)),
        learnings=tuple(map(fn, cp.learnings)),
    )
