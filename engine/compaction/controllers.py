"""Applying a compaction plan to a real session: the ``jsonl``, ``gateway`` and ``none`` controllers.

See docs/compaction.md, Controllers.

* ``jsonl`` appends, in ONE write, the ``compaction`` entry and — when the session has a checkpoint — a
  ``custom_message`` carrying it. Everything is prepared before OpenClaw's lock is taken: the leaf is read, the
  plan recomputed when the agent moved it (so the cut is always on the path the entry is chained to), the
  entries serialized, the drop-only archive record written. Under the lock only the re-check (same file, same
  size, same last bytes) and the write happen; if the file moved, nothing is written and a fresh attempt starts.
* ``gateway`` asks OpenClaw's gateway (:mod:`engine.compaction.openclaw_gateway`) and reports what really happened: the
  answer when it says yes or no, else the store (a late or missing answer, a ``/compact`` that was only started).
* ``none`` refuses.

Every outcome that touches a file is recorded in the audit log (docs/compaction.md, Audit): ``compact``/``prune``
and ``archive``.

Exceptions::

    CompactionError               applying failed (the message says why)
     ├── CompactionRefusedError   the plan may not be applied; nothing was written
     ├── NotCompactedError        the gateway answered that it did not compact (reason given)
     └── GatewayError             the openclaw command failed and the store shows no compaction
    engine.fs.session_lock.LockHeldError and engine.fs.jsonl_append.AppendError propagate unchanged.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.compaction.archive import ArchiveWrite, append_archive_record
from engine.compaction.openclaw_gateway import DEFAULT_GATEWAY_TIMEOUT_S, GatewayOutcome, call_gateway, gateway_argv
from engine.compaction.plan import CompactionPlan
from engine.compaction.planner import plan_compaction
from engine.config.loader import Config, resolve_state_dir
from engine.fs.audit import record_action
from engine.fs.jsonl_append import AppendMovedError, AppendRefusedError, commit_append, prepare_append_patiently
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
    exact: bool = False,
) -> CompactionResult:
    """Apply ``plan`` with its controller and audit the outcome.

    Args:
        follower: the follower the plan's snapshot came from; refreshed (incrementally) if the leaf moved.
        lock_timeout: seconds to wait for a live holder of the session lock before giving up.
        openclaw: the ``openclaw`` executable for the gateway controller (found on ``PATH``).
        gateway_timeout: seconds the gateway may take to compact (passed to ``openclaw gateway call --timeout``).
        exact: write exactly this plan or nothing: when the agent only appended on the planned branch, the plan is
            kept (its cut and summary; the new entries follow the cut); when it moved the leaf otherwise, refuse
            instead of planning again (the TUI's confirm button applies the plan on screen; its dialog re-plans).

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
    if plan.controller == "claude-code":
        return _apply_claude_code(plan, state_dir)
    if plan.controller == "codex":
        return _apply_codex(plan, state_dir)
    if plan.controller != "jsonl":
        _audit(state_dir, plan, "refused", f"controller {plan.controller!r} cannot write")
        raise CompactionRefusedError(f"{plan.session_key}: no controller can write this session")
    return _apply_jsonl(plan, follower, config, state_dir, lock_timeout, exact=exact)


def _apply_claude_code(plan: CompactionPlan, state_dir: Path) -> CompactionResult:
    """docs/claude-code.md, Resuming after another program's boundary."""
    from engine.compaction.claude_code_controller import claude_code_problem, write_claude_code_compaction

    problem = claude_code_problem(plan)
    if problem is not None:
        _audit(state_dir, plan, "refused", problem)
        raise CompactionRefusedError(problem)
    try:
        done = write_claude_code_compaction(plan)
    except ValueError as exc:
        _audit(state_dir, plan, "refused", str(exc))
        raise CompactionRefusedError(str(exc)) from exc
    except OSError as exc:
        _audit(state_dir, plan, "failed", str(exc))
        raise
    _audit(state_dir, plan, "ok", entry_ids=list(done.ids), offset=done.offset, bytes=done.written)
    return CompactionResult(plan=plan, controller="claude-code", entry_ids=done.ids, parent_id=done.parent,
                            offset=done.offset, bytes_written=done.written)


def _apply_codex(plan: CompactionPlan, state_dir: Path) -> CompactionResult:
    """docs/codex.md, Compaction."""
    from engine.compaction.codex_controller import codex_problem, write_codex_compaction

    problem = codex_problem(plan)
    if problem is not None:
        _audit(state_dir, plan, "refused", problem)
        raise CompactionRefusedError(problem)
    try:
        offset, written = write_codex_compaction(plan)
    except ValueError as exc:
        _audit(state_dir, plan, "refused", str(exc))
        raise CompactionRefusedError(str(exc)) from exc
    except OSError as exc:
        _audit(state_dir, plan, "failed", str(exc))
        raise
    _audit(state_dir, plan, "ok", offset=offset, bytes=written)
    return CompactionResult(plan=plan, controller="codex", entry_ids=("compacted",), parent_id=plan.leaf_id,
                            offset=offset, bytes_written=written)


_ATTEMPTS = 5
"""Fresh reads of the leaf tried when the agent keeps appending between preparing and the locked re-check."""


class _LeafMoved(AppendMovedError):
    """The follower's re-read ended past the leaf the batch is being prepared for: read again."""


@dataclass(slots=True)
class _Attempt:
    """The plan the entries come from (re-planned when the leaf moved) and what happened on the way."""

    plan: CompactionPlan
    follower: SessionFollower | None
    replanned: bool = False
    extended: int = 0
    """Entries the agent appended on the planned branch after planning (kept verbatim after the cut)."""


def _extends(attempt: _Attempt, leaf_id: str | None, config: Config) -> bool:
    """Whether the agent only appended on the planned branch since planning (no branch, no compaction of its own).

    Then the plan stays right as it is: its cut and summary cover the same span, and everything appended since
    lies after the first kept entry, so it is kept verbatim when the compaction entry is chained to the new leaf.
    """
    plan = attempt.plan
    attempt.follower = attempt.follower or SessionFollower(plan.source, config)
    path = attempt.follower.refresh().view.path
    if not path or path[-1].id != leaf_id:
        raise _LeafMoved(f"the agent appended again while the batch was being prepared (leaf {leaf_id})")
    ids = [entry.id for entry in path]
    if plan.leaf_id not in ids or plan.first_kept_entry_id not in ids:
        return False
    after = path[ids.index(plan.leaf_id) + 1 :]
    if any(entry.type == "compaction" for entry in after):
        return False
    attempt.extended += len(after)
    return True


def _replan(attempt: _Attempt, original: CompactionPlan, leaf_id: str | None, config: Config,
            state_dir: Path, *, exact: bool = False) -> CompactionPlan:
    if exact:
        raise CompactionRefusedError(
            f"the agent wrote since this plan was shown (leaf {original.leaf_id} → {leaf_id}); review the new plan "
            "and confirm again")
    if original.summary_source != "deterministic":
        # An LLM or hand-edited summary cannot be recomputed silently under the lock: it would differ.
        kind = "edited" if original.summary_edited else "LLM"
        raise CompactionRefusedError(
            f"the session changed since the {kind} summary was written; run the compaction again")
    attempt.follower = attempt.follower or SessionFollower(original.source, config)
    snapshot = attempt.follower.refresh()
    current = plan_compaction(
        snapshot, original.layer, original.focus, keep_recent=original.keep_recent_tokens, config=config,
        load=attempt.follower.reader.read_object, state_dir=state_dir, controller="jsonl",
        automatic=original.automatic, token_cache=attempt.follower.token_cache, targets=original.targets or None,
    )
    if current.blocked:
        raise CompactionRefusedError("the session changed while compacting: " + "; ".join(current.blocked))
    if current.leaf_id != leaf_id:
        raise _LeafMoved(f"the leaf moved again while re-planning ({leaf_id} → {current.leaf_id})")
    attempt.plan, attempt.replanned = current, True
    return current


def _write_archive(plan: CompactionPlan, state_dir: Path, session_key: str) -> ArchiveWrite:
    assert plan.archive is not None
    write = append_archive_record(plan.archive.path, plan.archive.record(), workspace=plan.archive.workspace)
    record_action(state_dir, "archive", session_key,
                  params={"path": str(plan.archive.path), "record_id": plan.archive.record_id},
                  plan={"messages": len(plan.archive.messages), "bytes": write.length, "offset": write.offset})
    return write


def _apply_jsonl(
    plan: CompactionPlan, follower: SessionFollower | None, config: Config, state_dir: Path, lock_timeout: float,
    *, exact: bool = False,
) -> CompactionResult:
    """Apply with the ``jsonl`` controller, holding OpenClaw's lock only for a re-check and one write.

    Before the lock: read the leaf, re-plan when the agent moved it, build and serialize the entries, write
    and fsync the drop-only archive record. Under the lock (:func:`engine.fs.jsonl_append.commit_append`) the
    file must be exactly as it was read, or nothing is written and a fresh attempt starts — at most
    :data:`_ATTEMPTS`, within ``lock_timeout`` seconds; then the compaction is refused.
    """
    attempt = _Attempt(plan, follower)
    archived: list[ArchiveWrite] = []
    records: set[str] = set()
    moves: list[str] = []
    deadline = time.monotonic() + lock_timeout

    def build(leaf_id: str | None) -> Sequence[Mapping[str, Any]]:
        # The first time the leaf moved, plan again (the protected budget then counts from the new leaf); after
        # a re-check found the file moved, keep the plan when the agent only appended on its branch, so a
        # busy agent cannot starve the compaction.
        # An exact plan (the one a user confirmed) is kept whenever the agent only appended on its branch: its cut
        # and summary are the ones shown, and the new entries follow the cut verbatim (said in the warnings).
        current = attempt.plan
        if leaf_id != current.leaf_id and not ((moves or exact) and _extends(attempt, leaf_id, config)):
            current = _replan(attempt, plan, leaf_id, config, state_dir, exact=exact)
        return current.entries()

    appended = None
    try:
        for _ in range(_ATTEMPTS):
            try:
                prepared = prepare_append_patiently(plan.path, build, deadline=deadline)
                current = attempt.plan
                if current.archive is not None and current.archive.record_id not in records:
                    archived.append(_write_archive(current, state_dir, plan.session_key))
                    records.add(current.archive.record_id)
                appended = commit_append(prepared, lock_timeout=max(0.05, deadline - time.monotonic()))
                break
            except AppendMovedError as exc:
                moves.append(str(exc))
                if time.monotonic() >= deadline:
                    break
        if appended is None:
            raise CompactionRefusedError(
                f"the session kept changing while compacting ({len(moves)} attempt(s); last: {moves[-1]}); "
                "nothing was written to the transcript. Run it again when the agent is idle."
            )
    except (CompactionRefusedError, AppendRefusedError) as exc:
        _audit(state_dir, attempt.plan, "refused", str(exc), archive_written=bool(archived), attempts=len(moves) + 1)
        raise
    except Exception as exc:
        _audit(state_dir, attempt.plan, "failed", str(exc), archive_written=bool(archived))
        raise
    applied = attempt.plan
    warnings = tuple(w for w in (appended.agent_active_warning,) if w)
    if attempt.extended or appended.parent_id != applied.leaf_id:
        warnings += (f"the agent appended entries after planning (now ending at {appended.parent_id}); they follow "
                     "the cut and are kept verbatim, so the context is that much larger than planned",)
    if moves:
        warnings += (f"the agent wrote while compacting: {len(moves)} attempt(s) found the file changed and wrote "
                     "nothing; the last one was applied",)
    _audit(state_dir, applied, "ok", entry_ids=list(appended.entry_ids), parent_id=appended.parent_id,
           offset=appended.offset, bytes=appended.bytes_written, replanned=attempt.replanned,
           agent_active_warning=appended.agent_active_warning, attempts=len(moves) + 1, extended=attempt.extended,
           lock_held_ms=round(appended.lock_held_seconds * 1000, 2))
    return CompactionResult(
        plan=applied,
        controller="jsonl",
        entry_ids=appended.entry_ids,
        parent_id=appended.parent_id,
        offset=appended.offset,
        bytes_written=appended.bytes_written,
        replanned=attempt.replanned,
        archive=archived[-1] if archived else None,
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
