"""Top consumers of the context, and a prune of exactly the messages chosen among them."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.accounting.consumers import top_consumers
from engine.accounting.measure import message_tokens
from engine.compaction.controllers import apply_compaction
from engine.compaction.summarizer import CLEARED
from tests.engine._compaction import coding_session, context_of, output_text, plan_for, snapshot_of


def test_the_largest_messages_with_their_share(tmp_path: Path) -> None:
    path = coding_session(tmp_path / "s.jsonl", turns=6)
    follower, snapshot = snapshot_of(path)
    found = top_consumers(snapshot.view, follower.reader, cache=follower.token_cache, limit=4)
    every = sorted((message_tokens(m, follower.reader) for m in snapshot.view.messages), reverse=True)
    assert [c.tokens for c in found] == every[:4]
    assert all(c.role == "toolResult" and c.what == "read output" and c.prunable for c in found)
    assert sum(c.share for c in found) == pytest.approx(sum(every[:4]) / sum(every))


def test_choosing_messages_prunes_exactly_those(tmp_path: Path) -> None:
    path = coding_session(tmp_path / "s.jsonl", turns=6)
    follower, snapshot = snapshot_of(path)
    chosen = [c.entry_id for c in top_consumers(snapshot.view, follower.reader, limit=2)]
    _, plan = plan_for(path, "prune", tmp_path / "state", targets=chosen)
    assert plan.blocked == () and sorted(plan.targets) == sorted(chosen)
    view, _ = context_of(path)
    ids = [m.entry.id for m in view.messages]
    last = max(ids.index(c) for c in chosen)
    assert plan.first_kept_entry_id == ids[last + 1]  # the cut goes right after the last chosen message
    assert plan.summary.count(CLEARED) == len(chosen)
    for index in range(last + 1):  # everything else in the span is carried whole
        entry_id = ids[index]
        if entry_id in chosen or not entry_id.startswith("r"):
            continue
        assert output_text(int(entry_id[1:]), 6000) in plan.summary
    assert plan.tokens_after < plan.tokens_before


def test_a_chosen_message_outside_the_context_or_at_its_end_blocks(tmp_path: Path) -> None:
    path = coding_session(tmp_path / "s.jsonl", turns=3)
    _, stray = plan_for(path, "prune", tmp_path / "state", targets=["r1", "nope"])
    assert any("not in the current context" in b and "nope" in b for b in stray.blocked)
    _, last = plan_for(path, "prune", tmp_path / "state", targets=["d2"])  # the leaf: nothing left after it
    assert any("end the context" in b for b in last.blocked)
    with pytest.raises(ValueError, match="only the prune layer"):
        plan_for(path, "summarize", tmp_path / "state", targets=["r1"])


def test_the_applied_prune_leaves_the_rest_of_the_context_alone(tmp_path: Path) -> None:
    path = coding_session(tmp_path / "s.jsonl", turns=5)
    _, plan = plan_for(path, "prune", tmp_path / "state", targets=["r1"])
    apply_compaction(plan, state_dir=tmp_path / "state")
    view, reader = context_of(path)
    texts = [str(reader.read_object(m.entry)) for m in view.messages if m.role != "compactionSummary"]
    assert not any(output_text(1, 6000)[:300] in t for t in texts)  # the chosen output is gone from the context
    assert view.messages[0].role == "compactionSummary"
    summary = reader.read_object(view.compaction)["summary"] if view.compaction else ""
    assert output_text(0, 6000) in summary  # the earlier output, not chosen, is carried whole
    kept = {m.entry.id for m in view.messages}
    assert {"r2", "r3", "r4"} <= kept
