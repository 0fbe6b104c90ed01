"""A session's audit records as the audit pane lists them: newest first, one line each.

The records are ctxscope's own log of every write (``docs/compaction.md``, Audit); the log is shared by the
sessions of a state dir, so the query keeps those of one session.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.fs.audit import read_audit

__all__ = ["HistoryItem", "audit_history"]


@dataclass(frozen=True, slots=True)
class HistoryItem:
    """One line of a history pane."""

    time: str
    title: str
    """``action · result``."""
    detail: str = ""
    """The error, else the action's parameters and its message tokens before → after."""


def audit_history(state_dir: Path, key: str) -> tuple[HistoryItem, ...]:
    """The audit records of session ``key`` in ``state_dir``'s log, newest first (blocking: reads the log)."""
    records = [r for r in read_audit(state_dir) if r.session_key == key]
    return tuple(
        HistoryItem(r.time, f"{r.action} · {r.result}", r.error or _params(r.params, r.plan))
        for r in reversed(records)
    )


def _params(params: Mapping[str, Any], plan: Mapping[str, Any]) -> str:
    shown = dict(params)
    shown.pop("path", None)  # the same for every record of a session
    before, after = plan.get("tokens_before"), plan.get("tokens_after")
    if isinstance(before, int) and isinstance(after, int):
        shown["message tokens"] = f"{before:,} → {after:,}"
    return ", ".join(f"{k}={v}" for k, v in shown.items() if v not in (None, False, ""))
