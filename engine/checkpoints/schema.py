"""The ``openclaw/checkpoint`` v1 schema: its constants and the validator every read goes through.

The validator reports every problem at once (``decisions[2].text: expected a string, got int``) instead of the
first, so a user fixing a hand-edited checkpoint sees the whole list (docs/checkpoints.md).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any, Final

__all__ = [
    "CHECKPOINT_ID_RE",
    "EXCHANGE_ROLES",
    "SCHEMA",
    "SCHEMA_VERSION",
    "STATUSES",
    "TRIGGER_RE",
    "CheckpointFormatError",
    "validate_checkpoint",
]

SCHEMA: Final = "openclaw/checkpoint"
SCHEMA_VERSION: Final = 1
STATUSES: Final = frozenset({"in_progress", "idle", "waiting_for_user"})
EXCHANGE_ROLES: Final = frozenset({"user", "agent"})
CHECKPOINT_ID_RE: Final = re.compile(r"cp_[0-9]{3,}")
"""``cp_001`` …; three digits minimum, more beyond 999 (full match)."""
TRIGGER_RE: Final = re.compile(r"auto-[0-9]{1,3}pct|turns|pre-compaction-margin|compaction|manual|session-end")
"""The checkpoint triggers (docs/checkpoints.md, Triggers)."""


class CheckpointFormatError(ValueError):
    """A dict or YAML document is not a valid checkpoint."""

    def __init__(self, problems: tuple[str, ...] | list[str], document: object = None) -> None:
        self.problems: tuple[str, ...] = tuple(problems)
        self.document = document
        """The parsed document when the text was YAML but not a valid checkpoint, else ``None``."""
        super().__init__("invalid checkpoint: " + "; ".join(self.problems))



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
