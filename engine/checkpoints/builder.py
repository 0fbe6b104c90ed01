"""A checkpoint from a session snapshot and the captured state, no LLM (docs/checkpoints.md, Building a checkpoint).

A new checkpoint carries the previous one forward: its decisions, open items, learnings and resources are
merged with what was captured since (semantic dedup, caps), so the latest checkpoint is always complete even
though the state files start over after each checkpoint.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from engine.capture.dedup import is_semantic_duplicate
from engine.capture.state import MAX_DECISIONS, MAX_FILES, MAX_LEARNINGS, MAX_OPEN_ITEMS, MAX_TOOLS, CapturedState
from engine.capture.thread import extract_thread
from engine.checkpoints.model import (
    Checkpoint,
    CheckpointMeta,
    Decision,
    Exchange,
    Resources,
    Thread,
    TokenUsage,
    ToolCallSummary,
    WorkingState,
)
from engine.session.snapshot import SessionSnapshot
from engine.stores.entries import Entry

__all__ = ["build_checkpoint", "checkpoint_tokens", "session_status"]


def checkpoint_tokens(snapshot: SessionSnapshot) -> int:
    """The ``token_usage.input_tokens`` to record: the measured context, else pi's estimate (after compaction)."""
    tokens = snapshot.tokens.tokens
    if tokens is None:
        tokens = snapshot.tokens.agent_estimate
    if tokens is None:  # pi's figure is NaN as well (a usage record lacks fields): chars/4 of the whole context
        tokens = sum(m.entry.pi_tokens for m in snapshot.view.messages)
    return tokens


def session_status(snapshot: SessionSnapshot, open_items: tuple[str, ...]) -> str:
    """``in_progress`` (the agent is mid-turn), ``waiting_for_user`` (it asked something) or ``idle``."""
    messages = snapshot.view.messages
    if not messages:
        return "idle"
    last = messages[-1]
    if last.role in ("toolResult", "user", "bashExecution") or (last.role == "assistant" and last.entry.tool_calls):
        return "in_progress"
    if last.role == "assistant" and any(item.endswith("?") for item in open_items[-3:]):
        return "waiting_for_user"
    return "idle"


def _merge(previous: tuple[str, ...], new: tuple[str, ...], cap: int, *, semantic: bool = True) -> tuple[str, ...]:
    kept = list(previous)
    for item in new:
        if not item:
            continue
        if semantic and any(is_semantic_duplicate(item, k) for k in kept):
            continue
        if not semantic and item in kept:
            continue
        kept.append(item)
    return tuple(kept[-cap:])


def _channel(store: Mapping[str, Any]) -> str | None:
    delivery = store.get("deliveryContext")
    if isinstance(delivery, Mapping) and isinstance(delivery.get("channel"), str):
        return str(delivery["channel"])
    last = store.get("lastChannel")
    return last if isinstance(last, str) else None


def build_checkpoint(
    snapshot: SessionSnapshot,
    state: CapturedState,
    load: Callable[[Entry], Mapping[str, Any]],
    *,
    trigger: str,
    previous: Checkpoint | None = None,
    now: datetime | None = None,
    interrupted: bool = False,
) -> Checkpoint:
    """The checkpoint for ``snapshot`` (its id and ``previous_checkpoint`` are assigned by the store).

    Args:
        load: re-reads an entry's JSON (the follower's ``objects.read_object``), for thread extraction.
        interrupted: the checkpoint is written for a compaction that splits a turn.
    """
    when = (now or datetime.now(UTC)).isoformat(timespec="seconds").replace("+00:00", "Z")
    thread = extract_thread(snapshot.view.messages, load)
    window = snapshot.window.tokens
    tokens = checkpoint_tokens(snapshot)
    store = snapshot.source.store_entry or {}

    decisions: list[Decision] = list(previous.decisions) if previous else []
    for captured in state.decisions:
        if not any(is_semantic_duplicate(captured.what, d.what) for d in decisions):
            decisions.append(Decision(id="", what=captured.what, when=captured.when or when))
    decisions = decisions[-MAX_DECISIONS:]
    numbered = tuple(Decision(id=f"d{i}", what=d.what, when=d.when) for i, d in enumerate(decisions, start=1))

    prior_resources = previous.resources if previous else Resources()
    # An item the conversation closed since the previous checkpoint never comes back as open (docs/capture.md).
    carried = tuple(item for item in (previous.open_items if previous else ())
                    if not any(item == done or is_semantic_duplicate(item, done) for done in state.done_items))
    open_items = _merge(carried, state.open_items, MAX_OPEN_ITEMS)
    learnings = _merge(previous.learnings if previous else (), state.learnings, MAX_LEARNINGS)
    last_tool = (
        ToolCallSummary(state.last_tool_call.name, state.last_tool_call.params_summary)
        if state.last_tool_call
        else (previous.working.last_tool_call if previous else None)
    )
    next_action = open_items[-1] if open_items else (thread.last_user or "")
    return Checkpoint(
        meta=CheckpointMeta(
            checkpoint_id="cp_000",
            session_key=snapshot.key,
            session_file=os.path.abspath(snapshot.source.path),  # resolvable from any directory (checkpoints.md)
            created_at=when,
            trigger=trigger,
            compaction_count=snapshot.compactions,
            token_usage=TokenUsage(
                input_tokens=tokens, context_window=window, utilization=round(tokens / window, 4) if window else 0.0
            ),
            previous_checkpoint=None,
            channel=_channel(store),
            agent_id=snapshot.source.agent_id,
        ),
        working=WorkingState(
            topic=thread.last_user or (previous.working.topic if previous else ""),
            status=session_status(snapshot, open_items),
            interrupted=interrupted,
            last_tool_call=last_tool,
            next_action=next_action,
        ),
        decisions=numbered,
        resources=Resources(
            files_read=_merge(prior_resources.files_read, state.files_read, MAX_FILES, semantic=False),
            files_modified=_merge(prior_resources.files_modified, state.files_modified, MAX_FILES, semantic=False),
            tools_used=_merge(prior_resources.tools_used, state.tools_used, MAX_TOOLS, semantic=False),
        ),
        thread=Thread(
            summary=thread.summary,
            key_exchanges=tuple(Exchange(role=e.role, gist=e.gist) for e in thread.key_exchanges),
        ),
        open_items=open_items,
        learnings=learnings,
    )
