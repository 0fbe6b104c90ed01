"""Automatic compaction in the sidecar: off by default, checkpoint first, guarded, and the ``watch`` flag."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from engine.checkpoints.store import list_checkpoints
from engine.compaction.auto import auto_compaction_layer, count_auto_compactions
from engine.config.compaction_settings import AutoCompactSettings, CompactionSettings
from engine.config.loader import Config
from engine.fs.audit import read_audit
from engine.fs.jsonl_append import append_entries
from engine.sidecar import ContextManager
from tests.engine._compaction import coding_session, lines_of, snapshot_of, source_of
from tests.engine._transcripts import assistant, tool_result, user
from tui.cli import main as cli


def _busy_session(path: Path) -> Path:
    """A session at 99% of a 200k window, with plenty of compactable history."""
    return coding_session(path, turns=16, first_total=150_000, total_per_turn=3_000)


LIVE = 100 * 365 * 86_400.0
"""``auto_checkpoint_idle`` for these sessions: written in March, they play sessions the agent is writing now."""


def _auto(enabled: bool = True, **settings: Any) -> Config:
    return Config(compaction=CompactionSettings(auto=AutoCompactSettings(enabled=enabled), **settings),
                  auto_checkpoint_idle=LIVE)


def _unchained(entry: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if k not in ("id", "parentId")}


def test_auto_compaction_is_off_by_default(tmp_path: Path) -> None:
    session = _busy_session(tmp_path / "s.jsonl")
    before = session.read_bytes()
    manager = ContextManager(Config(state_dir=tmp_path / "state", auto_checkpoint_idle=LIVE))
    assert manager.auto_compact is False
    manager.add(source_of(session))
    events = manager.step_all()
    assert not any(e.kind == "auto-compact" for e in events)
    assert session.read_bytes() == before


def test_auto_layer_follows_the_threshold_and_the_layer_triggers(tmp_path: Path) -> None:
    session = _busy_session(tmp_path / "s.jsonl")
    _, snapshot = snapshot_of(session)
    assert snapshot.utilization is not None and snapshot.utilization > 0.95
    assert auto_compaction_layer(snapshot, _auto()) == "full"
    pinned = Config(compaction=CompactionSettings(auto=AutoCompactSettings(enabled=True, layer="drop-only")))
    assert auto_compaction_layer(snapshot, pinned) == "drop-only"
    high = Config(compaction=CompactionSettings(auto=AutoCompactSettings(enabled=True, threshold=1.5)))
    assert auto_compaction_layer(snapshot, high) is None


def test_crossing_the_threshold_checkpoints_then_compacts_once(tmp_path: Path) -> None:
    session = _busy_session(tmp_path / "s.jsonl")
    original = session.read_bytes()
    state = tmp_path / "state"
    manager = ContextManager(replace(_auto(), state_dir=state))
    key = manager.add(source_of(session)).key
    _, events = manager.step(key)
    kinds = [e.kind for e in events]
    assert kinds.index("checkpoint") < kinds.index("auto-compact"), kinds
    assert any(e.trigger == "pre-compaction-margin" for e in events if e.kind == "checkpoint")
    new = lines_of(session.read_bytes()[len(original):])
    assert [e["type"] for e in new] == ["compaction", "custom_message"]  # the fresh checkpoint follows it
    records = [r for r in read_audit(state) if r.action == "compact"]
    assert len(records) == 1 and records[0].params["automatic"] is True and records[0].result == "ok"
    assert records[0].params["layer"] == "full"
    assert count_auto_compactions(state, key) == 1
    assert list_checkpoints(state, key)
    # Usage is unknown after the compaction: no second compaction on the next steps.
    size = session.stat().st_size
    manager.step(key)
    assert session.stat().st_size == size


def test_the_guard_refuses_automatic_compaction_past_the_limit(tmp_path: Path) -> None:
    session = _busy_session(tmp_path / "s.jsonl")
    state = tmp_path / "state"
    config = Config(state_dir=state, compaction=CompactionSettings(auto=AutoCompactSettings(enabled=True),
                                                                   max_auto_compactions=1), auto_checkpoint_idle=LIVE)
    manager = ContextManager(config)
    key = manager.add(source_of(session)).key
    _, events = manager.step(key)
    assert any(e.kind == "auto-compact" for e in events)
    # The agent keeps working past the threshold again.
    turns: list[dict[str, Any]] = []
    for t in range(12):
        turns += [_unchained(user(f"x{t}", None, f"more work {t}")),
                  _unchained(assistant(f"p{t}", None, "checking", 196_000, tool=("read", {"path": f"more/{t}.py"}))),
                  _unchained(tool_result(f"q{t}", None, "data " * 1500)),
                  _unchained(assistant(f"z{t}", None, "done", 197_000))]
    append_entries(session, lambda _leaf: turns)
    size = session.stat().st_size
    _, events = manager.step(key)
    refused = [e for e in events if e.kind == "refused"]
    assert refused and "Automatic compaction refused" in refused[0].message
    assert session.stat().st_size == size
    # Not retried on every step: only after more entries arrive.
    _, events = manager.step(key)
    assert not any(e.kind == "refused" for e in events)


def test_watch_auto_compact_flag(tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "config" / "ctxscope").mkdir(parents=True)
    (tmp_path / "config" / "ctxscope" / "config.yaml").write_text("auto_checkpoint_idle: 36500d\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    session = _busy_session(tmp_path / "sessions" / "s.jsonl")
    original = session.read_bytes()
    assert cli.main(["--state-dir", str(tmp_path / "state"), "watch", str(session), "--once"]) == 0
    assert session.read_bytes() == original
    assert cli.main(["--state-dir", str(tmp_path / "state"), "watch", str(session), "--once", "--auto-compact"]) == 0
    out = capsys.readouterr().out
    assert "with automatic compaction" in out and "auto-compact" in out
    assert lines_of(session.read_bytes()[len(original):])[0]["type"] == "compaction"
