"""State capture, thread extraction, triggers and the sidecar loop on real and built transcripts."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson
import pytest

from engine.accounting.context import build_context
from engine.accounting.gauge import read_gauge
from engine.accounting.windows import ContextWindow
from engine.agents.discovery import discover_sessions
from engine.capture.state import CapturedState, capture
from engine.capture.state_files import load_state, save_state
from engine.capture.thread import extract_thread
from engine.checkpoints.inject import CHECKPOINT_CUSTOM_TYPE, apply_inject, plan_inject
from engine.checkpoints.store import latest_checkpoint, list_checkpoints, read_checkpoint
from engine.checkpoints.triggers import TURNS_PER_CHECKPOINT, TriggerState, decide_trigger, should_skip
from engine.config.loader import Config
from engine.sidecar import ContextManager
from engine.stores.transcript import read_transcript
from tests.conftest import DATA, MAIN_SESSION, V1_LEGACY
from tests.engine._transcripts import assistant, compaction, tool_result, user, write

DECISION_ITEM = orjson.loads(DATA.joinpath("decisions_dev.jsonl").read_bytes().splitlines()[0])


class Clock:
    """A controllable clock: each call advances one second."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def _decision_session(path: Path) -> Path:
    return write(path, [
        user("u1", None, "Please make the invoice sync robust against the flaky upstream."),
        assistant("a1", "u1", DECISION_ITEM["agent_response"], 1000,
                  tool=("edit", {"path": "src/net/retry.ts", "old": "x", "new": "y"})),
        tool_result("r1", "a1", "ok"),
        assistant("a2", "r1", "Edited.\nTODO: add a test for the timeout path.", 1500,
                  tool=("read", {"path": "src/net/CircuitBreaker.ts"})),
        tool_result("r2", "a2", "ENOENT: no such file", error=True),
        assistant("a3", "r2", DECISION_ITEM["agent_response"], 1800),
        user("u2", "a3", DECISION_ITEM["user_reply"]),
    ])


def test_capture_collects_tools_files_failures_and_decisions(tmp_path: Path) -> None:
    reader = read_transcript(_decision_session(tmp_path / "s.jsonl"))
    view = build_context(reader.entries, reader.by_id, reader.leaf)
    state = capture(CapturedState(), view.path, reader.read_object)
    assert state.tools_used == ("edit", "read")
    assert state.files_modified == ("src/net/retry.ts",)
    assert state.files_read == ("src/net/CircuitBreaker.ts",)
    assert [f.tool for f in state.failures] == ["read"]
    assert state.last_tool_call is not None and state.last_tool_call.params_summary.startswith("path=src/net/")
    assert [d.what for d in state.decisions] == DECISION_ITEM["expected"]
    assert state.real_user_messages == 2
    assert any("test for the timeout path" in item for item in state.open_items)
    # The fold is pure and incremental: capturing in two halves gives the same state.
    half = len(view.path) // 2
    split = capture(capture(CapturedState(), view.path[:half], reader.read_object), view.path[half:],
                    reader.read_object)
    assert split == state


def test_capture_stores_whole_items_never_cut_mid_word(tmp_path: Path) -> None:
    decision = ("Decision: keep the shard router stateless so that every pod can route a merchant without a "
                "lookup, move the range table into the config service, reload it on SIGHUP, and fall back to "
                "the previous table when the new one fails validation.")
    todo = ("document how the shard router reloads its range table on SIGHUP, what happens when validation "
            "fails, and which metric and which dashboard panel tell the on-call engineer that the fallback range "
            "table is in use")
    learning = ("Never change the shard ranges during business hours because the settlement batch reads them "
                "and a half-applied table makes the nightly settlement totals disagree with the export the bank sends "
                "us every night.")
    session = write(tmp_path / "s.jsonl", [
        user("u1", None, "Please design the shard router."),
        assistant("a1", "u1", f"Here is the plan.\n\n{decision}\n\nTODO: {todo}\n" + "Details follow. " * 20,
                  1000),
        user("u2", "a1", "ok go"),
        user("u3", "u2", learning),
    ])
    reader = read_transcript(session)
    view = build_context(reader.entries, reader.by_id, reader.leaf)
    state = capture(CapturedState(), view.path, reader.read_object)
    assert len(decision) > 200 and len(todo) > 200 and len(learning) > 200  # the extractors' cut is 200
    assert [d.what for d in state.decisions] == [decision]
    assert todo in state.open_items
    assert state.learnings == (learning,)


