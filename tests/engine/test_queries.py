"""The queries behind the views (engine/queries/), on the real sessions in tests/fixtures.

Each view of the TUI and each read command shows what one of these returns; the tests pin what each value holds.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine import (
    Config,
    audit_history,
    context_cut,
    keep_recent_budget,
    measure_rows,
    message_text,
    read_checkpoints,
    read_decisions,
    read_message,
    read_outline,
    read_tail,
    read_top_consumers,
    write_checkpoint,
)
from engine.accounting.context import find_cut_point
from engine.capture.state import CapturedDecision, CapturedState, capture
from engine.checkpoints.builder import build_checkpoint
from engine.fs.audit import record_action
from engine.queries.transcript import TAIL_MAX_CHARS, TAIL_MAX_LINES
from tests.conftest import ENDS_ON_COMPACTION, MAIN_SESSION
from tests.engine._checkpoints import sample_checkpoint
from tests.engine._compaction import snapshot_of
from tests.engine._transcripts import line, user

MAIN_LEAF = "188a55d1"
"""The last entry of MAIN_SESSION (an assistant message calling ``exec``)."""
SECRET = "sk-proj-Zx81Ka0Qm2Lr5Tn7Vb9Wc3Yd6Fe4Gh1Jk0"


def _session_with(tmp_path: Path, *objs: dict[str, object]) -> Path:
    """MAIN_SESSION with ``objs`` appended (the real file otherwise byte for byte)."""
    path = tmp_path / "sessions" / MAIN_SESSION.name
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(MAIN_SESSION, path)
    with path.open("ab") as f:
        for obj in objs:
            f.write(line(obj))
    return path


# -- decisions --------------------------------------------------------------------------------------------------


def test_decisions_merge_the_checkpoint_with_the_live_capture_once_each(tmp_path: Path) -> None:
    follower, snapshot = snapshot_of(MAIN_SESSION)
    state_dir = tmp_path / "state"
    cp = sample_checkpoint()
    write_checkpoint(state_dir, snapshot.key, cp)
    kept = cp.decisions[0].what
    state = CapturedState(
        decisions=(CapturedDecision(kept, "2026-02-24T16:00:00Z", "e1"),  # already in the checkpoint
                   CapturedDecision("Push the config to the GitHub repository", None, "e2")),
        learnings=("The .moltbot directory is hidden from git by default",),
        updated_at="2026-02-24T16:05:00Z",
    )
    digest = read_decisions(snapshot, follower, state, state_dir, now=datetime(2026, 2, 25, tzinfo=UTC),
                            max_age_seconds=14 * 86_400.0)
    assert digest.checkpoint_id == "cp_001" and digest.live and digest.this_year == "2026"
    texts = [item.text for item in digest.decisions]
    assert texts.count(kept) == 1 and len(texts) == len(cp.decisions) + 1
    # Newest first: the live item captured since the checkpoint, with the capture's time (it has none of its own).
    first = digest.decisions[0]
    assert (first.text, first.source, first.when, first.entry_id) == (
        "Push the config to the GitHub repository", "live", "2026-02-24T16:05:00Z", "e2")
    assert next(i for i in digest.decisions if i.text == kept).source == "cp_001"
    assert [(i.text, i.source) for i in digest.open_items] == [(text, "cp_001") for text in reversed(cp.open_items)]
    assert digest.learnings[0].text == "The .moltbot directory is hidden from git by default"
    assert digest.exchanges and all(e.role in ("user", "agent") for e in digest.exchanges)


def test_open_items_older_than_the_age_limit_are_stale_and_say_how_old(tmp_path: Path) -> None:
    follower, snapshot = snapshot_of(MAIN_SESSION)
    state_dir = tmp_path / "state"
    write_checkpoint(state_dir, snapshot.key, sample_checkpoint(created_at="2026-02-24T15:30:00Z"))

    def stale_at(now: datetime) -> set[str | None]:
        digest = read_decisions(snapshot, follower, CapturedState(), state_dir, now=now, max_age_seconds=7 * 86_400.0)
        assert len(digest.open_items) == 3
        return {item.stale for item in digest.open_items}

    assert stale_at(datetime(2026, 3, 2, tzinfo=UTC)) == {None}  # six days old
    assert stale_at(datetime(2026, 3, 10, tzinfo=UTC)) == {"13 days old"}


def test_decisions_without_a_sidecar_or_a_checkpoint_are_empty_and_say_so(tmp_path: Path) -> None:
    follower, snapshot = snapshot_of(MAIN_SESSION)
    digest = read_decisions(snapshot, follower, None, tmp_path / "state")
    assert (digest.checkpoint_id, digest.live, digest.decisions, digest.open_items) == (None, False, (), ())
    assert not (tmp_path / "state").exists()  # a read path never writes


@pytest.mark.parametrize(("name", "kind", "begins"), [
    ("d80_chkit_manual_release", "constraint", "this is not what I wanted"),
    ("d14_kfb_movie_keyframes", "open", "check update_image_paths_in_blog"),
])
def test_learnings_and_open_items_of_a_checkpoint_carry_the_time_they_were_said(
    tmp_path: Path, name: str, kind: str, begins: str
) -> None:
    """The checkpoint schema keeps learnings and open items as bare text; the tab shows when each was said, from
    the live ledger or, once a checkpoint has reset it, from the user message that said it (real sessions)."""
    session = Path(__file__).parents[1] / "data" / "real" / f"{name}.jsonl"
    follower, snapshot = snapshot_of(session)
    state = capture(CapturedState(), snapshot.view.path, follower.objects.read_object)
    item = next(i for i in state.items() if i.kind == kind and not i.done and i.text.startswith(begins))
    assert item.when
    state_dir = tmp_path / "state"
    written = datetime(2026, 11, 28, 7, 17, tzinfo=UTC)
    cp = build_checkpoint(snapshot, state, follower.objects.read_object, trigger="manual", now=written)
    write_checkpoint(state_dir, snapshot.key, cp)
    assert item.text in (cp.learnings if kind == "constraint" else cp.open_items)
    for live in (state, CapturedState()):  # beside the live ledger, then after a checkpoint reset the state
        digest = read_decisions(snapshot, follower, live, state_dir, now=datetime(2026, 11, 28, 8, tzinfo=UTC))
        listed = digest.learnings if kind == "constraint" else digest.open_items
        assert [(i.source, i.when) for i in listed if i.text == item.text] == [("cp_001", item.when)]
    assert not item.when.startswith("2026-11-28")  # said months before the checkpoint was written


# -- checkpoints ------------------------------------------------------------------------------------------------


def test_checkpoints_are_listed_oldest_first_parsed_and_rendered(tmp_path: Path) -> None:
    _, snapshot = snapshot_of(MAIN_SESSION)
    state_dir = tmp_path / "state"
    refs = [write_checkpoint(state_dir, snapshot.key, sample_checkpoint(trigger=t)) for t in ("manual", "auto-80pct")]
    stored = read_checkpoints(state_dir, snapshot.key)
    assert [s.checkpoint_id for s in stored] == ["cp_001", "cp_002"]
    assert [s.checkpoint.meta.trigger for s in stored if s.checkpoint] == ["manual", "auto-80pct"]
    assert all(s.problem is None and s.rendered is not None and s.rendered.tokens > 0 for s in stored)
    assert stored[1].text == refs[1].path.read_text(encoding="utf-8")
    assert [s.number for s in stored] == [1, 2]
    # Unchanged files are reused as they are; the command line's list skips the rendering.
    assert all(a is b for a, b in zip(read_checkpoints(state_dir, snapshot.key, stored), stored, strict=True))
    plain = read_checkpoints(state_dir, snapshot.key, render=False)
    assert [s.rendered for s in plain] == [None, None] and [s.checkpoint for s in plain] == [
        s.checkpoint for s in stored]


def test_a_checkpoint_file_that_is_a_symlink_or_another_sessions_is_listed_with_its_problem(tmp_path: Path) -> None:
    _, snapshot = snapshot_of(MAIN_SESSION)
    state_dir = tmp_path / "state"
    first = write_checkpoint(state_dir, snapshot.key, sample_checkpoint())
    elsewhere = tmp_path / "elsewhere.yaml"
    shutil.copy(first.path, elsewhere)
    os.symlink(elsewhere, first.path.with_name("cp_002.yaml"))
    foreign = first.path.read_text(encoding="utf-8").replace(f'session_key: "{snapshot.key}"',
                                                             'session_key: "agent:other:main"')
    assert foreign != first.path.read_text(encoding="utf-8")
    first.path.with_name("cp_003.yaml").write_text(foreign, encoding="utf-8")
    stored = {s.checkpoint_id: s for s in read_checkpoints(state_dir, snapshot.key)}
    assert stored["cp_001"].problem is None
    assert stored["cp_002"].checkpoint is None and "symlink" in (stored["cp_002"].problem or "")
    assert stored["cp_003"].checkpoint is None and "another session" in (stored["cp_003"].problem or "")


# -- audit history ----------------------------------------------------------------------------------------------


def test_audit_history_lists_one_sessions_records_newest_first(tmp_path: Path) -> None:
    state_dir = tmp_path / "state"
    at = datetime(2026, 2, 24, 15, 0, tzinfo=UTC)
    record_action(state_dir, "checkpoint", "agent:main:main", params={"trigger": "manual", "path": "/x"}, now=at)
    record_action(state_dir, "compact", "agent:other:main", now=at)
    record_action(state_dir, "prune", "agent:main:main", params={"layer": "prune", "path": "/x", "dry_run": False},
                  plan={"tokens_before": 21_582, "tokens_after": 9_000}, now=at.replace(minute=5))
    record_action(state_dir, "compact", "agent:main:main", result="failed", error="lock held by pid 7",
                  now=at.replace(minute=9))
    items = audit_history(state_dir, "agent:main:main")
    assert [i.title for i in items] == ["compact · failed", "prune · ok", "checkpoint · ok"]
    assert [i.time[11:16] for i in items] == ["15:09", "15:05", "15:00"]
    assert [i.detail for i in items] == ["lock held by pid 7", "layer=prune, message tokens=21,582 → 9,000",
                                         "trigger=manual"]
    assert audit_history(tmp_path / "none", "agent:main:main") == ()


# -- transcript tail and one message ----------------------------------------------------------------------------


def test_the_tail_is_the_last_context_messages_cut_to_the_pane(tmp_path: Path) -> None:
    follower, snapshot = snapshot_of(MAIN_SESSION)
    tail = read_tail(snapshot, follower, 30)
    messages = snapshot.view.messages[-30:]
    assert [t.entry_id for t in tail] == [m.entry_id for m in messages] and tail[-1].entry_id == MAIN_LEAF
    assert tail[-1].time == "11:54:13"
    for shown, message in zip(tail, messages, strict=True):
        whole = message_text(message, follower, tools_if_empty=True).strip()
        assert len(shown.text) <= TAIL_MAX_CHARS and len(shown.text.splitlines()) <= TAIL_MAX_LINES
        assert shown.hidden_chars == len(whole) - len(shown.text)
        lines, whole_lines = shown.text.splitlines(), whole.splitlines()
        assert lines[:-1] == whole_lines[:len(lines) - 1] and whole_lines[len(lines) - 1].startswith(lines[-1])
    assert any(t.hidden_chars for t in tail)  # the session's long tool outputs are cut


def test_one_message_whole_with_the_tokens_the_context_rows_count(tmp_path: Path) -> None:
    follower, snapshot = snapshot_of(MAIN_SESSION)
    message = read_message(snapshot, follower, MAIN_LEAF)
    assert message is not None
    assert (message.role, message.timestamp, message.tools) == ("assistant", "2026-01-31T11:54:13.549Z", ("exec",))
    assert "找到了！配置文件在" in message.text
    rows = {r.entry_id: r for r in measure_rows(snapshot, follower, 20_000)}
    assert message.tokens == rows[MAIN_LEAF].tokens > 0
    assert read_message(snapshot, follower, "not-in-context") is None


def test_message_text_is_redacted_in_the_tail_and_the_viewer(tmp_path: Path) -> None:
    path = _session_with(tmp_path, user("u-secret", MAIN_LEAF, f"use OPENAI_KEY={SECRET} for the deploy"))
    follower, snapshot = snapshot_of(path)
    whole = read_message(snapshot, follower, "u-secret")
    assert whole is not None and "for the deploy" in whole.text and SECRET not in whole.text
    last = read_tail(snapshot, follower, 1)[0]
    assert last.entry_id == "u-secret" and "for the deploy" in last.text and SECRET not in last.text


# -- tree -------------------------------------------------------------------------------------------------------


def test_the_outline_marks_the_leafs_branch_and_shows_labels(tmp_path: Path) -> None:
    # A rewind: a new user message whose parent is an earlier one, so the file holds two branches; then a label.
    follower, before = snapshot_of(MAIN_SESSION)
    fork = before.view.path[-5].id
    label = {"type": "label", "id": "lbl-1", "parentId": "u-rewind", "timestamp": "2026-01-31T12:00:00.000Z",
             "targetId": "u-rewind", "label": "retry from here"}
    path = _session_with(tmp_path, user("u-rewind", fork, "let's try that again"), label)
    follower, snapshot = snapshot_of(path)
    roots = read_outline(snapshot, follower)
    assert isinstance(roots, tuple) and len(roots) == 1
    segments, todo = [], list(roots)
    while todo:
        segment = todo.pop()
        segments.append(segment)
        todo.extend(segment.children)
    leaf_segments = [s for s in segments if s.holds_leaf]
    assert len(leaf_segments) == 1 and leaf_segments[0].on_path
    assert sum(len(s.children) > 1 for s in segments) == 1  # one branch point, at the fork
    old_branch = next(s for s in segments if s.last_id == MAIN_LEAF)
    assert not old_branch.on_path and not old_branch.holds_leaf
    assert ("u-rewind", "retry from here") in [lab for s in segments for lab in s.labels]
    assert sum(s.entries for s in segments) == len([e for e in follower.entries if e.type != "session"])


# -- context rows -----------------------------------------------------------------------------------------------


def test_context_rows_measure_each_message_and_protect_the_recent_budget() -> None:
    follower, snapshot = snapshot_of(MAIN_SESSION)
    budget = keep_recent_budget(snapshot, Config())
    assert (budget.tokens, budget.source) == (20_000, "ctxscope config")
    rows = measure_rows(snapshot, follower, budget.tokens)
    messages = snapshot.view.messages
    assert [r.entry_id for r in rows] == [m.entry_id for m in messages]
    assert [r.tokens for r in rows] == [follower.message_tokens(m) for m in messages]
    cut = find_cut_point(snapshot.view.path, budget.tokens)
    assert context_cut(snapshot, budget.tokens) == cut
    assert [r.protected for r in rows] == [
        m.role != "compactionSummary" and m.path_index >= cut.first_kept_index for m in messages]
    assert any(r.protected for r in rows) and not all(r.protected for r in rows)
    assert [(r.pi_estimate, r.sent, r.line) for r in rows] == [
        (m.entry.pi_tokens, m.sent, m.entry.line_no) for m in messages]


def test_a_session_that_ends_on_a_compaction_has_nothing_compactable() -> None:
    # pi's prepareCompaction returns nothing when the leaf is a compaction: no cut, every message stays.
    follower, snapshot = snapshot_of(ENDS_ON_COMPACTION)
    assert context_cut(snapshot, 20_000) is None
    rows = measure_rows(snapshot, follower, 20_000)
    assert rows[0].role == "compactionSummary" and all(r.protected for r in rows)


def test_the_keep_recent_budget_is_the_agents_own_when_it_has_one() -> None:
    _, snapshot = snapshot_of(MAIN_SESSION)
    assert snapshot.limits is not None
    limits = dataclasses.replace(snapshot.limits, keep_recent_tokens=12_345, keep_recent_source="settings.json")
    budget = keep_recent_budget(dataclasses.replace(snapshot, limits=limits), Config())
    assert (budget.tokens, budget.source) == (12_345, "settings.json")
    no_limits = keep_recent_budget(dataclasses.replace(snapshot, limits=None), Config(keep_recent_tokens=777))
    assert (no_limits.tokens, no_limits.source) == (777, "ctxscope config")



def test_the_largest_messages_are_the_largest_context_rows() -> None:
    follower, snapshot = snapshot_of(MAIN_SESSION)
    rows = measure_rows(snapshot, follower, 20_000)
    largest = read_top_consumers(snapshot, follower, limit=5)
    assert [c.tokens for c in largest] == sorted((r.tokens for r in rows), reverse=True)[:5]
    assert sum(c.share for c in largest) * sum(r.tokens for r in rows) == pytest.approx(
        sum(c.tokens for c in largest))


def test_an_open_item_the_conversation_closed_says_when_in_the_tabs_own_time_format(tmp_path: Path) -> None:
    # d96 (punt-labs/langlearn-tts): "merge it" was said at 08:09 and the agent reported "Merged and synced." at 08:10.
    session = Path(__file__).parents[1] / "data" / "real" / "d96_langlearn_release_voice.jsonl"
    follower, snapshot = snapshot_of(session)
    state = capture(CapturedState(), snapshot.view.path, follower.objects.read_object)
    digest = read_decisions(snapshot, follower, state, tmp_path / "state", now=datetime(2026, 2, 26, tzinfo=UTC))
    merged = next(i for i in digest.open_items if i.text == "merge it")
    assert merged.stale == "done 2026-02-25 08:10"
