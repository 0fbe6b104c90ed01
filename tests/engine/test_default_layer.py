"""One function decides the layer of a compaction nobody named a layer for (docs/compaction.md, Layers)."""

from __future__ import annotations

from pathlib import Path

from engine.agents.discovery import discover_sessions
from engine.compaction.auto import auto_compaction_layer
from engine.compaction.choice import default_layer, select_compaction_layer, tool_output_tokens
from engine.config.compaction_settings import AutoCompactSettings, CompactionSettings, LayerSettings
from engine.config.loader import Config
from engine.session.snapshot import SessionFollower
from tests.engine.test_sqlite_store import MAIN_SESSION, build_db


def _config() -> Config:
    # A full trigger low enough that the fixture's utilization calls for full, and auto compaction from 1%.
    return Config(compaction=CompactionSettings(full=LayerSettings(0.01, 1),
                                                auto=AutoCompactSettings(enabled=True, threshold=0.01, layer="auto")))


def _snapshot(path: Path):  # type: ignore[no-untyped-def]
    return SessionFollower(discover_sessions([path]).sessions[0]).refresh()



def test_a_gateway_session_is_summarized_whatever_the_triggers_call_for(tmp_path: Path) -> None:
    db = tmp_path / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    db.parent.mkdir(parents=True)
    build_db(db)
    snapshot = _snapshot(db)
    config = _config()
    assert snapshot.source.in_database
    # The triggers alone would pick full, which OpenClaw's gateway cannot do (it only summarizes).
    assert select_compaction_layer(snapshot.utilization, tool_output_tokens(snapshot), config) == "full"
    assert default_layer(snapshot, config) == "summarize"
    assert auto_compaction_layer(snapshot, config) == "summarize"


def test_a_jsonl_session_gets_the_layer_the_triggers_call_for(tmp_path: Path) -> None:
    copy = tmp_path / MAIN_SESSION.name
    copy.write_bytes(MAIN_SESSION.read_bytes())
    snapshot = _snapshot(copy)
    config = _config()
    assert default_layer(snapshot, config) == "full" == auto_compaction_layer(snapshot, config)
    assert default_layer(snapshot, Config()) == (
        select_compaction_layer(snapshot.utilization, tool_output_tokens(snapshot)) or "summarize")
