"""The gateway controller reports what the store shows, not only what the gateway's answer says.

A fake ``openclaw`` stands in for the CLI: it may write a compaction event into the SQLite store (as the real
gateway does) and then answer late, answer "not compacted", or only say "started".
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from engine.agents.discovery import discover_sessions
from engine.compaction.controllers import GatewayError, NotCompactedError, apply_compaction
from engine.compaction.planner import plan_compaction
from engine.fs.audit import read_audit
from engine.session.snapshot import SessionFollower
from tests.engine.test_sqlite_store import build_db

FAKE = """\
#!{python}
import json, os, sqlite3, sys
argv = sys.argv[1:]
with open(os.environ["FAKE_LOG"], "a") as log:
    log.write(json.dumps(argv) + "\\n")
mode = os.environ["FAKE_MODE"]
db = os.environ["FAKE_DB"]
params = json.loads(argv[argv.index("--params") + 1])

def write_compaction(extra=None):
    c = sqlite3.connect(db)
    seq = c.execute("SELECT max(seq) FROM transcript_events").fetchone()[0] + 1
    if extra is not None:
        c.execute("INSERT INTO transcript_events VALUES ('s-1', ?, ?, 1, NULL, 0)", (seq, json.dumps(extra)))
        seq += 1
    event = {{"type": "compaction", "id": "gw-compaction-1", "parentId": None, "summary": "s",
             "firstKeptEntryId": None, "tokensBefore": 21582, "tokensAfter": 1711}}
    c.execute("INSERT INTO transcript_events VALUES ('s-1', ?, ?, 1, NULL, 0)", (seq, json.dumps(event)))
    c.execute("UPDATE session_nodes SET entry_json = json_set(entry_json, '$.compactionCount', 4)")
    c.commit()
    c.close()

if mode == "late":
    write_compaction()
    print(json.dumps({{"ok": False, "error": {{"type": "gateway_transport_error", "kind": "timeout",
                                               "message": "gateway timeout after 10000ms"}}}}))
    sys.exit(1)
if mode == "lost":
    print(json.dumps({{"ok": False, "error": {{"kind": "timeout", "message": "gateway timeout after 10000ms"}}}}))
    sys.exit(1)
if mode == "no":
    print(json.dumps({{"ok": True, "key": params["key"], "compacted": False, "reason": "no sessionId"}}))
    sys.exit(0)
if mode == "already":
    print(json.dumps({{"ok": False, "key": params["key"], "compacted": False, "reason": "Already compacted"}}))
    sys.exit(0)
if mode == "started":
    key = params["idempotencyKey"]
    write_compaction({{"type": "message", "id": "u-compact", "parentId": None,
                      "message": {{"role": "user", "content": params["message"], "idempotencyKey": key + ":user"}}}})
    print(json.dumps({{"runId": key, "status": "started"}}))
    sys.exit(0)
if mode == "declined":
    key = params["idempotencyKey"]
    c = sqlite3.connect(db)
    seq = c.execute("SELECT max(seq) FROM transcript_events").fetchone()[0] + 1
    for i, event in enumerate((
        {{"type": "message", "id": "u-c", "parentId": None,
          "message": {{"role": "user", "content": params["message"], "idempotencyKey": key + ":user"}}}},
        {{"type": "message", "id": "a-c", "parentId": "u-c",
          "message": {{"role": "assistant", "content": [{{"type": "text", "text": "Compaction skipped: too small"}}],
                      "idempotencyKey": key, "provider": "openclaw", "model": "gateway-injected"}}}},
    )):
        c.execute("INSERT INTO transcript_events VALUES ('s-1', ?, ?, 1, NULL, 0)", (seq + i, json.dumps(event)))
    c.commit()
    c.close()
    print(json.dumps({{"runId": key, "status": "started"}}))
    sys.exit(0)
raise SystemExit("unknown mode " + mode)
"""


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    agent_dir = tmp_path / "agents" / "main" / "agent"
    agent_dir.mkdir(parents=True)
    db = agent_dir / "openclaw-agent.sqlite"
    build_db(db)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "openclaw"
    script.write_text(FAKE.format(python=sys.executable))
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_LOG", str(tmp_path / "calls.log"))
    monkeypatch.setenv("FAKE_DB", str(db))
    return db


def _apply(db: Path, state: Path, focus: str | None = None, timeout: float = 30.0) -> object:
    source = discover_sessions([db]).sessions[0]
    follower = SessionFollower(source)
    plan = plan_compaction(follower.refresh(), "summarize", focus, keep_recent=2000,
                           load=follower.reader.read_object, state_dir=state)
    assert plan.controller == "gateway" and not plan.blocked, plan.blocked
    return apply_compaction(plan, follower=follower, state_dir=state, gateway_timeout=timeout)


def test_a_late_answer_is_success_when_the_store_shows_the_compaction(
    store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_MODE", "late")
    result = _apply(store, tmp_path / "ctx")
    outcome = result.gateway  # type: ignore[attr-defined]
    assert outcome.compacted and outcome.verified_by == "store" and outcome.compaction_id == "gw-compaction-1"
    assert (outcome.tokens_before, outcome.tokens_after, outcome.store_compaction_count) == (21582, 1711, 4)
    audit = list(read_audit(tmp_path / "ctx"))[-1]
    assert audit.result == "ok" and audit.plan["verified_by"] == "store"
    call = json.loads((tmp_path / "calls.log").read_text().splitlines()[-1])
    assert call[call.index("--timeout") + 1] == "30000"


def test_a_lost_answer_without_a_compaction_is_a_failure(
    store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_MODE", "lost")
    monkeypatch.setattr("engine.compaction.openclaw_gateway._SETTLE_S", 1.0)
    with pytest.raises(GatewayError, match="timeout"):
        _apply(store, tmp_path / "ctx")
    assert list(read_audit(tmp_path / "ctx"))[-1].result == "failed"


@pytest.mark.parametrize(("mode", "reason"), [("no", "no sessionId"), ("already", "Already compacted")])
def test_compacted_false_is_not_compacted_with_the_reason(
    store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str, reason: str
) -> None:
    monkeypatch.setenv("FAKE_MODE", mode)
    with pytest.raises(NotCompactedError) as caught:
        _apply(store, tmp_path / "ctx")
    assert caught.value.reason == reason
    audit = list(read_audit(tmp_path / "ctx"))[-1]
    assert audit.result == "not-compacted" and audit.error == reason


def test_a_started_focus_compaction_is_reported_from_the_store(
    store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_MODE", "started")
    result = _apply(store, tmp_path / "ctx", focus="the SSH keys")
    outcome = result.gateway  # type: ignore[attr-defined]
    assert outcome.compacted and outcome.verified_by == "store" and outcome.tokens_after == 1711


def test_a_declined_focus_compaction_reports_the_gateways_reply(
    store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_MODE", "declined")
    with pytest.raises(NotCompactedError, match="Compaction skipped: too small"):
        _apply(store, tmp_path / "ctx", focus="the SSH keys", timeout=20.0)
