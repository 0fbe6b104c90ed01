"""Applying compaction plans: the jsonl controller on real fixtures, checkpoint message, re-plan, locks,
a concurrent writer, the gateway controller against a fake ``openclaw``, and the audit log."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.agents.discovery import discover_sessions
from engine.checkpoints.inject import CHECKPOINT_CUSTOM_TYPE
from engine.compaction.archive import read_archive
from engine.compaction.controllers import CompactionRefusedError, GatewayError, apply_compaction, gateway_argv
from engine.compaction.planner import plan_compaction
from engine.config.compaction_settings import CompactionSettings
from engine.config.loader import Config
from engine.fs.audit import read_audit
from engine.fs.jsonl_append import append_entries
from engine.fs.session_lock import LockHeldError, inspect_lock, lock_path_for
from engine.sidecar import ContextManager
from tests.conftest import ENDS_ON_COMPACTION, MAIN_SESSION, SESSIONS_JSON
from tests.engine._compaction import (
    coding_session,
    context_of,
    context_tokens,
    copy_fixture,
    lines_of,
    live_v3_fixtures,
    plan_for,
    source_of,
)
from tests.engine._message_writer import turn
from tests.engine._transcripts import HEADER
from tests.engine.test_compaction import generated_sessions
from tests.engine.test_jsonl_append import assert_chained, last_entry_id
from tests.engine.test_sqlite_store import build_db

HOLDER = Path(__file__).with_name("_writer_child.py")
WRITER = Path(__file__).with_name("_message_writer.py")
TURNS_PER_COMPACTION = 60


def test_every_live_v3_fixture_is_compacted_by_appending_one_entry(tmp_path: Path) -> None:
    fixtures = live_v3_fixtures()
    assert len(fixtures) == 3
    for fixture in fixtures:
        copy = copy_fixture(fixture, tmp_path / fixture.stem[-12:])
        original = copy.read_bytes()
        follower, plan = plan_for(copy, "summarize", tmp_path / "state", keep_recent=2000)
        if fixture == ENDS_ON_COMPACTION:
            # pi refuses too ("Already compacted"): the last entry is already a compaction.
            with pytest.raises(CompactionRefusedError, match="already ends on a compaction"):
                apply_compaction(plan, follower=follower, state_dir=tmp_path / "state")
            assert copy.read_bytes() == original
            continue
        before = context_tokens(copy)
        old_leaf = last_entry_id(original)
        result = apply_compaction(plan, follower=follower, state_dir=tmp_path / "state")
        data = copy.read_bytes()
        assert data.startswith(original) and data.endswith(b"\n")
        new = lines_of(data[len(original):])
        assert [e["type"] for e in new] == ["compaction"]
        entry = new[0]
        assert entry["parentId"] == old_leaf == result.parent_id
        assert entry["id"] == result.entry_ids[0]
        assert entry["firstKeptEntryId"] == plan.first_kept_entry_id
        assert entry["summary"] == plan.summary and entry["fromHook"] is False
        assert entry["details"] == {"readFiles": list(plan.read_files), "modifiedFiles": list(plan.modified_files)}
        view, _ = context_of(copy)
        assert view.leaf is not None and view.leaf.id == entry["id"]
        assert view.messages[0].role == "compactionSummary" and view.messages[0].entry.id == entry["id"]
        assert tuple(m.entry_id for m in view.messages[1:]) == plan.kept_ids
        after = context_tokens(copy)
        assert after < before
        assert after == plan.tokens_after


def test_checkpoint_message_follows_the_compaction_in_the_same_write(tmp_path: Path) -> None:
    session = coding_session(tmp_path / "s.jsonl", turns=12)
    state = tmp_path / "state"
    manager = ContextManager(Config(state_dir=state), auto_checkpoints=False)
    key = manager.add(source_of(session)).key
    manager.step(key)
    assert manager.write(key, "manual").kind == "checkpoint"
    original = session.read_bytes()
    follower, plan = plan_for(session, "summarize", state, keep_recent=3000)
    assert plan.checkpoint is not None and plan.checkpoint_tokens > 0
    result = apply_compaction(plan, follower=follower, state_dir=state)
    new = lines_of(session.read_bytes()[len(original):])
    assert [e["type"] for e in new] == ["compaction", "custom_message"]
    assert new[0]["parentId"] == last_entry_id(original) and new[1]["parentId"] == new[0]["id"]
    assert new[1]["customType"] == CHECKPOINT_CUSTOM_TYPE and new[1]["display"] is False
    assert new[1]["content"].startswith("<checkpoint-data")
    assert result.bytes_written == len(session.read_bytes()) - len(original)
    view, _ = context_of(session)
    assert view.leaf is not None and view.leaf.id == new[1]["id"]
    assert view.messages[-1].entry.id == new[1]["id"]
    assert context_tokens(session) == plan.tokens_after


def test_the_plan_is_recomputed_when_the_agent_moved_the_leaf(tmp_path: Path) -> None:
    session = coding_session(tmp_path / "s.jsonl", turns=8)
    follower, plan = plan_for(session, "summarize", tmp_path / "state", keep_recent=2000)
    moved = append_entries(session, lambda _leaf: turn("agent", 1, random.Random(1)) * 3)
    result = apply_compaction(plan, follower=follower, state_dir=tmp_path / "state")
    assert result.replanned and result.plan is not plan
    assert result.parent_id == moved.entry_ids[-1]
    assert result.plan.leaf_id == moved.entry_ids[-1]
    view, _ = context_of(session)
    assert view.kept_entry_found
    assert tuple(m.entry_id for m in view.messages[1:]) == result.plan.kept_ids
    assert set(moved.entry_ids[-4:]) <= set(result.plan.kept_ids) | {moved.entry_ids[-2]}


def test_a_live_lock_is_never_broken(tmp_path: Path) -> None:
    session = coding_session(tmp_path / "s.jsonl", turns=6)
    holder = subprocess.Popen([sys.executable, str(HOLDER), "hold", str(session)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None
    try:
        assert holder.stdout.readline() == "ready\n"
        before = session.read_bytes()
        follower, plan = plan_for(session, "summarize", tmp_path / "state", keep_recent=2000)
        assert any(f"pid {holder.pid}" in w for w in plan.warnings)
        with pytest.raises(LockHeldError, match=f"pid {holder.pid}"):
            apply_compaction(plan, follower=follower, state_dir=tmp_path / "state", lock_timeout=0.5)
        assert session.read_bytes() == before
        info = inspect_lock(session)
        assert info is not None and info.pid == holder.pid and not info.stale
        record = list(read_audit(tmp_path / "state"))[-1]
        assert record.result == "failed" and str(holder.pid) in (record.error or "")
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()


@pytest.mark.parametrize("kind", ["dead-pid", "too-old"])
def test_a_stale_lock_is_taken_over(tmp_path: Path, kind: str) -> None:
    session = coding_session(tmp_path / "s.jsonl", turns=6)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        if kind == "dead-pid":
            sleeper.kill()
            sleeper.wait()
            created = datetime.now(UTC)
        else:
            created = datetime.now(UTC) - timedelta(minutes=31)
        payload = {"pid": sleeper.pid, "createdAt": created.isoformat(timespec="milliseconds").replace("+00:00", "Z")}
        lock_path_for(session).write_text(json.dumps(payload, indent=2))
        follower, plan = plan_for(session, "summarize", tmp_path / "state", keep_recent=2000)
        assert any("stale lock" in w for w in plan.warnings)
        result = apply_compaction(plan, follower=follower, state_dir=tmp_path / "state", lock_timeout=1.0)
        assert result.entry_ids and inspect_lock(session) is None
    finally:
        sleeper.kill()
        sleeper.wait()


def test_an_exact_apply_writes_the_plan_shown_or_nothing(tmp_path: Path) -> None:
    session = coding_session(tmp_path / "s.jsonl", turns=8)
    follower, plan = plan_for(session, "summarize", tmp_path / "state", keep_recent=2000)
    append_entries(session, lambda _leaf: turn("agent", 1, random.Random(1)))
    # The agent only appended on the planned branch: the plan shown is kept (its cut and summary), chained after.
    result = apply_compaction(plan, follower=follower, state_dir=tmp_path / "state", exact=True)
    assert not result.replanned and result.plan is plan
    assert any("kept verbatim" in w for w in result.warnings)
    # A compaction of the agent's own since the preview changes what the plan cuts: refused, nothing written.
    follower, fresh = plan_for(session, "summarize", tmp_path / "state", keep_recent=2000)
    append_entries(session, lambda leaf: [{
        "type": "compaction", "id": "agentcmp", "parentId": leaf, "timestamp": "2026-05-05T15:04:00.000Z",
        "summary": "## Goal\nKeep going.", "firstKeptEntryId": leaf, "tokensBefore": 1_000}])
    before = session.read_bytes()
    with pytest.raises(CompactionRefusedError):
        apply_compaction(fresh, follower=follower, state_dir=tmp_path / "state", exact=True)
    assert session.read_bytes() == before
    assert list(read_audit(tmp_path / "state"))[-1].result == "refused"


@pytest.mark.reliability
def test_compactions_next_to_a_concurrent_writer_chain_to_the_true_leaf(tmp_path: Path) -> None:
    session = coding_session(tmp_path / "s.jsonl", turns=4)
    original = session.read_bytes()
    allowance = tmp_path / "allowance"

    def grant(value: str) -> None:
        (tmp_path / "allowance.tmp").write_text(value)
        (tmp_path / "allowance.tmp").replace(allowance)

    # The writer may run TURNS_PER_COMPACTION turns ahead of our compactions, so on a slow machine it waits for
    # them instead of finishing first, and every compaction still races the writer.
    grant(str(TURNS_PER_COMPACTION))
    writer = subprocess.Popen([sys.executable, str(WRITER), str(session), "0", "w", str(allowance)],
                              stdout=subprocess.PIPE, text=True)
    assert writer.stdout is not None
    outcomes: Counter[str] = Counter()
    try:
        assert writer.stdout.readline() == "ready\n"
        while outcomes["ok"] < 6:
            follower, plan = plan_for(session, "summarize", tmp_path / "state", keep_recent=1500)
            if not plan.applicable:
                outcomes["nothing to compact"] += 1
                continue
            try:
                result = apply_compaction(plan, follower=follower, state_dir=tmp_path / "state", lock_timeout=30.0)
            except CompactionRefusedError:
                outcomes["refused after re-plan"] += 1
                continue
            outcomes["ok"] += 1
            outcomes["re-planned"] += result.replanned
            grant(str(TURNS_PER_COMPACTION * (outcomes["ok"] + 1)))
        grant("stop")
        written = int(writer.stdout.readline().split()[1])
        assert writer.wait(timeout=120) == 0
    finally:
        grant("stop")
        writer.kill()
        writer.wait()
        writer.stdout.close()
    data = session.read_bytes()
    assert data.startswith(original) and data.endswith(b"\n")
    assert_chained(data, len(original))  # every line's parentId is the line physically before it
    entries = lines_of(data)[1:]
    parents = {e["id"]: e["parentId"] for e in entries}
    compactions = [e for e in entries if e["type"] == "compaction"]
    assert len(compactions) == outcomes["ok"] >= 6
    for entry in compactions:
        ancestors, node = set(), entry["parentId"]
        while node is not None:
            ancestors.add(node)
            node = parents.get(node)
        assert entry["firstKeptEntryId"] in ancestors  # the cut is on the path the entry hangs from
    turns = [e for e in entries if e["type"] == "message" and e["message"]["role"] == "user"
             and str(e["message"]["content"]).startswith("w-")]
    assert [int(str(e["message"]["content"]).split(":")[0][2:]) for e in turns] == list(range(written))
    print(f"concurrent writer: {written} turns, compactions {dict(outcomes)}")


def test_drop_only_writes_the_archive_then_the_compaction_and_audits_both(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    session = coding_session(tmp_path / "s.jsonl", turns=6, header={**HEADER, "cwd": str(workspace)})
    config = Config(compaction=CompactionSettings(workspace_roots=(tmp_path,)))  # tmp_path is outside $HOME
    follower, plan = plan_for(session, "drop-only", tmp_path / "state", keep_recent=2000, config=config)
    result = apply_compaction(plan, follower=follower, state_dir=tmp_path / "state")
    assert result.archive is not None and plan.archive is not None
    scan = read_archive(result.archive.path)
    assert [r.record_id for r in scan.records] == [plan.archive.record_id] and not scan.incomplete
    entry = lines_of(session.read_bytes())[-1]
    assert entry["type"] == "compaction" and "\n" not in entry["summary"]
    assert plan.archive.record_id in entry["summary"]
    actions = [(r.action, r.result) for r in read_audit(tmp_path / "state")]
    assert actions == [("archive", "ok"), ("compact", "ok")]
    audit = list(read_audit(tmp_path / "state"))[-1]
    assert audit.params["layer"] == "drop-only" and audit.plan["entry_ids"] == list(result.entry_ids)
    assert "summary" not in audit.plan  # never transcript text in the audit log


def test_prune_is_audited_as_prune_and_refusals_are_audited(tmp_path: Path) -> None:
    session = coding_session(tmp_path / "s.jsonl", turns=6)
    follower, plan = plan_for(session, "prune", tmp_path / "state", keep_recent=2000)
    apply_compaction(plan, follower=follower, state_dir=tmp_path / "state")
    follower, again = plan_for(session, "prune", tmp_path / "state", keep_recent=2000)
    with pytest.raises(CompactionRefusedError):
        apply_compaction(again, follower=follower, state_dir=tmp_path / "state")
    assert [(r.action, r.result) for r in read_audit(tmp_path / "state")] == [("prune", "ok"), ("prune", "refused")]


FAKE_OPENCLAW = """\
#!{python}
import json, os, sys
with open(os.environ["FAKE_OPENCLAW_LOG"], "a") as log:
    log.write(json.dumps(sys.argv[1:]) + "\\n")
