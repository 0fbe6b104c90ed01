"""The sidecar inside the app: checkpoints on triggers, compactions, sessions.json, notifications.

Changes are reported through the app's :class:`~tui.follow.ChangeQueue`, so nothing waits on the filesystem.
"""

from __future__ import annotations

from pathlib import Path

import orjson
from textual.message import Message
from textual.notifications import Notify

from tests.conftest import LISTED_FIXTURES, MAIN_SESSION, SESSIONS_JSON, SUBAGENT
from tests.tui.app_factory import copy_fixtures, make_app, settle, wait_until
from tests.tui.transcript_lines import append, compaction, reply
from tui.messages import CheckpointWritten, CompactionDetected, SessionAssessed, ThresholdCrossed

SUBAGENT_KEY = "3003a4e2-a8c1-417d-9ebc-76480d47d0c0"
SUBAGENT_LEAF = "562b10c7"
MAIN_KEY = "agent:main:main"


def _notes(seen: list[Message]) -> list[tuple[str, str]]:
    return [(m.notification.title, m.notification.message) for m in seen if isinstance(m, Notify)]


def _checkpoints(state: Path) -> list[str]:
    return sorted(str(p.relative_to(state / "context" / "checkpoints")) for p in state.rglob("cp_*.yaml"))


async def test_sessions_past_a_line_at_start_get_a_checkpoint_and_one_notification(tmp_path: Path) -> None:
    sessions = copy_fixtures(LISTED_FIXTURES, tmp_path / "sessions")
    seen: list[Message] = []
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await settle(pilot)
        written = [m.event for m in seen if isinstance(m, CheckpointWritten)]
        assert sorted((e.session_key, e.trigger) for e in written) == sorted([
            (MAIN_KEY, "pre-compaction-margin"),
            ("d703a1a9-1b7b-4fb1-b512-c9738b1fe617", "pre-compaction-margin"),
            (next(k for k in app.snapshots if k.endswith("f5b63bc9-4cf5-4b11-a03d-3027989737f7.jsonl")), "auto-50pct"),
        ])
        assert len(_checkpoints(tmp_path / "state")) == 3
        await wait_until(pilot, lambda: _notes(seen))
        assert [title for title, _ in _notes(seen)] == ["3 checkpoints written"]


async def test_sessions_idle_longer_than_auto_checkpoint_idle_are_not_written_at_start(tmp_path: Path) -> None:
    sessions = copy_fixtures(LISTED_FIXTURES, tmp_path / "sessions")
    seen: list[Message] = []
    app, _ = make_app([sessions], tmp_path / "state", idle=3600.0)  # the default; every fixture is older
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await settle(pilot)
        assert len(app.snapshots) >= 5  # read and shown
        assert not [m for m in seen if isinstance(m, CheckpointWritten)] and not _notes(seen)
        assert _checkpoints(tmp_path / "state") == [] and not (tmp_path / "state" / "context").exists()


async def test_crossing_the_checkpoint_line_writes_one_and_says_so(tmp_path: Path) -> None:
    transcript = copy_fixtures([SUBAGENT], tmp_path / "sessions") / SUBAGENT.name
    seen: list[Message] = []
    app, changes = make_app([transcript.parent], tmp_path / "state")
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await settle(pilot)
        assert _checkpoints(tmp_path / "state") == []
        append(transcript, reply("r1", SUBAGENT_LEAF, 220_000))  # 84% of 262,144
        changes.push(transcript)
        await wait_until(pilot, lambda: [m for m in seen if isinstance(m, CheckpointWritten)])
        event = next(m.event for m in seen if isinstance(m, CheckpointWritten))
        assert (event.session_key, event.trigger) == (SUBAGENT_KEY, "auto-80pct")
        assert len(_checkpoints(tmp_path / "state")) == 1
        assert [m.level for m in seen if isinstance(m, ThresholdCrossed)] == ["checkpoint"]
        # Routine: filed in the notices history (the Audit tab lists the checkpoint), not shown.
        await wait_until(pilot, lambda: any(n.title == "Checkpoint written" and n.routine
                                            for n in app.notifier.history))
        assert any(t == "Threshold crossed" for t, _ in _notes(seen))