def test_state_files_round_trip_and_stale_state_is_discarded(tmp_path: Path) -> None:
    reader = read_transcript(_decision_session(tmp_path / "s.jsonl"))
    view = build_context(reader.entries, reader.by_id, reader.leaf)
    state = capture(CapturedState(), view.path, reader.read_object)
    when = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    directory = save_state(tmp_path / "state", "agent:main:main", state, now=when)
    assert sorted(p.name for p in directory.iterdir()) == [
        "decisions.json", "last_tool_call.json", "open_items.json", "resources.json", "thread.json",
    ]
    loaded = load_state(tmp_path / "state", "agent:main:main", latest_checkpoint_at=when - timedelta(seconds=5))
    assert not loaded.stale and loaded.state.decisions == state.decisions
    assert loaded.state.last_tool_call == state.last_tool_call
    stale = load_state(tmp_path / "state", "agent:main:main", latest_checkpoint_at=when + timedelta(seconds=5))
    assert stale.stale and stale.state == CapturedState()


def test_thread_uses_real_user_messages_only(tmp_path: Path) -> None:
    path = write(tmp_path / "t.jsonl", [
        user("u0", None, "The conversation history before this point was compacted into the following summary:"),
        user("u1", "u0", "Build me a CLI for invoices"),
        assistant("a1", "u1", "x" * 600, 10),
        user("u2", "a1", "ok"),
        assistant("a2", "u2", "Done, pushed.", 20),
        user("u3", "a2", "[Context: 81% | 162k/200k tokens | Checkpoint saved]"),
        user("u4", "u3", "thanks, now add tests"),
        assistant("a4", "u4", "Adding tests now.", 30),
    ])
    reader = read_transcript(path)
    view = build_context(reader.entries, reader.by_id, reader.leaf)
    thread = extract_thread(view.messages, reader.read_object)
    assert thread.summary == "Build me a CLI for invoices ... thanks, now add tests"
    assert [(e.role, e.gist) for e in thread.key_exchanges] == [
        ("user", "Build me a CLI for invoices"), ("user", "ok"), ("agent", "Done, pushed."),
        ("user", "thanks, now add tests"), ("agent", "Adding tests now."),
    ]


def test_the_topic_is_the_latest_user_message_that_says_something(tmp_path: Path) -> None:
    path = write(tmp_path / "t.jsonl", [
        user("u1", None, "Build me a CLI for invoices"), assistant("a1", "u1", "Plan: click + sqlite.", 10),
        user("u2", "a1", "now make the export stream rows"), assistant("a2", "u2", "Streaming now.", 20),
        user("u3", "a2", "ok"), assistant("a3", "u3", "Done.", 30),
        user("u4", "a3", "Yes, go ahead!"), assistant("a4", "u4", "Pushed.", 40),
    ])
    reader = read_transcript(path)
    view = build_context(reader.entries, reader.by_id, reader.leaf)
    thread = extract_thread(view.messages, reader.read_object)
    assert thread.last_user == "now make the export stream rows"  # "ok" and "Yes, go ahead!" name no topic
    assert thread.summary.endswith("... now make the export stream rows")


