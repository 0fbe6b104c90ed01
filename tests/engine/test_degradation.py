"""Degradation report, transcript symptoms and the compaction guard (docs/compaction.md) on real and built files."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from engine.agents.discovery import discover_sessions
from engine.checkpoints.model import Checkpoint, Decision
from engine.checkpoints.store import write_checkpoint
from engine.compaction.degradation import assess_degradation, check_guard, evaluate_degradation
from engine.session.snapshot import SessionSnapshot, snapshot_session
from tests.conftest import ENDS_ON_COMPACTION, MAIN_SESSION, V1_LEGACY
from tests.engine._checkpoints import sample_checkpoint
from tests.engine._compaction import coding_session, plan_for, snapshot_of
from tests.engine._transcripts import assistant, compaction, user, write


def _snapshot(path: Path) -> SessionSnapshot:
    return snapshot_session(discover_sessions([path]).sessions[0])


# --- evaluate_degradation -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "level", "loss"),
    [(0, "low", 0.0), (1, "low", 0.1), (2, "medium", 0.2), (3, "high", 0.3), (4, "high", 0.4),
     (5, "critical", 0.5), (9, "critical", 0.9), (40, "critical", 0.9)],
)
def test_levels_and_information_loss_follow_the_seed(count: int, level: str, loss: float) -> None:
    report = evaluate_degradation(count)
    assert (report.compaction_count, report.level, report.information_loss) == (count, level, loss)


def test_recommendations_follow_the_seed() -> None:
    assert evaluate_degradation(2).recommendation == "Context quality is healthy."
    high = evaluate_degradation(3).recommendation
    assert high.startswith("Session compacted 3 times. Quality may be degrading.")
    assert "fresh session" in high
    critical = evaluate_degradation(6).recommendation
    assert critical.startswith("CRITICAL: 6 compactions. Context quality significantly degraded.")
    assert "ctxscope checkpoint" in critical and "ctxscope inject" in critical


# --- symptoms on the real fixtures -------------------------------------------------------------------------------


def test_main_session_is_compaction_spam_with_fallback_summaries() -> None:
    snap = _snapshot(MAIN_SESSION)  # 32k window: three compactions in five minutes, each summarizing nothing
    assessed = assess_degradation(snap)
    assert assessed.report.compaction_count == 4  # sessions.json counts one more than the file holds
    assert assessed.report.level == "high"
    assert assessed.compaction_spam
    assert assessed.noop_compactions == ("ed33d899", "880b626e", "48392785")
    assert assessed.spam_detail is not None and "summarized nothing new" in assessed.spam_detail
    assert assessed.fallback_summaries == 3
    assert assessed.warnings[0].startswith("Compaction spam:")
    assert any("fallback summaries" in w for w in assessed.warnings)


def test_session_ending_on_compaction_estimates_the_post_compaction_context() -> None:
    snap = _snapshot(ENDS_ON_COMPACTION)
    assessed = assess_degradation(snap)
    assert snap.tokens.tokens is None  # no usage since: the stale figure is not reused
    assert assessed.post_compaction_tokens == sum(m.entry.pi_tokens for m in snap.view.messages)
    assert assessed.compaction_spam and assessed.fallback_summaries == 2
    assert assessed.report.level == "medium"


def test_healthy_session_has_no_warnings() -> None:
    assessed = assess_degradation(_snapshot(V1_LEGACY))
    assert assessed.report.level == "low"
    assert not assessed.compaction_spam and not assessed.over_line_after_compaction
    assert (assessed.fallback_summaries, assessed.lost_decisions_share, assessed.warnings) == (0, None, ())


# --- symptoms on built transcripts -------------------------------------------------------------------------------


def _compacted(tmp_path: Path, usage_after: int) -> SessionSnapshot:
    entries = [
        user("u1", None, "old question " * 50), assistant("a1", "u1", "old answer " * 50, 90_000),
        user("u2", "a1", "next"), assistant("a2", "u2", "done", 185_000),
        compaction("c1", "a2", "u2", before=185_000),
        user("u3", "c1", "go on"), assistant("a3", "u3", "ok", usage_after),
    ]
    return _snapshot(write(tmp_path / "s.jsonl", entries))


def test_context_already_over_the_line_after_compaction(tmp_path: Path) -> None:
    snap = _compacted(tmp_path, 190_000)  # Sonnet, pi: line = 200,000 − 16,384 = 183,616
    assessed = assess_degradation(snap)
    assert snap.gauge.compaction_line == 183_616
    assert assessed.over_line_after_compaction and assessed.post_compaction_tokens == 190_000
    assert any("already above the agent's compaction line" in w for w in assessed.warnings)
    assert not assessed.compaction_spam and assessed.noop_compactions == ()


def test_context_under_the_line_after_compaction(tmp_path: Path) -> None:
    assessed = assess_degradation(_compacted(tmp_path, 60_000))
    assert not assessed.over_line_after_compaction and assessed.warnings == ()


def test_single_compaction_that_summarizes_nothing_warns_but_is_not_spam(tmp_path: Path) -> None:
    entries = [
        user("u1", None, "q"), assistant("a1", "u1", "a", 5_000),
        compaction("c1", "a1", "u1"),  # keeps everything from the first entry
        user("u2", "c1", "more"), assistant("a2", "u2", "b", 6_000),
    ]
    assessed = assess_degradation(_snapshot(write(tmp_path / "s.jsonl", entries)))
    assert assessed.noop_compactions == ("c1",) and not assessed.compaction_spam
    assert "Compaction c1 summarized nothing new." in assessed.warnings


def test_several_compactions_within_a_few_turns_are_spam(tmp_path: Path) -> None:
    # Each compaction summarizes something real, but they come two user messages apart.
    entries: list[dict[str, Any]] = []
    parent: str | None = None
    for n in range(1, 7):
        entries += [user(f"u{n}", parent, f"q{n}"), assistant(f"a{n}", f"u{n}", "x", 100)]
        parent = f"a{n}"
        if n % 2 == 0:
            entries.append(compaction(f"c{n // 2}", parent, f"u{n}"))
            parent = f"c{n // 2}"
    assessed = assess_degradation(_snapshot(write(tmp_path / "s.jsonl", entries)))
    assert assessed.noop_compactions == ()
    assert assessed.compaction_spam
    assert assessed.spam_detail == "3 compactions in a row with at most 2 user messages between them"


def test_compactions_far_apart_are_not_spam(tmp_path: Path) -> None:
    entries: list[dict[str, Any]] = []
    parent: str | None = None
    for block in range(3):  # four user turns between compactions, each compaction keeping only the last turn
        for turn in range(4):
            uid, aid = f"u{block}_{turn}", f"a{block}_{turn}"
            entries += [user(uid, parent, "q"), assistant(aid, uid, "x", 100)]
            parent = aid
        entries.append(compaction(f"c{block}", aid, f"u{block}_3"))
        parent = f"c{block}"
    assessed = assess_degradation(_snapshot(write(tmp_path / "s.jsonl", entries)))
    assert not assessed.compaction_spam and assessed.noop_compactions == ()


# --- decisions lost between checkpoints ----------------------------------------------------------------------------


def _with_decisions(cp_id: str, created: str, *decisions: str) -> Checkpoint:
    base = sample_checkpoint(checkpoint_id=cp_id, created_at=created)
    return dataclasses.replace(
        base, decisions=tuple(Decision(f"d{i}", what, created) for i, what in enumerate(decisions, 1))
    )


def test_share_of_earlier_decisions_missing_from_the_latest_checkpoint() -> None:
    earlier = sample_checkpoint(checkpoint_id="cp_002", created_at="2026-02-24T15:30:00Z")  # six decisions
    latest = _with_decisions(
        "cp_003", "2026-02-24T16:30:00Z",
        "Use an httpx AsyncClient with a shared pool per worker",  # d1 reworded
        "Old client stays behind a feature flag until March",  # d2 reworded
        "Retry only idempotent calls: GET, and POST with an Idempotency-Key",  # d3 verbatim
    )
    assessed = assess_degradation(_snapshot(V1_LEGACY), checkpoints=(latest, earlier))  # any order
    assert assessed.lost_decisions_share == pytest.approx(0.5)
    assert [d.split()[0] for d in assessed.lost_decisions] == ["Store", "Webhook", "Timeouts:"]
    assert any("50% of earlier checkpoints' decisions" in w for w in assessed.warnings)


def test_decisions_looked_for_in_the_summary_when_given() -> None:
    cp = sample_checkpoint()
    summary = (
        "## Decisions\n- Use httpx.AsyncClient with a shared connection pool per worker.\n"
        "- Timeouts: 5 s connect, 30 s read; refunds get 60 s\n## Open TODOs\n- run the sandbox tests\n"
    )
    assessed = assess_degradation(_snapshot(V1_LEGACY), checkpoints=(cp,), summary_text=summary)
    assert assessed.lost_decisions_share == pytest.approx(4 / 6)
    fallback = assess_degradation(
        _snapshot(V1_LEGACY), checkpoints=(cp,), summary_text="Summary unavailable due to context limits."
    )
    assert fallback.lost_decisions_share == 1.0


def test_a_decision_the_context_keeps_verbatim_is_not_missing_from_a_plan() -> None:
    cp = _with_decisions("cp_001", "2026-02-24T15:30:00Z", "Use a token bucket in Redis keyed per merchant",
                         "Limits are read from the merchant tier table")
    summary = "## Decisions\n- None.\n"
    kept = "assistant: I'll use a token bucket in Redis keyed per merchant, because it is shared by all pods."
    assessed = assess_degradation(_snapshot(V1_LEGACY), checkpoints=(cp,), summary_text=summary, kept_text=kept)
    assert assessed.lost_decisions == ("Limits are read from the merchant tier table",)
    assert "50% of earlier checkpoints' decisions are missing from this summary and the messages it keeps." in (
        assessed.warnings)


def test_a_plan_does_not_call_decisions_in_its_kept_messages_lost(tmp_path: Path) -> None:
    # The demo's compaction preview warned "100% of earlier checkpoints' decisions are missing from this summary"
    # while the decision sat in a message the plan keeps (and in the checkpoint message it appends).
    session = coding_session(tmp_path / "s.jsonl", turns=8)
    _, snapshot = snapshot_of(session)
    kept_turn = "turn 7: please fix services/app7.py, see https://tracker.example.com/T-7"
    write_checkpoint(tmp_path / "state", snapshot.key, _with_decisions("cp_001", "2026-03-01T10:00:00Z", kept_turn))
    _, plan = plan_for(session, "summarize", tmp_path / "state", keep_recent=3000)
    assert plan.applicable, plan.blocked
    assert "u7" in plan.kept_ids
    assert plan.assessment.degradation.lost_decisions_share == 0.0
    assert not [w for w in plan.warnings if "decisions are missing" in w]


def test_no_share_without_something_earlier_to_compare() -> None:
    snap = _snapshot(V1_LEGACY)
    assert assess_degradation(snap).lost_decisions_share is None
    assert assess_degradation(snap, checkpoints=(sample_checkpoint(),)).lost_decisions_share is None


# --- the guard ---------------------------------------------------------------------------------------------------


def test_automatic_compaction_refused_after_the_limit() -> None:
    report = evaluate_degradation(5)
    refused = check_guard(report, automatic=True, auto_compactions=5)
    assert not refused.allowed and not refused.needs_confirmation
    assert "limit 5" in refused.reason
    assert check_guard(report, automatic=True, auto_compactions=4).allowed
    assert not check_guard(evaluate_degradation(1), automatic=True, auto_compactions=2, max_auto_compactions=2).allowed


@pytest.mark.parametrize(("count", "confirm"), [(0, False), (2, False), (3, True), (5, True), (20, True)])
def test_manual_compaction_asks_for_confirmation_at_high_risk(count: int, confirm: bool) -> None:
    decision = check_guard(evaluate_degradation(count), automatic=False, auto_compactions=99)
    assert decision.allowed and decision.needs_confirmation is confirm


def test_the_post_compaction_figure_says_what_it_is(tmp_path: Path) -> None:
    # Issue 28 item 4: "after last 104,948 tokens" beside a gauge at 45,761 read as two figures for one thing. It is
    # the first call after the compaction (or an estimate when there is none), and says so beside the number.
    assert assess_degradation(_compacted(tmp_path, 60_000)).post_compaction_basis == "at the first call after it"
    ended = assess_degradation(_snapshot(ENDS_ON_COMPACTION))
    assert ended.post_compaction_basis == "estimated, no call since"
    assert assess_degradation(_snapshot(V1_LEGACY)).post_compaction_basis is None
