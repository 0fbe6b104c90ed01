"""The planner as stages over values (docs/compaction.md, Plan first): a request, inputs read at the edge, then
cut → summary → figures → assessment → verdict, each a function of values."""

from __future__ import annotations

import dataclasses
import inspect
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.compaction.plan_inputs import gather_inputs
from engine.compaction.plan_json import PLAN_JSON
from engine.compaction.plan_stages import assess, cut_context, decide, draft_summary, measure, summary_material
from engine.compaction.planner import plan_compaction
from engine.compaction.request import CompactionRequest
from engine.config.loader import Config
from engine.fs.lock_info import LockInfo
from tests.engine._compaction import coding_session, plan_for, snapshot_of

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)
DOCS = Path(__file__).resolve().parents[2] / "docs" / "compaction.md"


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"layer": "shrink"}, "unknown compaction layer 'shrink'"),
    ({"layer": "summarize", "keep_recent": -1}, "keep_recent must be >= 0"),
    ({"layer": "summarize", "targets": ("a",)}, "only the prune layer takes chosen messages"),
])
def test_a_request_that_cannot_be_planned_is_refused_when_made(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        CompactionRequest(**kwargs)  # type: ignore[arg-type]


def test_a_requests_focus_is_redacted_when_made() -> None:
    secret = "sk-ant-api03-" + "A" * 40
    request = CompactionRequest("summarize", f"keep {secret}", now=NOW)
    assert secret not in (request.focus or "") and request.focus and request.focus.startswith("keep ")
    assert request.created_at == "2026-03-01T12:00:00.000Z"


def test_the_stages_in_order_give_the_plan_plan_compaction_gives(tmp_path: Path) -> None:
    session = coding_session(tmp_path / "s.jsonl", turns=8)
    _, plan = plan_for(session, "summarize", tmp_path / "state", keep_recent=3000, now=NOW)
    _, snapshot = snapshot_of(session)
    config = Config()
    request = CompactionRequest("summarize", keep_recent=3000, now=NOW)
    inputs, pending = gather_inputs(snapshot, request, config=config, state_dir=tmp_path / "state")
    cut = cut_context(snapshot, request, config.compaction)
    material = summary_material(snapshot, cut, inputs, config.compaction)
    counts = pending.join()
    draft = draft_summary(snapshot, request, cut, material, counts, inputs, config)
    figures = measure(snapshot, cut, draft, counts, inputs)
    assessment = assess(snapshot, request, inputs, cut, draft, figures, config.compaction)
    verdict = decide(request, inputs, cut, draft, figures, assessment)
    assert (cut.kept_ids, draft.text, figures, verdict) == (plan.kept_ids, plan.summary, plan.figures, plan.verdict)
    assert plan.request == request and plan.cut.first_kept_entry_id == cut.first_kept_entry_id


def test_the_verdict_is_a_function_of_the_inputs_read_at_the_edge(tmp_path: Path) -> None:
    """A lock or a fresh write seen at the edge changes the warnings; nothing is read again to decide."""
    session = coding_session(tmp_path / "s.jsonl", turns=8)
    _, snapshot = snapshot_of(session)
    config = Config()
    request = CompactionRequest("summarize", keep_recent=3000, now=NOW)
    inputs, pending = gather_inputs(snapshot, request, config=config, state_dir=tmp_path / "state")
    cut = cut_context(snapshot, request, config.compaction)
    counts = pending.join()
    draft = draft_summary(snapshot, request, cut, summary_material(snapshot, cut, inputs, config.compaction), counts,
                          inputs, config)
    figures = measure(snapshot, cut, draft, counts, inputs)
    assessment = assess(snapshot, request, inputs, cut, draft, figures, config.compaction)
    quiet = decide(request, inputs, cut, draft, figures, assessment)
    held = LockInfo(session.with_suffix(".jsonl.lock"), 4242, "2026-03-01T11:59:00Z", None, True, False, "held")
    busy = dataclasses.replace(inputs, lock=held, transcript_age=1.5)
    session.unlink()  # deciding again reads nothing
    loud = decide(request, busy, cut, draft, figures, assessment)
    assert loud.warnings[:len(quiet.warnings)] == quiet.warnings and loud.blocked == quiet.blocked
    assert loud.warnings[len(quiet.warnings):] == (
        "s.jsonl.lock is held by pid 4242 since 2026-03-01T11:59:00Z: applying waits for it and never breaks a "
        "live lock",
        "the transcript changed 1.5 s ago: the agent may be mid-run",
    )
    stale = dataclasses.replace(held, alive=False, stale=True, reason="dead-pid")
    assert decide(request, dataclasses.replace(inputs, lock=stale), cut, draft, figures, assessment).warnings[-1] == (
        "a stale lock (dead-pid, pid 4242) will be taken over")


def test_plan_compaction_is_a_short_composition_of_the_stages() -> None:
    lines = inspect.getsource(plan_compaction).splitlines()
    assert len(lines) <= 60, len(lines)


def test_the_plan_json_keys_are_the_documented_contract(tmp_path: Path) -> None:
    session = coding_session(tmp_path / "s.jsonl", turns=8)
    _, plan = plan_for(session, "summarize", tmp_path / "state", keep_recent=3000, now=NOW)
    data = plan.to_dict()
    assert list(data) == list(PLAN_JSON)
    assert list(data["tokens"]) == ["method", "summarized", "kept", "summary", "checkpoint_message", "before", "after",
                                    "overhead", "context_before", "context_after", "agent_estimate_before"]
    assert data["tokens"]["before"] == plan.tokens_before and data["created_at"] == "2026-03-01T12:00:00.000Z"
    assert data["dropped"][0] == dataclasses.asdict(plan.dropped[0])
    documented = DOCS.read_text(encoding="utf-8").split("### Plan JSON", 1)[1].split("\n## ", 1)[0]
    assert [key for key in PLAN_JSON if f"`{key}`" not in documented] == []
