"""Discovery of sessions in OpenClaw state dirs, pi session dirs and explicit paths."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine.agents.discovery import SessionNotFoundError, discover_sessions, find_session
from engine.session.snapshot import snapshot_session
from engine.stores.source import classify_file
from tests.conftest import MAIN_SESSION, OPENCLAW, RESET_ARCHIVE, SESSIONS_JSON
from tests.engine._transcripts import user, write

SESSION_ID = "76cc5ab5-0425-4038-b41f-0af9f313d594"


def _openclaw_state(root: Path) -> Path:
    sessions = root / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    shutil.copy(MAIN_SESSION, sessions / f"{SESSION_ID}.jsonl")
    shutil.copy(SESSIONS_JSON, sessions / "sessions.json")
    shutil.copy(MAIN_SESSION.with_name(MAIN_SESSION.name + ".lock"), sessions / f"{SESSION_ID}.jsonl.lock")
    shutil.copy(RESET_ARCHIVE, sessions / "2db7f8ba-f951-4f31-b133-aece0caaf3aa.jsonl.reset.2026-05-04T14-58-56.795Z")
    (sessions / f"{SESSION_ID}.checkpoint.0b5e1f2a-1111-2222-3333-444455556666.jsonl").write_text("{}\n")
    (sessions / f"{SESSION_ID}.trajectory.jsonl").write_text("{}\n")
    return root


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("abc.jsonl", "transcript"),
        ("abc-topic-42.jsonl", "transcript"),
        ("abc.jsonl.reset.2026-05-04T14-58-56.795Z", "archive"),
        ("abc.jsonl.deleted.2026-05-04T14-58-56Z", "archive"),
        ("abc.jsonl.bak.2026-05-04T14-58-56.795Z", "archive"),
        ("abc.jsonl.bak-123-1769860426088", "archive"),
        ("abc.jsonl.repair-12-1769860426088.tmp", "archive"),
        ("abc.checkpoint.0b5e1f2a-1111-2222-3333-444455556666.jsonl", "checkpoint-copy"),
        ("abc.trajectory.jsonl", "sidecar"),
        ("abc.jsonl.lock", "lock"),
        ("sessions.json", "store"),
        ("openclaw-agent.sqlite", "sqlite"),
    ],
)
def test_file_classification(name: str, kind: str) -> None:
    assert classify_file(Path(name)) == kind


def test_default_locations_from_env(tmp_path: Path) -> None:
    state = _openclaw_state(tmp_path / "custom-state")
    legacy = tmp_path / "home" / ".clawdbot" / "agents" / "ops" / "sessions"
    legacy.mkdir(parents=True)
    write(legacy / "legacy-1.jsonl", [user("u1", None, "legacy")])
    pi_dir = tmp_path / "home" / ".pi" / "agent" / "sessions" / "--home-me-proj--"
    pi_dir.mkdir(parents=True)
    write(pi_dir / "2026-01-01T00-00-00-000Z_pi-1.jsonl", [user("u1", None, "pi")])

    env = {"HOME": str(tmp_path / "home"), "OPENCLAW_STATE_DIR": str(state)}
    found = discover_sessions(env=env)
    by_key = {s.key: s for s in found.sessions}
    assert len(found.sessions) == 3 and "agent:main:main" in by_key
    main = by_key["agent:main:main"]
    assert main.format == "openclaw-jsonl" and main.state_dir == state and main.agent_id == "main"
    assert main.store_entry is not None and main.store_entry["contextTokens"] == 32768
    formats = {s.path.name: s.format for s in found.sessions}
    assert formats["legacy-1.jsonl"] == "openclaw-jsonl"
    assert formats["2026-01-01T00-00-00-000Z_pi-1.jsonl"] == "pi-jsonl"
    assert len(found.archives) == 2  # the reset archive and the pre-compaction copy
    assert len(found.sidecars) == 1
    assert [p.name for p in found.locks] == [f"{SESSION_ID}.jsonl.lock"]
    assert not any(s.kind == "archive" for s in found.sessions)


def test_store_context_window_reaches_the_snapshot(tmp_path: Path) -> None:
    state = _openclaw_state(tmp_path)
    source = find_session(discover_sessions([state]), "agent:main:main")
    snapshot = snapshot_session(source)
    assert snapshot.window.tokens == 32768 and snapshot.window.source == "store"
    assert snapshot.gauge.compaction_line == 32768 - 20000
    assert snapshot.store_compaction_count == 4
    assert snapshot.compactions_in_file == 3


def test_explicit_archive_is_read_and_marked(tmp_path: Path) -> None:
    found = discover_sessions([RESET_ARCHIVE])
    assert len(found.sessions) == 1 and found.sessions[0].kind == "archive"
    assert not found.sessions[0].writable


def test_fixture_dir_matches_prefixed_store() -> None:
    found = discover_sessions([OPENCLAW])
    keys = {s.key for s in found.sessions}
    assert {"agent:main:main", "agent:main:openresponses-user:9e983849"} <= keys


def test_find_session_by_key_id_prefix_and_path(tmp_path: Path) -> None:
    state = _openclaw_state(tmp_path)
    found = discover_sessions([state])
    assert find_session(found, "agent:main:main").session_id == SESSION_ID
    assert find_session(found, SESSION_ID[:8]).key == "agent:main:main"
    assert find_session(found, "AGENT:MAIN:MAIN").key == "agent:main:main"
    path = state / "agents" / "main" / "sessions" / f"{SESSION_ID}.jsonl"
    assert find_session(found, str(path)).key == "agent:main:main"
    with pytest.raises(SessionNotFoundError, match="ctxscope status"):
        find_session(found, "agent:nope")


def test_missing_paths_and_broken_store_are_reported_not_fatal(tmp_path: Path) -> None:
    sessions = tmp_path / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "sessions.json").write_text("{not json")
    write(sessions / "abc.jsonl", [user("u1", None, "hi")])
    found = discover_sessions([tmp_path, tmp_path / "missing"])
    assert [s.path.name for s in found.sessions] == ["abc.jsonl"]
    assert any("not valid JSON" in p for p in found.problems)
    assert any("no such file" in p for p in found.problems)


def test_other_jsonl_files_are_not_sessions(tmp_path: Path) -> None:
    sessions = tmp_path / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    write(sessions / "real.jsonl", [user("u1", None, "hi")])
    (tmp_path / "context").mkdir()
    (tmp_path / "context" / "audit.jsonl").write_text('{"action":"checkpoint","session_key":"k"}\n')
    found = discover_sessions([tmp_path])
    assert [s.path.name for s in found.sessions] == ["real.jsonl"]
