"""The audit log: one JSON line per write action in ``<stateDir>/context/audit.jsonl`` (docs/compaction.md, Audit)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from engine.fs.layout import audit_path
from engine.fs.safe_path import append_once

__all__ = ["AuditRecord", "read_audit", "record_action"]


@dataclass(frozen=True, slots=True)
class AuditRecord:
    """One audited action."""

    time: str
    """ISO-8601 UTC time the action finished."""
    action: str
    """``checkpoint``, ``compact``, ``prune``, ``inject`` or ``archive``."""
    session_key: str
    params: Mapping[str, Any] = field(default_factory=dict)
    plan: Mapping[str, Any] = field(default_factory=dict)
    """A short summary of the plan that was applied (never transcript text)."""
    result: str = "ok"
    """``ok``, ``refused``, ``not-compacted`` (the gateway declined), ``failed``, ``dry-run`` or ``cancelled`` (the
    user closed the preview without confirming: nothing was written)."""
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "time": self.time,
            "action": self.action,
            "session_key": self.session_key,
            "params": dict(self.params),
            "plan": dict(self.plan),
            "result": self.result,
            "error": self.error,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AuditRecord:
        return cls(
            time=str(data.get("time", "")),
            action=str(data.get("action", "")),
            session_key=str(data.get("session_key", "")),
            params=dict(data.get("params") or {}),
            plan=dict(data.get("plan") or {}),
            result=str(data.get("result", "")),
            error=data.get("error"),
        )


def record_action(
    state_dir: Path,
    action: str,
    session_key: str,
    *,
    params: Mapping[str, Any] | None = None,
    plan: Mapping[str, Any] | None = None,
    result: str = "ok",
    error: str | None = None,
    now: datetime | None = None,
) -> AuditRecord:
    """Append one record with a single ``write()`` on an ``O_APPEND`` descriptor, then fsync.

    Raises:
        engine.fs.safe_path.UnsafePathError: ``context/`` or the log is a symlink or not what it must be.
        OSError: the log could not be written (read-only state dir, disk full).
    """
    when = (now or datetime.now(UTC)).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    record = AuditRecord(when, action, session_key, params or {}, plan or {}, result, error)
    line = orjson.dumps(record.to_dict(), option=orjson.OPT_NON_STR_KEYS | orjson.OPT_SORT_KEYS) + b"\n"
    append_once(state_dir, audit_path(state_dir), line)
    return record


def read_audit(state_dir: Path) -> Iterator[AuditRecord]:
    """Yield the audit records in order, skipping lines a crash left incomplete."""
    path = audit_path(state_dir)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return
    for raw in data.splitlines():
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            yield AuditRecord.from_dict(obj)
