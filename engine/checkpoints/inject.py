"""Resuming an agent from its latest checkpoint: append it as a ``custom_message`` (docs/checkpoints.md, Injection).

pi sends custom messages to the model as user messages, so an appended ``custom_message`` with
``customType: "ctxscope.checkpoint"`` and ``display: false`` has the effect of the system event the original
design enqueues inside the agent: the agent sees the ``<checkpoint-data>`` block on its next turn. The append goes
through the locked JSONL writer (:mod:`engine.fs.jsonl_append`); SQLite-era and archived sessions are refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.checkpoints.render import RenderedCheckpoint, render_checkpoint
from engine.checkpoints.store import LoadedCheckpoint, latest_checkpoint
from engine.fs.audit import record_action
from engine.fs.jsonl_append import AppendResult, append_entries
from engine.stores.source import AGENT_FORMATS, SessionSource

__all__ = [
    "CHECKPOINT_CUSTOM_TYPE",
    "InjectPlan",
    "InjectRefusedError",
    "apply_inject",
    "checkpoint_message_entry",
    "plan_inject",
]

CHECKPOINT_CUSTOM_TYPE = "ctxscope.checkpoint"


class InjectRefusedError(Exception):
    """The checkpoint cannot be injected into this session; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class InjectPlan:
    """What ``inject`` would append."""

    source: SessionSource
    state_dir: Path
    checkpoint: LoadedCheckpoint
    rendered: RenderedCheckpoint


def checkpoint_message_entry(loaded: LoadedCheckpoint, rendered: RenderedCheckpoint) -> dict[str, Any]:
    """The ``custom_message`` entry carrying a rendered checkpoint (id/parentId/timestamp added by the writer)."""
    return {
        "type": "custom_message",
        "customType": CHECKPOINT_CUSTOM_TYPE,
        "content": rendered.text,
        "display": False,
        "details": {
            "source": "ctxscope",
            "checkpointId": loaded.ref.checkpoint_id,
            "tokens": rendered.tokens,
            "tokenMethod": rendered.token_method,
        },
    }


def plan_inject(source: SessionSource, state_dir: Path) -> InjectPlan:
    """Find and render the latest checkpoint for ``source``.

    Raises:
        InjectRefusedError: read-only store, archived transcript, or no checkpoint yet.
    """
    if source.in_database:
        raise InjectRefusedError(
            f"{source.key} lives in OpenClaw's SQLite store, which only the gateway writes; "
            "inject is available for JSONL transcripts."
        )
    if source.kind != "live":
        raise InjectRefusedError(f"{source.path} is an archived transcript; nothing reads it any more.")
    if source.read_only_reason is not None:
        raise InjectRefusedError(source.read_only_reason)
    if source.format in AGENT_FORMATS:
        raise InjectRefusedError(f"{source.key}: inject writes pi entries; Claude Code and Codex sessions take "
                                 "their checkpoint through a compaction's summary (ctxscope compact)")
    loaded = latest_checkpoint(state_dir, source.identity)
    if loaded is None:
        raise InjectRefusedError(
            f"no checkpoint for {source.key} in {state_dir}; write one first with `ctxscope checkpoint {source.key}`."
        )
    return InjectPlan(source, state_dir, loaded, render_checkpoint(loaded.checkpoint))


def apply_inject(plan: InjectPlan, *, lock_timeout: float = 10.0) -> AppendResult:
    """Append the planned message under the session's lock and audit the result.

    Raises:
        engine.fs.jsonl_append.AppendError, engine.fs.session_lock.LockHeldError: the append was refused or failed
            (audited as ``failed`` before re-raising).
    """
    entry = checkpoint_message_entry(plan.checkpoint, plan.rendered)
    params: Mapping[str, Any] = {"checkpoint_id": plan.checkpoint.ref.checkpoint_id, "path": str(plan.source.path)}
    try:
        result = append_entries(plan.source.path, lambda _leaf: [entry], lock_timeout=lock_timeout)
    except Exception as exc:
        record_action(plan.state_dir, "inject", plan.source.key, params=params, result="failed", error=str(exc))
        raise
    record_action(
        plan.state_dir,
        "inject",
        plan.source.key,
        params=params,
        plan={
            "tokens": plan.rendered.tokens,
            "entry_ids": list(result.entry_ids),
            "parent_id": result.parent_id,
            "bytes": result.bytes_written,
            "warning": result.agent_active_warning,
        },
    )
    return result
