"""What ctxscope reads from OpenClaw 2026.9.6's database against what OpenClaw wrote there.

Rewinds, archived sessions, several sessions in one database, last activity, windows from ``openclaw.json``,
recorded cost, and a legacy JSONL transcript left beside the database.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.conftest import MAIN_SESSION, SESSIONS_JSON
from tests.realagents.fake_model import FakeModelServer, message_text
from tests.realagents.openclaw import ctxscope_side as cs
from tests.realagents.openclaw.harness import OpenClawHome, copy_store
from tests.realagents.openclaw.responder import is_main_turn
from tests.realagents.openclaw.store import read_store

pytestmark = pytest.mark.realagents


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat().replace("+00:00", "Z")


def test_a_rewind_moves_the_leaf(oc: OpenClawHome) -> None:
    key = "agent:main:rewind"
    for i in range(3):
        oc.agent(key, f"rewind turn {i}")
    store = read_store(oc.agent_dir)
    events = store.current_events(key)
    users = [e for e in events if e.get("type") == "message" and e["message"].get("role") == "user"]
    before = cs.status_row(oc.env, key)
    answer = oc.call("sessions.rewind", {"sessionKey": key, "entryId": users[1]["id"]})
    assert answer.get("ok") is not False, answer

    store = read_store(oc.agent_dir)
    leaf = store.current_events(key)[-1]
    assert leaf["type"] == "leaf"
    target = leaf["targetId"]
    assert store.leaves[store.row(key).session_id] == target  # OpenClaw's own index agrees
    row = cs.status_row(oc.env, key)
    assert row["leaf_id"] == target and row["session_id"] == store.row(key).session_id
    # The context is what OpenClaw now sends: up to the first turn's reply, measured by its usage.
    by_id = {e.get("id"): e for e in store.current_events(key)}
    path = []
    node = by_id.get(target)
    while node is not None:
        path.append(node)
        node = by_id.get(node.get("parentId"))
    replies = [e for e in path if e.get("type") == "message" and e["message"].get("role") == "assistant"]
    usage = replies[0]["message"]["usage"]
    assert row["context_tokens"] == usage["input"] + usage["output"] < before["context_tokens"], (row, before)
    # The rewound row carries no contextTokens: the window is the model's in openclaw.json, not 200,000.
    assert row["context_window"] == oc.model_entry()["contextWindow"]


def test_archived_sessions_read_as_archived_and_are_never_compacted(oc: OpenClawHome) -> None:
    key = "agent:main:archived"
    oc.agent(key, "archive me")
    sid = read_store(oc.agent_dir).row(key).session_id
    answer = oc.call("sessions.patch", {"key": key, "archived": True, "expectedSessionId": sid})
    assert answer.get("ok") is True, answer
    assert read_store(oc.agent_dir).row(key).archived_at is not None
    row = cs.status_row(oc.env, key)
    assert row["kind"] == "archive" and row["entries"] > 0
    out = cs.compact(oc.env, key)
    assert out.returncode == 4 and "archived" in out.stderr, out.describe()
    assert "compactionCount" not in read_store(oc.agent_dir).row(key).entry


def test_a_database_with_several_sessions_asks_for_the_key(oc: OpenClawHome) -> None:
    oc.agent("agent:main:one", "one")
    oc.agent("agent:main:two", "two")
    keys = set(read_store(oc.agent_dir).sessions)
    assert len(keys) >= 2
    out = cs.inspect(oc.env, str(oc.db))
    assert out.returncode == 3, out.describe()
    assert "agent:main:one" in out.stderr and "agent:main:two" in out.stderr
    listed = {r["key"] for r in cs.status(oc.env, oc.db)}
    assert keys <= listed
    chosen = cs.inspect(oc.env, "agent:main:two", where=oc.db)
    assert chosen.returncode == 0 and chosen.json()["key"] == "agent:main:two", chosen.describe()


def test_last_activity_window_and_cost_come_from_openclaw(oc: OpenClawHome, tmp_path: Path) -> None:
    key = "agent:main:facts"
    oc.agent(key, "facts turn 1")
    oc.agent(key, "facts turn 2")
    store = read_store(oc.agent_dir)
    row = store.row(key)
    status = cs.status_row(oc.env, key)
    assert row.last_activity_at is not None and status["last_activity"] == _iso(row.last_activity_at)
    # Recorded cost first: OpenClaw's own estimate, labelled.
    inspected = cs.inspect(oc.env, key)
    assert inspected.returncode == 0, inspected.describe()
    spend = inspected.json()["spend"]
    recorded = sum(
        e["message"]["usage"]["cost"]["total"] for e in store.current_events(key)
        if e.get("type") == "message" and e["message"].get("role") == "assistant" and e["message"].get("usage")
    )
    assert recorded > 0
    assert spend["source"] == "usage.cost" and spend["unpriced_calls"] == 0
    assert spend["usd"] == pytest.approx(recorded)

    # A row without contextTokens: the window comes from openclaw.json (here changed to 64,000), not 200,000.
    state = tmp_path / "state"
    db = copy_store(oc.agent_dir, state / "agents" / "main" / "agent")
    config = oc.config()
    config["models"]["providers"]["fake"]["models"][0]["contextWindow"] = 64_000
    (state / "openclaw.json").write_text(json.dumps(config))
    with sqlite3.connect(db) as connection:
        entry = json.loads(connection.execute("SELECT entry_json FROM session_nodes WHERE session_key = ?",
                                              (key,)).fetchone()[0])
        entry.pop("contextTokens", None)
        connection.execute("UPDATE session_nodes SET entry_json = ? WHERE session_key = ?", (json.dumps(entry), key))
    env = {**oc.env, "OPENCLAW_STATE_DIR": str(state)}
    copied = cs.status_row(env, key, db)
    assert copied["context_window"] == 64_000 and copied["context_window_source"] == "openclaw.json", copied


def test_a_legacy_jsonl_beside_the_database_is_read_only_and_never_ambiguous(oc: OpenClawHome, tmp_path: Path) -> None:
    key = "agent:main:main"
    oc.agent(key, "the main session lives in SQLite")
    state = tmp_path / "state"
    copy_store(oc.agent_dir, state / "agents" / "main" / "agent")
    shutil.copy2(oc.config_path, state / "openclaw.json")
    sessions = state / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    legacy = sessions / "76cc5ab5-0425-4038-b41f-0af9f313d594.jsonl"
    shutil.copy2(MAIN_SESSION, legacy)
    shutil.copy2(SESSIONS_JSON, sessions / "sessions.json")
    legacy_bytes = legacy.read_bytes()
    # HOME elsewhere too: its ~/.openclaw is the live home, which discovery would list as well.
    env = {**oc.env, "OPENCLAW_STATE_DIR": str(state), "HOME": str(tmp_path / "home")}

    rows = [r for r in cs.status(env) if r["key"] == key]
    assert sorted(r["kind"] for r in rows) == ["legacy", "live"], rows
    assert next(r for r in rows if r["kind"] == "live")["format"] == "openclaw-sqlite"
    human = cs.ctxscope("status", env=env)
    assert "legacy" in human.stdout, human.describe()
    inspected = cs.inspect(env, key)
    assert inspected.returncode == 0, inspected.describe()
    assert inspected.json()["format"] == "openclaw-sqlite"
    out = cs.compact(env, str(legacy), "--controller", "jsonl")
    assert out.returncode == 4 and "legacy" in out.stderr, out.describe()
    assert legacy.read_bytes() == legacy_bytes


def test_a_reset_starts_the_context_afresh(oc: OpenClawHome, fake_model: FakeModelServer) -> None:
    key = "agent:main:reset"
    oc.agent(key, "reset turn 0: the old context")
    oc.agent(key, "reset turn 1: still the old context")
    before = cs.status_row(oc.env, key)
    answer = oc.call("sessions.reset", {"key": key})
    assert answer.get("ok") is True, answer
    store = read_store(oc.agent_dir)
    assert any(e.get("type") == "reset" for e in store.current_events(key)), "OpenClaw wrote no reset event"
    row = cs.status_row(oc.env, key)
    assert row["kind"] == "live" and row["context_tokens"] == 0 < before["context_tokens"], row

    fake_model.clear()
    oc.agent(key, "reset turn 2: a fresh start")
    sent = [message_text(m) for r in fake_model.requests if is_main_turn(r) for m in r["messages"]]
    assert not any("the old context" in text for text in sent), "OpenClaw sent pre-reset messages"
    store = read_store(oc.agent_dir)
    replies = [e for e in store.current_events(key)
               if e.get("type") == "message" and e["message"].get("role") == "assistant"]
    usage = replies[-1]["message"]["usage"]
    row = cs.status_row(oc.env, key)
    assert row["context_tokens"] == usage["input"] + usage["output"], row
