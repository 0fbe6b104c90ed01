"""The follow rule shared by the TUI and ``watch``: SessionTracker.absorb on real files."""

from __future__ import annotations

import shutil
from pathlib import Path

from engine.config.loader import Config
from engine.live.tracker import SessionTracker
from engine.sidecar import ContextManager
from tests.conftest import SUBAGENT
from tests.tui.transcript_lines import append, reply

KEY = "3003a4e2-a8c1-417d-9ebc-76480d47d0c0"
LEAF = "562b10c7"


def _tracker(tmp_path: Path) -> tuple[SessionTracker, Path]:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    transcript = sessions / SUBAGENT.name
    shutil.copy(SUBAGENT, transcript)
    config = Config(state_dir=tmp_path / "state", auto_checkpoints=False)
    tracker = SessionTracker([sessions], config, manager=ContextManager(config, auto_checkpoints=False))
    tracker.discover()
    tracker.step(KEY)
    return tracker, transcript


def test_an_append_names_the_session_to_step(tmp_path: Path) -> None:
    tracker, transcript = _tracker(tmp_path)
    append(transcript, reply("r1", LEAF, 50_000))
    absorbed = tracker.absorb({transcript})
    assert absorbed.keys == (KEY,) and not absorbed.rekeyed and not absorbed.ended
    assert tracker.step(KEY).snapshot is not None


def test_a_transcript_archived_by_openclaw_gets_a_session_end_checkpoint_from_the_archive(tmp_path: Path) -> None:
    tracker, transcript = _tracker(tmp_path)
    archive = transcript.with_name(transcript.name + ".reset.2026-11-23T10-00-00.000Z")
    transcript.rename(archive)
    absorbed = tracker.absorb({transcript, archive})
    assert [(e.kind, e.session_key) for e in absorbed.ended] == [("checkpoint", KEY)]
    assert "session-end" in absorbed.ended[0].message
    assert list((tmp_path / "state").rglob("cp_001.yaml"))
    assert tracker.follower(KEY) is not None and tracker.follower(KEY).source.kind == "archive"  # type: ignore[union-attr]


def test_a_vanished_transcript_without_an_archive_is_left_to_report_its_read_error(tmp_path: Path) -> None:
    tracker, transcript = _tracker(tmp_path)
    transcript.unlink()
    absorbed = tracker.absorb({transcript})
    assert not absorbed.ended
    assert not list((tmp_path / "state").rglob("cp_*.yaml"))


def test_a_new_transcript_is_discovered_and_listed(tmp_path: Path) -> None:
    tracker, transcript = _tracker(tmp_path)
    new_id = "11111111-2222-3333-4444-555555555555"
    other = transcript.with_name(f"{new_id}.jsonl")
    other.write_bytes(transcript.read_bytes().replace(KEY.encode(), new_id.encode(), 1))
    absorbed = tracker.absorb({other})
    assert absorbed.rekeyed
    assert len(tracker.keys) == 2
