"""Applying a compaction plan to a real session (SPEC §6.5): the ``jsonl``, ``gateway`` and ``none`` controllers.

* ``jsonl`` appends, under OpenClaw's lock and in ONE write, the ``compaction`` entry and — when the session has a
  checkpoint — a ``custom_message`` carrying it (:func:`engine.fs.jsonl_append.append_entries` re-reads the leaf
  under the lock). If the agent moved the leaf since planning, the plan is recomputed from the new path under the
  lock, so the cut is always on the path the entry is chained to. Drop-only writes its memory archive record
  under the same lock, just before the append.
* ``gateway`` asks OpenClaw's gateway (:mod:`engine.compaction.gateway`) and reports what really happened: the
  answer when it says yes or no, else the store (a late or missing answer, a ``/compact`` that was only started).
* ``none`` refuses.

Every outcome that touches a file is recorded in the audit log (§6.8): ``compact``/``prune`` and ``archive``.

Exceptions::

    CompactionError               applying failed (the message says why)
     ├── CompactionRefusedError   the plan may not be applied; nothing was written
     ├── NotCompactedError        the gateway answered that it did not compact (reason given)
     └── GatewayError             the openclaw command failed and the store shows no compaction
    engine.fs.session_lock.LockHeldError and engine.fs.jsonl_append.AppendError propagate unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.compaction.archive import ArchiveWrite, append_archive_record
from engine.compaction.gateway import DEFAULT_GATEWAY_TIMEOUT_S, GatewayOutcome, call_gateway, gateway_argv
from engine.compaction.plan import CompactionPlan
from engine.compaction.planner import plan_compaction
from engine.config.loader import Config, resolve_state_dir
from engine.fs.audit import record_action
from engine.fs.jsonl_append import append_entries
from engine.session.snapshot import SessionFollower

__all__ = [
    "CompactionError",
    "CompactionRefusedError",
    "CompactionResult",
    "GatewayError",
    "NotCompactedError",
    "apply_compaction",
    "gateway_argv",
]


class CompactionError(Exception):
    """Applying a compaction failed."""


class CompactionRefusedError(CompactionError):
    """The plan may not be applied (see its ``blocked`` reasons); nothing was written."""


class GatewayError(CompactionError):
    """The ``openclaw gateway call`` failed or its answer could not be read, and the store shows no compaction."""


class NotCompactedError(CompactionError):
    """The gateway answered (or its reply in the store said) that it did not compact; nothing changed."""

    def __init__(self, reason: str, outcome: GatewayOutcome) -> None:
        super().__init__(reason)
        self.reason = reason
        self.outcome = outcome


@dataclass(frozen=True, slots=True)
class CompactionResult:
    """What a controller did."""

    plan: CompactionPlan
    """The plan that was applied: the one given, or the one recomputed because the leaf moved."""
    controller: str
    entry_ids: tuple[str, ...] = ()
    """Ids of the appended entries: the compaction, then the checkpoint message if any (jsonl)."""
    parent_id: str | None = None
    """The leaf the compaction entry was chained to (jsonl)."""
    offset: int | None = None
    """Byte offset of the appended lines (jsonl)."""
    bytes_written: int = 0
    replanned: bool = False
    archive: ArchiveWrite | None = None
    gateway_response: Mapping[str, Any] | None = None
    gateway: GatewayOutcome | None = None
    """What the gateway did, and how that was learned (gateway)."""
    warnings: tuple[str, ...] = ()


def _audit(state_dir: Path, plan: CompactionPlan, result: str, error: str | None = None, **extra: Any) -> None:
    params = {
        "layer": plan.layer,
        "focus": plan.focus,
        "controller": plan.controller,
        "keep_recent": plan.keep_recent_tokens,
        "automatic": plan.automatic,
        "path": str(plan.path),
    }
    record_action(state_dir, plan.action, plan.session_key, params=params, plan={**plan.audit_summary(), **extra},
                  result=result, error=error)


def apply_compaction(
    plan: CompactionPlan,
    *,
    follower: SessionFollower | None = None,
    config: Config | None = None,
    state_dir: Path | None = None,
    lock_timeout: float = 10.0,
    openclaw: str = "openclaw",
    gateway_timeout: float = DEFAULT_GATEWAY_TIMEOUT_S,
) -> CompactionResult:
    """Apply ``plan`` with its controller and audit the outcome.

    Args:
        follower: the follower the plan's snapshot came from; refreshed (incrementally) if the leaf moved.
        lock_timeout: seconds to wait for a live holder of the session lock before giving up.
        openclaw: the ``openclaw`` executable for the gateway controller (found on ``PATH``).
        gateway_timeout: seconds the gateway may take to compact (passed to ``openclaw gateway call --timeout``).

    Raises:
        CompactionRefusedError: the plan (or the re-plan after the leaf moved) is blocked; nothing written.
        GatewayError: the gateway call failed and the store shows no compaction.
        NotCompactedError: the gateway did not compact (its reason is in the error).
        engine.fs.session_lock.LockHeldError: a live process held the lock for ``lock_timeout`` seconds.
        engine.fs.jsonl_append.AppendError: the append failed.
    """
    config = config or Config()
    state_dir = state_dir or resolve_state_dir(plan.source.state_dir, config)
    if plan.blocked:
        _audit(state_dir, plan, "refused", "; ".join(plan.blocked))
        raise CompactionRefusedError("; ".join(plan.blocked))
    if plan.controller == "gateway":
        return _apply_gateway(plan, state_dir, openclaw, gateway_timeout)
    if plan.controller != "jsonl":
        _audit(state_dir, plan, "refused", f"controller {plan.controller!r} cannot write")
        raise CompactionRefusedError(f"{plan.session_key}: no controller can write this session")
    return _apply_jsonl(plan, follower, config, state_dir, lock_timeout)


def _apply_jsonl(
    plan: CompactionPlan, follower: SessionFollower | None, config: Config, state_dir: Path, lock_timeout: float
) -> CompactionResult:
    final: list[CompactionPlan] = [plan]
    archived: list[ArchiveWrite] = []

    def build(leaf_id: str | None) -> Sequence[Mapping[str, Any]]:
        current = plan
        if leaf_id != plan.leaf_id and plan.summary_source != "deterministic":
            # An LLM summary cannot be recomputed silently under the lock: it would cost a call and differ.
            raise CompactionRefusedError(
                "the session changed since the LLM summary was written; run the compaction again"
            )
        if leaf_id != plan.leaf_id:
            # The agent appended (or branched) since planning: plan again from the path as it is now.
            nonlocal follower
            follower = follower or SessionFollower(plan.source, config)
            snapshot = follower.refresh()
            current = plan_compaction(
                snapshot, plan.layer, plan.focus, keep_recent=plan.keep_recent_tokens, config=config,
                load=follower.reader.read_object, state_dir=state_dir, controller="jsonl", automatic=plan.automatic,
                token_cache=follower.token_cache,
            )
            if current.blocked or current.leaf_id != leaf_id:
                reasons = current.blocked or (f"the leaf is {leaf_id}, the re-read path ends at {current.leaf_id}",)
                raise CompactionRefusedError("the session changed while compacting: " + "; ".join(reasons))
            final[0] = current
        if current.archive is not None:
            archived.append(append_archive_record(current.archive.path, current.archive.record()))
            record_action(state_dir, "archive", plan.session_key,
                          params={"path": str(current.archive.path), "record_id": current.archive.record_id},
                          plan={"messages": len(current.archive.messages), "bytes": archived[0].length,
                                "offset": archived[0].offset})
        return current.entries()

    try:
        appended = append_entries(plan.path, build, lock_timeout=lock_timeout)
    except CompactionRefusedError as exc:
        _audit(state_dir, final[0], "refused", str(exc))
        raise
    except Exception as exc:
        _audit(state_dir, final[0], "failed", str(exc), archive_written=bool(archived))
        raise
    applied = final[0]
    warnings = (appended.agent_active_warning,) if appended.agent_active_warning else ()
    _audit(state_dir, applied, "ok", entry_ids=list(appended.entry_ids), parent_id=appended.parent_id,
           offset=appended.offset, bytes=appended.bytes_written, replanned=applied is not plan,
           agent_active_warning=appended.agent_active_warning)
    return CompactionResult(
        plan=applied,
        controller="jsonl",
        entry_ids=appended.entry_ids,
        parent_id=appended.parent_id,
        offset=appended.offset,
        bytes_written=appended.bytes_written,
        replanned=applied is not plan,
        archive=archived[0] if archived else None,
        warnings=warnings,
    )


def _apply_gateway(plan: CompactionPlan, state_dir: Path, openclaw: str, timeout: float) -> CompactionResult:
    method = "chat.send" if plan.focus else "sessions.compact"
    outcome = call_gateway(plan, openclaw=openclaw, timeout_s=timeout)
    facts: dict[str, Any] = {
        "method": method, "response": outcome.answer, "verified_by": outcome.verified_by,
        "compaction_id": outcome.compaction_id, "tokens_before": outcome.tokens_before,
        "tokens_after": outcome.tokens_after, "store_compaction_count": outcome.store_compaction_count,
        "note": outcome.note,
    }
    if outcome.compacted:
        _audit(state_dir, plan, "ok", **facts)
        return CompactionResult(plan=plan, controller="gateway", gateway_response=outcome.answer,
                                gateway=outcome, warnings=(outcome.note,) if outcome.note else ())
    if outcome.failed:
        _audit(state_dir, plan, "failed", outcome.reason, **facts)
        raise GatewayError(outcome.reason or f"openclaw gateway call {method} failed")
    _audit(state_dir, plan, "not-compacted", outcome.reason, **facts)
    raise NotCompactedError(outcome.reason or "no reason given", outcome)