mode = os.environ.get("FAKE_OPENCLAW_MODE", "ok")
if mode == "fail":
    print("gateway closed (1006): no close reason", file=sys.stderr)
    sys.exit(3)
if mode == "garbage":
    print("Gateway call failed? <html>")
    sys.exit(0)
if mode == "refused":
    print(json.dumps({{"ok": False, "error": "session is busy"}}))
    sys.exit(0)
print(json.dumps({{"ok": True, "key": "agent:main:main", "compacted": True,
                  "result": {{"tokensBefore": 21582, "tokensAfter": 6000}}}}))
"""


@pytest.fixture
def fake_openclaw(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "openclaw"
    script.write_text(FAKE_OPENCLAW.format(python=sys.executable))
    script.chmod(0o755)
    log = tmp_path / "openclaw.log"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_OPENCLAW_LOG", str(log))
    return log


def _openclaw_session(tmp_path: Path) -> Path:
    sessions = tmp_path / "state" / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    shutil.copyfile(SESSIONS_JSON, sessions / "sessions.json")
    return copy_fixture(MAIN_SESSION, sessions).rename(sessions / "76cc5ab5-0425-4038-b41f-0af9f313d594.jsonl")


def test_gateway_controller_calls_sessions_compact_without_max_lines(
    tmp_path: Path, fake_openclaw: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    transcript = _openclaw_session(tmp_path)
    before = transcript.read_bytes()
    follower, plan = plan_for(transcript, "summarize", tmp_path / "ctx", keep_recent=2000, controller="gateway")
    assert plan.controller == "gateway" and plan.session_key == "agent:main:main"
    result = apply_compaction(plan, follower=follower, state_dir=tmp_path / "ctx")
    calls = [json.loads(line) for line in fake_openclaw.read_text().splitlines()]
    assert calls == [["gateway", "call", "sessions.compact", "--params", '{"key": "agent:main:main"}', "--json",
                      "--timeout", "600000"]]
    assert "maxLines" not in fake_openclaw.read_text()
    assert result.gateway_response == {"ok": True, "key": "agent:main:main", "compacted": True,
                                       "result": {"tokensBefore": 21582, "tokensAfter": 6000}}
    assert transcript.read_bytes() == before  # the gateway writes the transcript, not ctxscope
    assert list(read_audit(tmp_path / "ctx"))[-1].plan["response"]["compacted"] is True

    focused = plan_compaction(follower.refresh(), "summarize", "the SSH key setup", keep_recent=2000,
                              load=follower.reader.read_object, state_dir=tmp_path / "ctx", controller="gateway")
    apply_compaction(focused, follower=follower, state_dir=tmp_path / "ctx")
    argv = json.loads(fake_openclaw.read_text().splitlines()[-1])
    assert argv[:3] == ["gateway", "call", "chat.send"] and argv[3] == "--params" and argv[5] == "--json"
    params = json.loads(argv[4])
    assert params["sessionKey"] == "agent:main:main" and params["message"] == "/compact the SSH key setup"
    assert params["idempotencyKey"].startswith("ctxscope-")

    for mode, message in (("fail", "exit 3.*gateway closed"), ("garbage", "not JSON"), ("refused", "session is busy")):
        monkeypatch.setenv("FAKE_OPENCLAW_MODE", mode)
        with pytest.raises(GatewayError, match=message):
            apply_compaction(plan, follower=follower, state_dir=tmp_path / "ctx")
    assert [r.result for r in read_audit(tmp_path / "ctx")][-3:] == ["failed"] * 3


def test_gateway_argv_never_passes_max_lines(tmp_path: Path) -> None:
    transcript = _openclaw_session(tmp_path)
    _, plan = plan_for(transcript, "full", tmp_path / "ctx", keep_recent=2000, controller="gateway")
    argv = gateway_argv(plan, "/opt/openclaw").argv
    assert argv[0] == "/opt/openclaw" and "maxLines" not in " ".join(argv)


def test_missing_openclaw_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    transcript = _openclaw_session(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    follower, plan = plan_for(transcript, "summarize", tmp_path / "ctx", keep_recent=2000, controller="gateway")
    with pytest.raises(GatewayError, match="not found on PATH"):
        apply_compaction(plan, follower=follower, state_dir=tmp_path / "ctx")


def test_sqlite_sessions_only_go_through_the_gateway(tmp_path: Path, fake_openclaw: Path) -> None:
    agent_dir = tmp_path / "agents" / "main" / "agent"
    agent_dir.mkdir(parents=True)
    db = agent_dir / "openclaw-agent.sqlite"
    build_db(db)
    source = discover_sessions([db]).sessions[0]
    before = db.read_bytes()
    from engine.session.snapshot import SessionFollower

    follower = SessionFollower(source)
    snapshot = follower.refresh()
    refused = plan_compaction(snapshot, "summarize", keep_recent=2000, load=follower.reader.read_object,
                              state_dir=tmp_path / "ctx", controller="jsonl")
    assert refused.controller == "none" and "only the gateway writes" in refused.blocked[0]
    plan = plan_compaction(snapshot, "summarize", keep_recent=2000, load=follower.reader.read_object,
                           state_dir=tmp_path / "ctx")
    assert plan.controller == "gateway" and plan.applicable
    apply_compaction(plan, follower=follower, state_dir=tmp_path / "ctx")
    assert json.loads(fake_openclaw.read_text())[2] == "sessions.compact"
    assert db.read_bytes() == before


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=generated_sessions(), layer=st.sampled_from(["prune", "summarize", "full", "drop-only"]),
       keep=st.integers(0, 3000))
def test_applied_compaction_never_increases_the_context(
    tmp_path_factory: pytest.TempPathFactory, entries: list[dict[str, object]], layer: str, keep: int
) -> None:
    root = tmp_path_factory.mktemp("apply")
    header = {**HEADER, "cwd": str(root / "ws")}
    session = root / "s.jsonl"
    session.write_bytes(orjson.dumps(header) + b"\n" + b"".join(orjson.dumps(e) + b"\n" for e in entries))
    before_bytes, before = session.read_bytes(), context_tokens(session)
    follower, plan = plan_for(session, layer, root / "state", keep_recent=keep)
    if not plan.applicable:
        return
    apply_compaction(plan, follower=follower, state_dir=root / "state")
    assert session.read_bytes().startswith(before_bytes)
    assert context_tokens(session) < before


def test_agent_activity_is_warned_about(tmp_path: Path) -> None:
    session = coding_session(tmp_path / "s.jsonl", turns=6)
    now = time.time()
    os.utime(session, (now, now))
    _, plan = plan_for(session, "summarize", tmp_path / "state", keep_recent=2000)
    assert any("agent may be mid-run" in w for w in plan.warnings)


def test_pinned_messages_survive_successive_compactions(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    session = coding_session(tmp_path / "s.jsonl", turns=6, labels=[("u1", "the original ask")],
                             header={**HEADER, "cwd": str(workspace)})
    config = Config(compaction=CompactionSettings(workspace_roots=(tmp_path,)))  # tmp_path is outside $HOME
    pinned_text = "turn 1: please fix services/app1.py, see https://tracker.example.com/T-1"
    for layer in ("summarize", "prune", "full", "drop-only"):
        turns = [{k: v for k, v in e.items() if k not in ("id", "parentId")}
                 for n in range(6) for e in turn(layer, n, random.Random(n))]
        append_entries(session, lambda _leaf, turns=turns: turns)
        follower, plan = plan_for(session, layer, tmp_path / "state", keep_recent=800, config=config)
        assert plan.applicable, plan.blocked
        apply_compaction(plan, follower=follower, state_dir=tmp_path / "state", config=config)
        view, _ = context_of(session)
        assert pinned_text in lines_of(session.read_bytes())[-1]["summary"], layer
        assert view.messages[0].role == "compactionSummary"
