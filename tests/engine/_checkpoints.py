"""Realistic checkpoints for tests: a full coding session, a huge one, and a minimal one."""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import strategies as st

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


def sample_checkpoint(**meta_changes: Any) -> Checkpoint:
    """A full but ordinary checkpoint of a coding session at 81% (what the renderer must fit in ~700 tokens)."""
    meta = CheckpointMeta(
        checkpoint_id="cp_003",
        session_key="agent:main:telegram:user123",
        session_file="sessions/76cc5ab5-0425-4038-b41f-0af9f313d594.jsonl",
        created_at="2026-02-24T15:30:00Z",
        trigger="auto-80pct",
        compaction_count=2,
        token_usage=TokenUsage(input_tokens=162_431, context_window=200_000, utilization=0.81),
        previous_checkpoint="cp_002",
        channel="telegram",
        agent_id="main",
    )
    return Checkpoint(
        meta=dataclasses.replace(meta, **meta_changes),
        working=WorkingState(
            topic="Migrate the billing service from the legacy REST client to the new async SDK",
            status="in_progress",
            interrupted=False,
            last_tool_call=ToolCallSummary("edit", "path=src/billing/client.py (replace retry loop)"),
            next_action="Run the integration tests against the sandbox and fix the timeout in refund()",
        ),
        decisions=(
            Decision("d1", "Use httpx.AsyncClient with a shared connection pool per worker", "2026-02-24T14:05:00Z"),
            Decision("d2", "Keep the old client behind a feature flag until the March release", "2026-02-24T14:12:00Z"),
            Decision(
                "d3", "Retry only idempotent calls: GET, and POST with an Idempotency-Key", "2026-02-24T14:31:00Z"
            ),
            Decision(
                "d4", "Store amounts as integer cents everywhere; drop the Decimal wrapper", "2026-02-24T14:48:00Z"
            ),
            Decision("d5", "Webhook signature check moves into middleware, not each handler", "2026-02-24T15:02:00Z"),
            Decision("d6", "Timeouts: 5 s connect, 30 s read; refunds get 60 s", "2026-02-24T15:20:00Z"),
        ),
        resources=Resources(
            files_read=(
                "src/billing/client.py",
                "src/billing/models.py",
                "src/billing/webhooks.py",
                "tests/billing/test_client.py",
                "docs/adr/0012-async-sdk.md",
                "pyproject.toml",
            ),
            files_modified=(
                "src/billing/client.py",
                "src/billing/retry.py",
                "src/billing/middleware.py",
                "tests/billing/test_retry.py",
            ),
            tools_used=("read", "edit", "write", "bash", "grep", "web_search"),
        ),
        thread=Thread(
            summary=(
                "Port billing to the async SDK and keep the old client behind a flag ... "
                "ok, now run the integration tests and look at the refund timeout"
            ),
            key_exchanges=(
                Exchange("user", "Port billing to the async SDK and keep the old client behind a flag"),
                Exchange("agent", "Plan: 1) shared AsyncClient 2) retry policy for idempotent calls 3) middleware"),
                Exchange("user", "Go with integer cents, the Decimal wrapper has bitten us twice"),
                Exchange("agent", "Refactored models to cents; 41 tests pass, 2 refund tests time out in sandbox"),
                Exchange("user", "ok, now run the integration tests and look at the refund timeout"),
            ),
        ),
        open_items=(
            "Refund integration tests time out against the sandbox (60 s limit?)",
            "Confirm with finance that cents rounding matches the ledger export",
            "Remove the feature flag after the March release",
        ),
        learnings=(
            "The sandbox rate-limits at 25 req/s; run integration tests with -n 4 at most",
            "User prefers small commits with the ADR number in the message",
        ),
    )