def test_the_agents_harness_in_the_users_turn_is_no_exchange(tmp_path: Path) -> None:
    # Claude Code writes these in the user's role (repiq d69 of the real corpus): the key exchanges showed them as
    # the user's words while the ledger, reading envelopes.user_words, already did not.
    path = write(tmp_path / "t.jsonl", [
        user("u1", None, "push"), assistant("a1", "u1", "Pushing.", 10),
        user("u2", "a1", "[Request interrupted by user for tool use]"),
        user("u3", "u2", "<command-message>kitchen:recipe</command-message>\n"
                         "<command-name>/kitchen:recipe</command-name>\n<command-args>フィールド選択</command-args>"),
        assistant("a3", "u3", "Recipe loaded.", 20),
        user("u4", "a3", "<bash-input>git status</bash-input>"), user("u5", "u4", "no verify"),
        assistant("a5", "u5", "Committed with --no-verify.", 30),
    ])
    reader = read_transcript(path)
    view = build_context(reader.entries, reader.by_id, reader.leaf)
    thread = extract_thread(view.messages, reader.read_object)
    assert [e.gist for e in thread.key_exchanges if e.role == "user"] == ["push", "no verify"]
    assert thread.summary == "push ... no verify"


def test_triggers_thresholds_turns_margin_compaction_and_the_five_percent_rule() -> None:
    window = ContextWindow(200_000, "store")
    state = TriggerState()
    fired = []
    for tokens in (20_000, 60_000, 110_000, 120_000, 162_000):
        gauge = read_gauge(tokens, window, reserve_floor=20_000)
        trigger, state = decide_trigger(state, gauge, compactions=0, new_user_messages=0)
        fired.append(trigger)
    assert fired == [None, "auto-25pct", "auto-50pct", None, "auto-80pct"]  # 75% was passed with 80%
    gauge = read_gauge(171_000, window, reserve_floor=20_000)
    trigger, state = decide_trigger(state, gauge, compactions=0, new_user_messages=0)
    assert trigger == "pre-compaction-margin"  # the 180k compaction line − a 5% (10k) margin = 170k
    trigger, state = decide_trigger(state, read_gauge(None, window), compactions=1, new_user_messages=0)
    assert trigger == "compaction" and state.fired == frozenset()
    trigger, state = decide_trigger(state, read_gauge(5_000, window), compactions=1,
                                    new_user_messages=TURNS_PER_CHECKPOINT)
    assert trigger == "turns"
    assert should_skip("auto-80pct", 102_000, 100_000) and not should_skip("auto-80pct", 106_000, 100_000)
    assert not should_skip("manual", 100_000, 100_000) and not should_skip("compaction", 100_000, 100_000)


def test_sidecar_follows_appends_and_writes_the_expected_checkpoints(tmp_path: Path) -> None:
    lines = V1_LEGACY.read_bytes().splitlines(keepends=True)
    live = tmp_path / "sessions" / "pi.jsonl"
    live.parent.mkdir()
    live.write_bytes(b"".join(lines[:200]))
    manager = ContextManager(Config(state_dir=tmp_path / "state"), clock=Clock())
    manager.add_all(discover_sessions([live]).sessions)
    triggers = [e.trigger for e in manager.step_all() if e.kind == "checkpoint"]
    for start in range(200, len(lines), 100):
        with live.open("ab") as handle:
            handle.write(b"".join(lines[start : start + 100]))
        triggers += [e.trigger for e in manager.step_all() if e.kind == "checkpoint"]
    assert triggers[0] == "auto-25pct"
    assert "auto-50pct" in triggers and "auto-80pct" in triggers
    assert triggers.index("auto-50pct") < triggers.index("auto-80pct")
    key = next(iter(manager.sessions))
    refs = list_checkpoints(tmp_path / "state", key)
    assert len(refs) == 5  # retention
    newest = read_checkpoint(refs[-1])
    assert newest.meta.token_usage.utilization >= 0.8
    assert newest.resources.tools_used and newest.thread.summary
    assert (tmp_path / "state" / "context" / "audit.jsonl").read_text().count('"action":"checkpoint"') == len(triggers)