async def test_no_auto_checkpoints_leaves_writing_to_the_user(tmp_path: Path) -> None:
    transcript = copy_fixtures([SUBAGENT], tmp_path / "sessions") / SUBAGENT.name
    app, changes = make_app([transcript.parent], tmp_path / "state", auto_checkpoints=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        append(transcript, reply("r1", SUBAGENT_LEAF, 220_000))
        changes.push(transcript)
        await wait_until(pilot, lambda: app.snapshots[SUBAGENT_KEY].tokens.tokens == 220_000)
        await settle(pilot)
        assert _checkpoints(tmp_path / "state") == []
        assert app.manager.sessions[SUBAGENT_KEY].state.entries_seen > 0  # still capturing
        await pilot.press("c")
        await wait_until(pilot, lambda: len(_checkpoints(tmp_path / "state")) == 1)


async def test_a_compaction_by_the_agent_is_detected_and_checkpointed(tmp_path: Path) -> None:
    transcript = copy_fixtures([SUBAGENT], tmp_path / "sessions") / SUBAGENT.name
    seen: list[Message] = []
    app, changes = make_app([transcript.parent], tmp_path / "state")
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await settle(pilot)
        append(transcript, compaction("c1", SUBAGENT_LEAF, SUBAGENT_LEAF))
        changes.push(transcript)
        await wait_until(pilot, lambda: [m for m in seen if isinstance(m, CompactionDetected)])
        await wait_until(pilot, lambda: [m for m in seen if isinstance(m, CheckpointWritten)])
        assert [m.event.trigger for m in seen if isinstance(m, CheckpointWritten)] == ["compaction"]
        await wait_until(pilot, lambda: "Compaction detected" in {t for t, _ in _notes(seen)}
                         and "Checkpoint written" in {n.title for n in app.notifier.history})


async def test_a_sessions_json_change_updates_window_compactions_and_risk(tmp_path: Path) -> None:
    sessions = copy_fixtures([MAIN_SESSION, SESSIONS_JSON], tmp_path / "sessions")
    store = sessions / SESSIONS_JSON.name
    seen: list[Message] = []
    app, changes = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await settle(pilot)
        before = app.snapshots[MAIN_KEY]
        assert (before.window.tokens, before.compactions, app.insights[MAIN_KEY].risk) == (32_768, 4, "high")
        data = orjson.loads(store.read_bytes())
        data[MAIN_KEY] = {**data[MAIN_KEY], "contextTokens": 65_536, "compactionCount": 6}
        store.write_bytes(orjson.dumps(data))
        changes.push(store)
        await wait_until(pilot, lambda: app.snapshots[MAIN_KEY].window.tokens == 65_536)
        after = app.snapshots[MAIN_KEY]
        assert after.compactions == 6 and after.entries == before.entries
        await wait_until(pilot, lambda: app.insights[MAIN_KEY].risk == "critical")
        assert [m.insight.risk for m in seen if isinstance(m, SessionAssessed) and m.key == MAIN_KEY][-1] == "critical"
        await wait_until(pilot, lambda: any(t == "Risk level changed" for t, _ in _notes(seen)))
        message = next(m for t, m in _notes(seen) if t == "Risk level changed")
        assert "high → critical" in message


async def test_a_session_first_known_by_its_header_id_takes_its_store_key(tmp_path: Path) -> None:
    sessions = copy_fixtures([MAIN_SESSION], tmp_path / "sessions")
    app, changes = make_app([sessions], tmp_path / "state", auto_checkpoints=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        [header_key] = app.snapshots
        assert header_key != MAIN_KEY
        store = copy_fixtures([SESSIONS_JSON], sessions) / SESSIONS_JSON.name
        changes.push(store)
        await wait_until(pilot, lambda: list(app.snapshots) == [MAIN_KEY])
        assert app.snapshots[MAIN_KEY].window.tokens == 32_768  # the store's contextTokens
        assert set(app.manager.sessions) == {MAIN_KEY}
