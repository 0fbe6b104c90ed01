"""``ctxscope status`` and ``ctxscope inspect``: the JSON users script against, and the human tables."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.conftest import ENDS_ON_COMPACTION, MAIN_SESSION, OPENCLAW, SESSIONS_JSON
from tui.cli.main import EXIT_NOT_FOUND, EXIT_OK, main

STATUS_FIELDS = {
    "key",
    "path",
    "format",
    "model",
    "context_window",
    "context_window_source",
    "context_tokens",
    "context_tokens_source",
    "agent_estimate",
    "utilization",
    "compaction_threshold_tokens",
    "compactions",
    "last_activity",
    "malformed_lines",
}


@pytest.fixture
def store(tmp_path: Path) -> Path:
    sessions = tmp_path / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    shutil.copy(MAIN_SESSION, sessions / "76cc5ab5-0425-4038-b41f-0af9f313d594.jsonl")
    shutil.copy(ENDS_ON_COMPACTION, sessions / "f8c3e7a8-7dc1-43cc-8ce0-a9d268c29be1.jsonl")
    shutil.copy(SESSIONS_JSON, sessions / "sessions.json")
    return tmp_path


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> object:
    assert main(argv) == EXIT_OK
    return orjson.loads(capsys.readouterr().out)


def test_status_json_has_the_documented_fields(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = _json(capsys, ["status", str(store), "--json", "--full"])
    assert isinstance(rows, list) and len(rows) == 2
    by_key = {r["key"]: r for r in rows}
    assert all(set(r) >= STATUS_FIELDS for r in rows)
    main_row = by_key["agent:main:main"]
    assert main_row["context_tokens"] == 21_582 and main_row["context_tokens_source"] == "usage"
    assert main_row["context_window"] == 32_768 and main_row["context_window_source"] == "store"
    assert main_row["compaction_threshold_tokens"] == 12_768
    assert main_row["utilization"] == round(21_582 / 32_768, 4)
    assert main_row["compactions"] == 4 and main_row["malformed_lines"] == []
    unknown = by_key["agent:main:openresponses-user:9e983849"]
    assert unknown["context_tokens"] is None and unknown["utilization"] is None
    assert unknown["context_tokens_source"] == "unknown-after-compaction"


def test_inspect_json_lists_context_messages(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = _json(capsys, ["inspect", "agent:main:main", "--in", str(store), "--json"])
    assert isinstance(result, dict)
    assert {"key", "leaf_id", "context_tokens", "agent_estimate", "context"} <= set(result)
    context = result["context"]
    assert context[0]["entry_id"] == "compaction:48392785" and context[0]["role"] == "compactionSummary"
    assert all({"entry_id", "role", "tokens", "protected", "compactable"} <= set(m) for m in context)
    assert all(m["protected"] != m["compactable"] for m in context)
    protected = [m["protected"] for m in context]
    assert protected == sorted(protected)  # compactable first, then the protected recent tail
    assert result["leaf_id"] == "188a55d1"


def test_inspect_accepts_a_path_and_reports_unknown_sessions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", str(ENDS_ON_COMPACTION)]) == EXIT_OK
    out = capsys.readouterr().out
    assert "unknown after compaction" in out and "compaction:29376fa3" in out
    assert main(["inspect", "agent:does-not-exist", "--in", str(OPENCLAW)]) == EXIT_NOT_FOUND
    assert "ctxscope status" in capsys.readouterr().err


def test_installed_command_prints_a_table(store: Path) -> None:
    exe = Path(sys.executable).with_name("ctxscope")
    result = subprocess.run([str(exe), "status", str(store)], capture_output=True, text=True, check=True)
    assert result.stdout.splitlines()[0].split()[:3] == ["KEY", "MODEL", "TOKENS"]
    assert "agent:main:main" in result.stdout and "22k/33k" in result.stdout


def test_fast_status_agrees_with_the_full_index(capsys: pytest.CaptureFixture[str]) -> None:
    fast = {r["key"]: r for r in _json(capsys, ["status", str(OPENCLAW), "--json"])}
    full = {r["key"]: r for r in _json(capsys, ["status", str(OPENCLAW), "--json", "--full"])}
    assert fast.keys() == full.keys()
    for key, row in fast.items():
        assert row["scan"] == "tail" and full[key]["scan"] == "full"
        assert row["malformed_lines"] is None  # not checked on the fast path
        for field in (
            "context_tokens",
            "context_tokens_source",
            "context_window",
            "utilization",
            "compactions",
            "compaction_threshold_tokens",
            "model",
            "last_activity",
        ):
            assert row[field] == full[key][field], (key, field)
        if row["version"] >= 3:  # v1 ids are line numbers in the full read; a tail scan cannot know them
            assert row["leaf_id"] == full[key]["leaf_id"]


@pytest.mark.parametrize("key", ["agent:main:main", "f8c3e7a8-7dc1-43cc-8ce0-a9d268c29be1"])
def test_inspect_and_the_context_tab_show_the_same_rows(store: Path, key: str,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    # One value, one function: `inspect` prints the rows the Context tab draws (engine.measure_rows), with pi's rule
    # that a session ending on a compaction has no cut, so nothing in it is compactable.
    from engine import Config, keep_recent_budget, measure_rows
    from engine.session.snapshot import SessionFollower
    from tui.cli.read_commands import resolve_session

    result = _json(capsys, ["inspect", key, "--in", str(store), "--json"])
    assert isinstance(result, dict)
    follower = SessionFollower(resolve_session(argparse.Namespace(session=key, search=[store])), Config())
    snapshot = follower.refresh()
    rows = measure_rows(snapshot, follower, keep_recent_budget(snapshot, Config()).tokens)
    assert [(m["entry_id"], m["role"], m["tokens"], m["protected"]) for m in result["context"]] == [
        (r.entry_id, r.role, r.tokens, r.protected) for r in rows]
    if key.startswith("f8c3"):
        assert result["cut_point"] is None and all(r.protected for r in rows)


def test_history_lists_the_checkpoints_the_tab_lists(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from engine import read_checkpoints, write_checkpoint
    from tests.engine._checkpoints import sample_checkpoint

    state = store / "state"
    for trigger in ("manual", "auto-80pct"):
        write_checkpoint(state, "agent:main:main", sample_checkpoint(trigger=trigger))
    result = _json(capsys, ["--state-dir", str(state), "history", "agent:main:main", "--in", str(store), "--json"])
    assert isinstance(result, dict)
    listed = read_checkpoints(state, "agent:main:main")
    assert [(c["checkpoint_id"], c["trigger"], c["input_tokens"]) for c in result["checkpoints"]] == [
        (s.checkpoint_id, s.checkpoint.meta.trigger, s.checkpoint.meta.token_usage.input_tokens)
        for s in listed if s.checkpoint is not None]
    assert len(listed) == 2
