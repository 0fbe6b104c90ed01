"""A summary edited before applying: recomputed plan, redaction, refusals, the entry written, and the audit."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import orjson
import pytest

from engine.accounting.tokens import count_tokens
from engine.compaction.controllers import CompactionRefusedError, apply_compaction
from engine.compaction.summary_edit import with_edited_summary
from engine.fs.audit import read_audit
from tests.engine._compaction import coding_session, plan_for
from tests.engine._transcripts import assistant, line, user


def test_the_plan_is_recomputed_with_the_edited_text(tmp_path: Path) -> None:
    session = coding_session(tmp_path / "s.jsonl", turns=8)
    _, plan = plan_for(session, "summarize", tmp_path / "state", keep_recent=3000)
    key = "sk-ant-api03-" + "Z9y8X7w6" * 5
    text = plan.summary.replace("## Key Decisions", f"## Key Decisions\n- Rotate {key} after the release")
    edited = with_edited_summary(plan, text)
    assert key not in edited.summary and "[REDACTED:" in edited.summary
    assert edited.summary_tokens == count_tokens(edited.summary) > plan.summary_tokens
    assert edited.tokens_after == plan.tokens_after + edited.summary_tokens - plan.summary_tokens
    assert edited.summary_edited and edited.summary_source == "edited:deterministic"
    assert edited.applicable and edited.warnings[-1] == (
        f"summary edited by hand: {plan.summary_tokens:,} → {edited.summary_tokens:,} tokens")
    assert edited.audit_summary()["summary_sha256"] == hashlib.sha256(edited.summary.encode()).hexdigest()
    assert with_edited_summary(plan, plan.summary) is plan


def test_an_empty_or_larger_summary_or_the_gateway_blocks_the_plan(tmp_path: Path) -> None:
    session = coding_session(tmp_path / "s.jsonl", turns=8)
    _, plan = plan_for(session, "summarize", tmp_path / "state", keep_recent=3000)
    assert not with_edited_summary(plan, "  \n").applicable
    bigger = with_edited_summary(plan, plan.summary + "\n" + "padding words " * 20_000)
    assert any("is not smaller than what it replaces" in b for b in bigger.blocked)
    back = with_edited_summary(bigger, plan.summary + "\n- one more line")
    assert back.applicable  # the stale size refusal goes when the text shrinks again
    gateway = with_edited_summary(dataclasses.replace(plan, controller="gateway"), plan.summary + "\n- x")
    assert any("gateway writes its own summary" in b for b in gateway.blocked)


def test_applying_an_edited_summary_writes_it_and_audits_the_edit(tmp_path: Path) -> None:
    session = coding_session(tmp_path / "s.jsonl", turns=8)
    follower, plan = plan_for(session, "summarize", tmp_path / "state", keep_recent=3000)
    edited = with_edited_summary(plan, plan.summary + "\n\n## Notes from the user\n- keep the retry helper")
    result = apply_compaction(edited, follower=follower, state_dir=tmp_path / "state")
    entry = orjson.loads(session.read_bytes().splitlines()[-1 if not result.plan.checkpoint else -2])
    assert entry["type"] == "compaction" and entry["summary"] == edited.summary
    record = [r for r in read_audit(tmp_path / "state") if r.action == "compact"][-1]
    assert record.result == "ok"
    assert record.plan["summary_edited"] is True and record.plan["summary_source"] == "edited:deterministic"
    assert record.plan["summary_sha256"] == hashlib.sha256(edited.summary.encode()).hexdigest()
    assert record.plan["summary_tokens"] == edited.summary_tokens


def test_an_edited_summary_is_never_re_planned_silently(tmp_path: Path) -> None:
    session = coding_session(tmp_path / "s.jsonl", turns=8)
    follower, plan = plan_for(session, "summarize", tmp_path / "state", keep_recent=3000)
    edited = with_edited_summary(plan, plan.summary + "\n- edited")
    leaf = orjson.loads(session.read_bytes().splitlines()[-1])["id"]
    with session.open("ab") as handle:  # the agent moves on after the preview
        handle.write(line(user("late-u", leaf, "one more thing")) + line(assistant("late-a", "late-u", "ok", 9000)))
    with pytest.raises(CompactionRefusedError, match="since the edited summary was written"):
        apply_compaction(edited, follower=follower, state_dir=tmp_path / "state")
    record = [r for r in read_audit(tmp_path / "state") if r.action == "compact"][-1]
    assert record.result == "refused" and record.plan["summary_edited"] is True