def large_checkpoint() -> Checkpoint:
    """A checkpoint at the capture caps (50 decisions, 100 files, 100 tools, 8 exchanges) and beyond."""
    base = sample_checkpoint()
    decisions = tuple(
        Decision(
            f"d{i}",
            f"Decision {i}: route payment type {i} through the v2 gateway with retries",
            f"2026-02-24T1{i % 10}:00:00Z",
        )
        for i in range(50)
    )
    return dataclasses.replace(
        base,
        meta=dataclasses.replace(base.meta, compaction_count=4),
        working=dataclasses.replace(base.working, topic="Very long topic " * 40),
        decisions=decisions,
        resources=Resources(
            files_read=tuple(f"src/payments/gateway_{i:03d}.py" for i in range(100)),
            files_modified=tuple(f"src/payments/handler_{i:03d}.py" for i in range(100)),
            tools_used=tuple(f"tool_{i}" for i in range(100)),
        ),
        thread=Thread(
            summary="x" * 400,
            key_exchanges=tuple(
                Exchange("user" if i % 2 == 0 else "agent", f"exchange {i} " + "y" * 120) for i in range(8)
            ),
        ),
        open_items=tuple(f"Open item {i}: reconcile the ledger for region {i}" for i in range(30)),
        learnings=tuple(f"Learning {i}: the gateway {i} needs a warm-up call" for i in range(20)),
    )


def minimal_checkpoint() -> Checkpoint:
    """The smallest valid checkpoint: only meta and working state."""
    return Checkpoint(
        meta=CheckpointMeta(
            checkpoint_id="cp_001",
            session_key="s",
            session_file="",
            created_at="2026-01-01T00:00:00Z",
            trigger="manual",
            compaction_count=0,
            token_usage=TokenUsage(0, 200_000, 0.0),
        ),
        working=WorkingState(topic="", status="idle"),
    )


# Pieces YAML treats specially, mixed into generated text so the round-trip property meets them often.
# fmt: off
YAML_HAZARDS = (
    "\n", "\r", "\r\n", "\x85", "\u2028", "\u2029", "\ufeff", "\x00", "\t", " ", "  ", "\n ", " \n", "\n\n",
    "#", "# c", "- ", "-", ": ", ":", "|", "|-", ">", "'", '"', "---", "...", "&a", "*a", "!tag", "!!str",
    "%YAML", "@", "`", "{", "}", "[", "]", ",", "?", "yes", "no", "on", "null", "~", "true", "1e3", "0x1F",
    "0o17", ".inf", ".nan", "2026-01-01", "12:30:00", "\\", "\\n", "\ud800", "\udc00", "\ud83d\ude00", "😀",
    "é", "\u200b", "\x1b[31m", "\x7f", "\x9f", "\U0010ffff", "\uffff", "\ufffe", "\ue000", "<checkpoint-data>",
)
# fmt: on

any_text = st.one_of(
    st.text(st.characters(exclude_categories=())),
    st.lists(st.one_of(st.sampled_from(YAML_HAZARDS), st.text(max_size=3)), max_size=12).map("".join),
)
"""Any Unicode string, lone surrogates included, biased toward YAML's special cases."""

_texts = st.lists(any_text, max_size=4).map(tuple)
_times = st.sampled_from(["2026-02-24T15:30:00Z", "2026-02-24T15:30:00.123+02:00", "2025-12-31T23:59:59"])

checkpoints = st.builds(
    Checkpoint,
    meta=st.builds(
        CheckpointMeta,
        checkpoint_id=st.integers(1, 5000).map(lambda n: f"cp_{n:03d}"),
        session_key=any_text,
        session_file=any_text,
        created_at=_times,
        trigger=st.sampled_from(["auto-80pct", "auto-25pct", "turns", "pre-compaction-margin", "compaction", "manual"]),
        compaction_count=st.integers(0, 50),
        token_usage=st.builds(
            TokenUsage,
            st.integers(0, 2_000_000),
            st.integers(1, 2_000_000),
            st.floats(0, 10, allow_nan=False, allow_infinity=False),
        ),
        previous_checkpoint=st.none() | st.integers(1, 5000).map(lambda n: f"cp_{n:03d}"),
        channel=st.none() | any_text,
        agent_id=st.none() | any_text,
    ),
    working=st.builds(
        WorkingState,
        topic=any_text,
        status=st.sampled_from(["in_progress", "idle", "waiting_for_user"]),
        interrupted=st.booleans(),
        last_tool_call=st.none() | st.builds(ToolCallSummary, any_text, any_text),
        next_action=any_text,
    ),
    decisions=st.lists(st.builds(Decision, any_text, any_text, _times), max_size=3).map(tuple),
    resources=st.builds(Resources, _texts, _texts, _texts),
    thread=st.builds(
        Thread,
        any_text,
        st.lists(st.builds(Exchange, st.sampled_from(["user", "agent"]), any_text), max_size=3).map(tuple),
    ),
    open_items=_texts,
    learnings=_texts,
)
"""Valid checkpoints with arbitrary text in every string field that is not an id, time or enum."""
