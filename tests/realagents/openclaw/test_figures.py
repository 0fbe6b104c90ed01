"""Window, tokens, budget and compaction count: ctxscope's status against OpenClaw 2026.9.6's own store."""

from __future__ import annotations

import pytest

from tests.realagents.openclaw import ctxscope_side as cs
from tests.realagents.openclaw.harness import OpenClawHome
from tests.realagents.openclaw.store import read_store

pytestmark = pytest.mark.realagents

KEY = "agent:main:figures"
COMPACTIONS = 3


def _turns(oc: OpenClawHome, n: int, tag: str) -> None:
    for i in range(n):
        oc.agent(KEY, f"{tag} turn {i}: tell me about the weather")


def test_window_budget_and_tokens_equal_openclaws_store(oc: OpenClawHome) -> None:
    _turns(oc, 3, "figures")
    store = read_store(oc.agent_dir)
    entry = store.row(KEY).entry
    row = cs.status_row(oc.env, KEY)
    budget = entry["contextBudgetStatus"]

    assert row["format"] == "openclaw-sqlite"
    assert row["session_id"] == store.row(KEY).session_id
    # The window: the store's contextTokens, which OpenClaw's own listing and its budget use.
    assert row["context_window"] == entry["contextTokens"] == budget["contextTokenBudget"]
    assert row["context_window"] == oc.session_row(KEY)["contextTokens"]
    # The compaction line: OpenClaw's prompt budget before the reserve.
    assert row["compaction_threshold_tokens"] == budget["promptBudgetBeforeReserve"]
    assert budget["promptBudgetBeforeReserve"] == entry["contextTokens"] - budget["reserveTokens"]
    # Tokens: what OpenClaw itself records as the context size when it compacts next (tokensBefore).
    before = row["context_tokens"]
    answer = oc.call("sessions.compact", {"key": KEY})
    assert answer.get("ok") is True and answer.get("compacted") is True, answer
    compaction = read_store(oc.agent_dir).compactions(KEY)[-1]
    assert before == compaction["tokensBefore"], (before, compaction)


def test_compaction_count_equals_the_store_through_several_compactions(oc: OpenClawHome) -> None:
    key = "agent:main:counts"
    for i in range(COMPACTIONS):
        oc.agent(key, f"count turn {i}a")
        oc.agent(key, f"count turn {i}b")
        answer = oc.call("sessions.compact", {"key": key})
        assert answer.get("compacted") is True, answer
        store = read_store(oc.agent_dir)
        entry = store.row(key).entry
        row = cs.status_row(oc.env, key)
        assert entry["compactionCount"] == i + 1
        assert row["compactions"] == entry["compactionCount"] == len(store.compactions(key))
        assert row["store_compaction_count"] == entry["compactionCount"]


def test_tokens_after_a_compaction_are_openclaws_tokens_after(oc: OpenClawHome) -> None:
    key = "agent:main:after"
    oc.agent(key, "after turn 1")
    oc.agent(key, "after turn 2")
    answer = oc.call("sessions.compact", {"key": key})
    assert answer.get("compacted") is True, answer
    store = read_store(oc.agent_dir)
    entry = store.row(key).entry
    compaction = store.compactions(key)[-1]
    assert entry["totalTokens"] == compaction["tokensAfter"] and entry["totalTokensFresh"] is True
    row = cs.status_row(oc.env, key)
    assert row["context_tokens"] == compaction["tokensAfter"], row
    assert row["context_tokens_source"] == "tokens-after"