def test_compaction_detected_live_writes_a_compaction_checkpoint(tmp_path: Path) -> None:
    path = write(tmp_path / "c.jsonl", [user("u1", None, "start"), assistant("a1", "u1", "ok", 9000)])
    manager = ContextManager(Config(state_dir=tmp_path / "state"), clock=Clock())
    manager.add_all(discover_sessions([path]).sessions)
    manager.step_all()
    with path.open("ab") as handle:
        handle.write(orjson.dumps(compaction("k1", "a1", "u1")) + b"\n")
    events = manager.step_all()
    kinds = [e.kind for e in events]
    assert kinds[0] == "compaction" and "checkpoint" in kinds
    assert next(e for e in events if e.kind == "checkpoint").trigger == "compaction"


def test_without_automatic_checkpoints_a_compaction_is_reported_once(tmp_path: Path) -> None:
    path = write(tmp_path / "c.jsonl", [user("u1", None, "start"), assistant("a1", "u1", "ok", 9000)])
    manager = ContextManager(Config(state_dir=tmp_path / "state"), clock=Clock(), auto_checkpoints=False)
    manager.add_all(discover_sessions([path]).sessions)
    manager.step_all()
    with path.open("ab") as handle:
        handle.write(orjson.dumps(compaction("k1", "a1", "u1")) + b"\n")
    assert [e.kind for e in manager.step_all()].count("compaction") == 1
    with path.open("ab") as handle:
        handle.write(orjson.dumps(user("u2", "k1", "go on")) + b"\n")
    assert "compaction" not in [e.kind for e in manager.step_all()]


def test_manual_checkpoint_then_inject_appends_a_custom_message(tmp_path: Path) -> None:
    live = tmp_path / "agent.jsonl"
    shutil.copy(MAIN_SESSION, live)
    before = live.read_bytes()
    source = discover_sessions([live]).sessions[0]
    manager = ContextManager(Config(state_dir=tmp_path / "state"), clock=Clock(), auto_checkpoints=False)
    manager.add(source)
    event = manager.write(source.key, "manual")
    assert event.kind == "checkpoint"
    loaded = latest_checkpoint(tmp_path / "state", source.key)
    assert loaded is not None and loaded.checkpoint.meta.trigger == "manual"

    plan = plan_inject(source, tmp_path / "state")
    assert plan.rendered.tokens <= 700
    result = apply_inject(plan)
    after = live.read_bytes()
    assert after.startswith(before)
    appended = orjson.loads(after[len(before):])
    assert appended["customType"] == CHECKPOINT_CUSTOM_TYPE and appended["display"] is False
    assert appended["parentId"] == read_transcript(MAIN_SESSION).leaf.id == result.parent_id
    assert "<checkpoint-data" in appended["content"]
    reader = read_transcript(live)
    view = build_context(reader.entries, reader.by_id, reader.leaf)
    assert view.messages[-1].role == "custom"  # pi will send it to the model as a user message


def _busy_session(path: Path) -> Path:
    """Last written at 10:00:02 (the transcript builders' times), 85% of a 200k window: past a checkpoint line."""
    return write(path, [user("u1", None, "go on"), assistant("a1", "u1", "working on it", 170_000)])


@pytest.mark.parametrize(("idle", "written_at_start"), [(3600.0, False), (86_400.0, True)])
def test_a_session_idle_longer_than_auto_checkpoint_idle_is_left_alone_until_it_moves(
    tmp_path: Path, idle: float, written_at_start: bool
) -> None:
    path = _busy_session(tmp_path / "s.jsonl")
    state = tmp_path / "state"
    manager = ContextManager(Config(state_dir=state, auto_checkpoint_idle=idle), clock=Clock())  # 2 h later
    manager.add_all(discover_sessions([path]).sessions)
    key = next(iter(manager.sessions))
    started = [e for e in manager.step_all() if e.kind == "checkpoint"]
    assert bool(started) is written_at_start
    assert bool(list_checkpoints(state, key)) is written_at_start
    if not written_at_start:
        assert not (state / "context").exists()  # nothing at all written for it: no state, no audit line
    with path.open("ab") as handle:
        handle.write(orjson.dumps(user("u2", "a1", "and now?")) + b"\n")
    moved = [e for e in manager.step_all() if e.kind == "checkpoint"]
    assert bool(moved) is not written_at_start  # it moved: the line it is past is checkpointed now
    assert list_checkpoints(state, key)


