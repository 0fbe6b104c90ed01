"""``ctxscope compact`` through OpenClaw 2026.9.6's gateway: it reports what OpenClaw's store shows happened."""

from __future__ import annotations

import pytest

from tests.realagents.openclaw import ctxscope_side as cs
from tests.realagents.openclaw.harness import OpenClawHome
from tests.realagents.openclaw.responder import OpenClawResponder
from tests.realagents.openclaw.store import read_store

pytestmark = pytest.mark.realagents

SLOW_SUMMARY_S = 15.0


def _count(oc: OpenClawHome, key: str) -> int:
    store = read_store(oc.agent_dir)
    return len(store.compactions(key)) if key in store.sessions else 0


def _last_audit(oc: OpenClawHome, key: str) -> dict[str, object]:
    records = [r for r in cs.audit_records(oc.state_dir) if r.get("session_key") == key]
    assert records, f"no audit record for {key}"
    return records[-1]


def test_a_slow_gateway_compaction_reports_success_exactly_when_the_count_rises(
    oc: OpenClawHome, fresh_responder: OpenClawResponder
) -> None:
    key = "agent:main:slow"
    oc.agent(key, "slow turn 1")
    oc.agent(key, "slow turn 2")
    fresh_responder.summary_delay_s = SLOW_SUMMARY_S
    # The default timeout is generous: the 15 s summary is waited for.
    before = _count(oc, key)
    out = cs.compact(oc.env, key)
    after = _count(oc, key)
    assert after == before + 1, out.describe()
    assert out.returncode == 0, out.describe()
    gateway = out.json()["result"]["gateway"]
    assert gateway["compacted"] is True and gateway["verified_by"] == "answer"
    assert gateway["tokens_after"] == read_store(oc.agent_dir).compactions(key)[-1]["tokensAfter"]
    assert _last_audit(oc, key)["result"] == "ok"

    # A timeout shorter than the summary: the gateway's answer is late, the store still shows the compaction.
    oc.agent(key, "slow turn 3")
    before = _count(oc, key)
    out = cs.compact(oc.env, key, "--timeout", "5")
    after = _count(oc, key)
    assert (out.returncode == 0) == (after == before + 1), out.describe()
    assert after == before + 1, out.describe()
    gateway = out.json()["result"]["gateway"]
    assert gateway["verified_by"] == "store" and gateway["compaction_id"] == read_store(oc.agent_dir).compactions(
        key)[-1]["id"]
    assert _last_audit(oc, key)["result"] == "ok"


def test_compacted_false_is_reported_as_not_compacted(oc: OpenClawHome) -> None:
    key = "agent:main:twice"
    oc.agent(key, "twice turn 1")
    oc.agent(key, "twice turn 2")
    assert oc.call("sessions.compact", {"key": key}).get("compacted") is True
    before = _count(oc, key)
    out = cs.compact(oc.env, key)
    assert _count(oc, key) == before
    assert out.returncode == 4, out.describe()
    assert "not compacted: " in out.stderr, out.describe()
    gateway = out.json()["result"]["gateway"]
    assert gateway["compacted"] is False and gateway["reason"]
    assert _last_audit(oc, key)["result"] == "not-compacted"


def test_a_focus_compaction_reports_its_outcome_from_the_store(oc: OpenClawHome) -> None:
    key = "agent:main:focus"
    oc.agent(key, "focus turn 1: the deploy key is id_ed25519_prod")
    oc.agent(key, "focus turn 2")
    before = _count(oc, key)
    out = cs.compact(oc.env, key, "--focus", "keep the deploy key name")
    store = read_store(oc.agent_dir)
    assert out.returncode == 0, out.describe()
    assert len(store.compactions(key)) == before + 1
    gateway = out.json()["result"]["gateway"]
    last = store.compactions(key)[-1]
    assert gateway["compacted"] is True and gateway["compaction_id"] == last["id"]
    assert gateway["tokens_after"] == last["tokensAfter"]
    # The /compact message and the gateway's zero-usage reply come after the compaction: known, never 0.
    row = cs.status_row(oc.env, key)
    assert row["context_tokens"] is not None and row["context_tokens"] >= last["tokensAfter"] > 0, row


def test_the_preview_of_a_gateway_session_shows_openclaws_figures(oc: OpenClawHome) -> None:
    key = "agent:main:preview"
    oc.agent(key, "preview turn 1")
    entry = read_store(oc.agent_dir).row(key).entry
    out = cs.compact(oc.env, key, "--dry-run")
    assert out.returncode == 0, out.describe()
    plan = out.json()["plan"]
    budget = entry["contextBudgetStatus"]
    assert plan["controller"] == "gateway" and not plan["blocked"], plan["blocked"]
    assert plan["openclaw_budget"]["estimatedPromptTokens"] == budget["estimatedPromptTokens"]
    assert plan["openclaw_budget"]["promptBudgetBeforeReserve"] == budget["promptBudgetBeforeReserve"]
    assert plan["archive"] is None
    human = cs.ctxscope("compact", key, "--dry-run", env=oc.env)
    assert "OpenClaw chooses the cut and writes the summary" in human.stdout, human.describe()
    assert f"{budget['estimatedPromptTokens']:,}" in human.stdout
    refused = cs.compact(oc.env, key, "--layer", "drop-only", "--dry-run")
    assert refused.returncode == 4 and "only summarizes" in refused.stderr, refused.describe()
