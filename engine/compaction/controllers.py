"""Applying a compaction plan to a real session (SPEC §6.5): the ``jsonl``, ``gateway`` and ``none`` controllers.

* ``jsonl`` appends, under OpenClaw's lock and in ONE write, the ``compaction`` entry and — when the session has a
  checkpoint — a ``custom_message`` carrying it (:func:`engine.fs.jsonl_append.append_entries` re-reads the leaf
  under the lock). If the agent moved the leaf since planning, the plan is recomputed from the new path under the
  lock, so the cut is always on the path the entry is chained to. Drop-only writes its memory archive record
  under the same lock, just before the append.
* ``gateway`` runs ``openclaw gateway call sessions.compact --params '{"key": …}' --json`` (never ``maxLines``,
  which truncates) or, with a focus, ``chat.send`` with ``/compact <focus>``, and reports the gateway's answer.
* ``none`` refuses.

Every outcome that touches a file is recorded in the audit log (§6.8): ``compact``/``prune`` and ``archive``.

Exceptions::

    CompactionError               applying failed (the message says why)
     ├── CompactionRefusedError   the plan may not be applied; nothing was written
     └── GatewayError             the openclaw command failed or answered nonsense
    engine.fs.session_lock.LockHeldError and engine.fs.jsonl_append.AppendError propagate unchanged.
"""

from __future__ import annotations

import json
import subprocess
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.compaction.archive import ArchiveWrite, append_archive_record
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
    "apply_compaction",
    "gateway_argv",
]


class CompactionError(Exception):
    """Applying a compaction failed."""


class CompactionRefusedError(CompactionError):
    """The plan may not be applied (see its ``blocked`` reasons); nothing was written."""


class GatewayError(CompactionError):
    """The ``openclaw gateway call`` failed or its answer could not be read."""


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
    warnings: tuple[str, ...] = ()


def gateway_argv(plan: CompactionPlan, openclaw: str = "openclaw") -> list[str]:
    """The ``openclaw gateway call`` command for ``plan`` (``sessions.compact``, or ``chat.send`` with a focus)."""
    if plan.focus:
        method = "chat.send"
        params: dict[str, Any] = {
            "sessionKey": plan.session_key,
            "message": f"/compact {plan.focus}",
            "idempotencyKey": f"ctxscope-{uuid.uuid4()}",
        }
    else:
        # Never maxLines: with it the gateway truncates the file instead of compacting (FORMATS §3.8).
        method, params = "sessions.compact", {"key": plan.session_key}
    return [openclaw, "gateway", "call", method, "--params", json.dumps(params), "--json"]


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
    gateway_timeout: float = 900.0,
) -> CompactionResult:
    """Apply ``plan`` with its controller and audit the outcome.

    Args:
        follower: the follower the plan's snapshot came from; refreshed (incrementally) if the leaf moved.
        lock_timeout: seconds to wait for a live holder of the session lock before giving up.
        openclaw: the ``openclaw`` executable for the gateway controller (found on ``PATH``).

    Raises:
        CompactionRefusedError: the plan (or the re-plan after the leaf moved) is blocked; nothing written.
        GatewayError: the gateway call failed.
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
            # An LLM or hand-edited summary cannot be recomputed silently under the lock: it would differ.
            kind = "edited" if plan.summary_edited else "LLM"
            raise CompactionRefusedError(
                f"the session changed since the {kind} summary was written; run the compaction again"
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
    argv = gateway_argv(plan, openclaw)
    method = argv[3]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
                              check=False)
    except FileNotFoundError as exc:
        error = f"{openclaw!r} was not found on PATH; install OpenClaw's CLI or use --controller jsonl"
        _audit(state_dir, plan, "failed", error, method=method)
        raise GatewayError(error) from exc
    except subprocess.TimeoutExpired as exc:
        error = f"openclaw gateway call {method} did not answer within {timeout:g} s"
        _audit(state_dir, plan, "failed", error, method=method)
        raise GatewayError(error) from exc
    detail = (done.stderr.strip() or done.stdout.strip())[:2000]
    if done.returncode != 0:
        error = f"openclaw gateway call {method} failed (exit {done.returncode}): {detail or 'no output'}"
        _audit(state_dir, plan, "failed", error, method=method)
        raise GatewayError(error)
    try:
        answer = json.loads(done.stdout)
    except ValueError as exc:
        error = f"openclaw gateway call {method} answered something that is not JSON: {detail[:200]!r}"
        _audit(state_dir, plan, "failed", error, method=method)
        raise GatewayError(error) from exc
    if not isinstance(answer, dict):
        answer = {"result": answer}
    if answer.get("ok") is False:
        reason = answer.get("error") or answer.get("reason") or "no reason given"
        error = f"the gateway refused {method}: {reason}"
        _audit(state_dir, plan, "failed", error, method=method, response=answer)
        raise GatewayError(error)
    _audit(state_dir, plan, "ok", method=method, response=answer)
    return CompactionResult(plan=plan, controller="gateway", gateway_response=answer)