def test_a_manual_checkpoint_of_a_session_left_alone_as_idle_holds_everything(tmp_path: Path) -> None:
    path = _decision_session(tmp_path / "s.jsonl")
    manager = ContextManager(Config(state_dir=tmp_path / "state", auto_checkpoint_idle=60.0), clock=Clock())
    manager.add_all(discover_sessions([path]).sessions)
    key = next(iter(manager.sessions))
    assert not [e for e in manager.step_all() if e.kind == "checkpoint"]  # idle: read, not captured
    event = manager.write(key, "manual")
    assert event.kind == "checkpoint"
    cp = read_checkpoint(list_checkpoints(tmp_path / "state", key)[-1])
    assert {"edit", "read"} <= set(cp.resources.tools_used)
    assert "src/net/retry.ts" in cp.resources.files_modified and cp.decisions


def test_a_view_of_a_session_left_alone_as_idle_captures_it_in_memory_and_writes_nothing(tmp_path: Path) -> None:
    # The Decisions tab said "none recognised yet" on any old session opened in the TUI: the sidecar leaves an idle
    # session uncaptured until it moves, and the tab read that empty state.
    path = _decision_session(tmp_path / "s.jsonl")
    state = tmp_path / "state"
    manager = ContextManager(Config(state_dir=state, auto_checkpoint_idle=60.0), clock=Clock())
    manager.add_all(discover_sessions([path]).sessions)
    key = next(iter(manager.sessions))
    manager.step_all()
    assert manager.session(key).state.decisions == ()  # idle: read, not captured
    viewed = manager.viewed_state(key)
    assert viewed.decisions and "src/net/retry.ts" in viewed.files_modified
    assert not state.exists()  # a view writes nothing
    assert manager.viewed_state(key) is viewed  # captured once, not again on every look
    with path.open("ab") as handle:  # it moves: the next step captures only what is new, then saves
        handle.write(orjson.dumps(user("u9", read_transcript(path).leaf.id, "thanks")) + b"\n")
    manager.step_all()
    after = manager.session(key).state
    assert after.decisions == viewed.decisions and after.real_user_messages == viewed.real_user_messages + 1


@pytest.mark.parametrize(("reply", "decided"), [("yes, do it", True), ("hmm, let me think about it", False)])
def test_capture_takes_a_proposal_ending_in_a_question_once_the_user_says_yes(
    tmp_path: Path, reply: str, decided: bool
) -> None:
    # The demo showed "Decisions (0)": capture did not pass the reply, and "Decision: …  Go ahead?" alone is
    # only a proposal. Written after the fix, not taken from the labelled data.
    decision = ("Decision: put the webhook receiver behind its own queue. A slow consumer then delays only "
                "webhooks, never the checkout path, and a redelivery storm stays out of the API pods.")
    response = ("Yesterday's incident came from the webhook handler running inside the API pods: when the "
                "shipping partner resent 40,000 events, checkout latency went to 9 s.\n\n" + decision +
                "\n\nI'd add a dead-letter queue for events that fail five times. Go ahead?")
    reader = read_transcript(write(tmp_path / "s.jsonl", [
        user("u1", None, "Why did checkout slow down yesterday afternoon?"),
        assistant("a1", "u1", response, 1000),
        user("u2", "a1", reply),
    ]))
    state = capture(CapturedState(), build_context(reader.entries, reader.by_id, reader.leaf).path,
                    reader.read_object)
    assert [d.what for d in state.decisions] == ([decision] if decided else [])
