"""Live updates: lines appended to a copied transcript reach the snapshot, the gauge and the notifications.

The change source is a :class:`~tui.follow.ChangeQueue`: each test appends bytes itself and then reports the
path, so nothing waits on filesystem notification timing.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from textual.message import Message
from textual.notifications import Notify
from textual.widget import Widget

from engine.accounting.gauge import format_tokens
from engine.agents.discovery import discover_sessions
from engine.config.loader import Config
from engine.session.snapshot import snapshot_session
from tests.conftest import ENDS_ON_COMPACTION, MAIN_SESSION, SESSIONS_JSON, SUBAGENT
from tests.tui.app_factory import copy_fixtures, make_app, settle, wait_until
from tui.follow import ChangeQueue, SessionTracker, follow_sessions, watch_targets
from tui.messages import (
    CompactionDetected,
    SessionAssessed,
    SessionReadFailed,
    SessionsLoaded,
    SessionUpdated,
    ThresholdCrossed,
)
from tui.widgets.gauge import GaugeBar
from tui.widgets.session_table import SessionTable

SUBAGENT_KEY = "3003a4e2-a8c1-417d-9ebc-76480d47d0c0"
SUBAGENT_LEAF = "562b10c7"
SUBAGENT_WINDOW = 262_144


def _append(path: Path, *objects: dict[str, object]) -> None:
    with path.open("ab") as handle:
        handle.write(b"".join(orjson.dumps(o) + b"\n" for o in objects))


def _reply(entry_id: str, parent: str, total: int) -> dict[str, object]:
    return {
        "type": "message", "id": entry_id, "parentId": parent, "timestamp": "2026-05-05T15:02:00.000Z",
        "message": {
            "role": "assistant", "content": [{"type": "text", "text": "Done."}], "provider": "kimi",
            "model": "kimi-code", "stopReason": "stop",
            "usage": {"input": total - 100, "output": 100, "cacheRead": 0, "cacheWrite": 0, "totalTokens": total},
        },
    }


def _compaction(entry_id: str, parent: str, first_kept: str) -> dict[str, object]:
    return {
        "type": "compaction", "id": entry_id, "parentId": parent, "timestamp": "2026-05-05T15:03:00.000Z",
        "summary": "## Goal\nKeep going.", "firstKeptEntryId": first_kept, "tokensBefore": 200_000,
        "details": {"readFiles": [], "modifiedFiles": []}, "fromHook": True,
    }


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    return copy_fixtures([SUBAGENT], tmp_path / "sessions") / SUBAGENT.name


def _of(kind: type[Message], seen: list[Message]) -> Callable[[], list[Message]]:
    return lambda: [m for m in seen if isinstance(m, kind)]


async def test_appended_reply_updates_snapshot_and_open_gauge(transcript: Path, tmp_path: Path) -> None:
    seen: list[Message] = []
    app, changes = make_app([transcript.parent], tmp_path / "state")
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await settle(pilot)
        before = app.snapshots[SUBAGENT_KEY]
        await pilot.press("enter")
        await settle(pilot)
        _append(transcript, _reply("r1", SUBAGENT_LEAF, 200_000))
        changes.push(transcript)
        await wait_until(pilot, lambda: app.snapshots[SUBAGENT_KEY].revision > before.revision)
        after = app.snapshots[SUBAGENT_KEY]
        assert after.tokens.tokens == 200_000
        assert after.gauge.utilization == 200_000 / SUBAGENT_WINDOW
        assert app.screen.query_one(GaugeBar).snapshot is after
        assert [m.snapshot for m in _of(SessionUpdated, seen)()][-1] is after  # type: ignore[attr-defined]
        crossed = _of(ThresholdCrossed, seen)()
        assert [(m.previous, m.level) for m in crossed] == [("ok", "gauge")]  # type: ignore[attr-defined]
        await wait_until(pilot, lambda: any(isinstance(m, Notify) for m in seen))


async def test_updates_that_change_no_key_leave_no_widgets_behind(transcript: Path, tmp_path: Path) -> None:
    """Rebuilding the footer on every append kept its old keys alive (~28 widgets per append, see
    ``ControlActions.refresh_controls``): a session streaming replies must not grow the widget population."""

    def live_widgets() -> int:
        gc.collect()
        return sum(isinstance(o, Widget) for o in gc.get_objects())

    app, changes = make_app([transcript.parent], tmp_path / "state", auto_checkpoints=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        parent = SUBAGENT_LEAF
        counts = []
        for i in range(12):
            before = app.snapshots[SUBAGENT_KEY].revision
            _append(transcript, _reply(f"r{i}", parent, 150_000 + i))
            parent = f"r{i}"
            changes.push(transcript)
            await wait_until(pilot, lambda: app.snapshots[SUBAGENT_KEY].revision > before)  # noqa: B023
            await settle(pilot)
            counts.append(live_widgets())
        assert counts[-1] - counts[2] <= 5, counts


async def test_list_columns_widen_when_a_figure_grows(tmp_path: Path) -> None:
    transcript = copy_fixtures([ENDS_ON_COMPACTION], tmp_path / "sessions") / ENDS_ON_COMPACTION.name
    app, changes = make_app([transcript.parent], tmp_path / "state")
    async with app.run_test(size=(140, 36)) as pilot:
        await settle(pilot)
        (key, before), = app.snapshots.items()
        assert before.tokens.tokens is None  # "?" until the agent's next reply
        leaf = before.view.leaf
        assert leaf is not None and leaf.id is not None
        _append(transcript, _reply("r1", leaf.id, 123_456))
        changes.push(transcript)
        await wait_until(pilot, lambda: app.snapshots[key].revision > before.revision)
        await settle(pilot)
        table = app.session_list.query_one(SessionTable)
        # The reply switches the model (qwen3-max → kimi-code): the window is the new model's.
        figure = f"123k/{format_tokens(app.snapshots[key].window.tokens)}"
        assert figure in table.render_line(1).text  # the first data row, under the header


async def test_partial_line_waits_for_its_newline(transcript: Path, tmp_path: Path) -> None:
    app, changes = make_app([transcript.parent], tmp_path / "state")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        before = app.snapshots[SUBAGENT_KEY]
        line = orjson.dumps(_reply("r1", SUBAGENT_LEAF, 150_000))
        with transcript.open("ab") as handle:
            handle.write(line[:40])
        changes.push(transcript)
        await wait_until(pilot, lambda: changes.handled == 1)
        assert app.snapshots[SUBAGENT_KEY] is before
        with transcript.open("ab") as handle:
            handle.write(line[40:] + b"\n")
        changes.push(transcript)
        await wait_until(pilot, lambda: changes.handled == 2)
        await pilot.pause()
        assert app.snapshots[SUBAGENT_KEY].tokens.tokens == 150_000
        assert app.snapshots[SUBAGENT_KEY].revision == before.revision + 1


async def test_compaction_is_detected_and_the_gauge_says_unknown(transcript: Path, tmp_path: Path) -> None:
    seen: list[Message] = []
    app, changes = make_app([transcript.parent], tmp_path / "state")
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        _append(transcript, _compaction("c1", SUBAGENT_LEAF, SUBAGENT_LEAF))
        changes.push(transcript)
        await wait_until(pilot, _of(CompactionDetected, seen))
        snapshot = app.snapshots[SUBAGENT_KEY]
        assert snapshot.tokens.tokens is None and snapshot.gauge.level == "unknown"
        assert str(app.screen.query_one(GaugeBar).render()).startswith("UNKNOWN")
        await wait_until(pilot, lambda: any(
            isinstance(m, Notify) and m.notification.title == "Compaction detected" for m in seen
        ))


async def test_unreadable_session_becomes_one_error_notification(transcript: Path, tmp_path: Path) -> None:
    seen: list[Message] = []
    app, changes = make_app([transcript.parent], tmp_path / "state")
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await settle(pilot)
        transcript.unlink()
        changes.push(transcript)
        changes.push(transcript)
        await wait_until(pilot, lambda: len(_of(SessionReadFailed, seen)()) == 2)
        await pilot.pause()
        errors = [m.notification for m in seen if isinstance(m, Notify)]
        assert len(errors) == 1 and errors[0].severity == "error"
        assert app.is_running and SUBAGENT_KEY in app.snapshots


async def test_session_created_after_start_is_discovered(tmp_path: Path) -> None:
    directory = copy_fixtures([SUBAGENT], tmp_path / "sessions")
    app, changes = make_app([directory], tmp_path / "state")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        new = copy_fixtures([MAIN_SESSION, SESSIONS_JSON], directory) / MAIN_SESSION.name
        changes.push(new)
        await wait_until(pilot, lambda: "agent:main:main" in app.snapshots)
        assert len(app.snapshots) == 2
        assert changes.targets == (directory,)


async def test_follower_refreshes_only_the_sessions_a_change_names(tmp_path: Path) -> None:
    directory = copy_fixtures([SUBAGENT, ENDS_ON_COMPACTION, SESSIONS_JSON], tmp_path / "sessions")
    tracker = SessionTracker([directory], Config(state_dir=tmp_path / "state"))
    changes = ChangeQueue()
    posted: list[Message] = []
    task = asyncio.create_task(follow_sessions(tracker, changes, posted.append))
    try:
        for _ in range(2000):
            if any(isinstance(m, SessionsLoaded) for m in posted):
                break
            await asyncio.sleep(0.005)
        assert sorted(m.key for m in posted if isinstance(m, SessionUpdated)) == sorted(tracker.keys)
        posted.clear()
        _append(directory / SUBAGENT.name, _reply("r1", SUBAGENT_LEAF, 20_000))
        changes.push(directory / SUBAGENT.name, directory / "unrelated.txt")
        for _ in range(2000):
            if posted:
                break
            await asyncio.sleep(0.005)
        assert [type(m) for m in posted] == [SessionUpdated, SessionAssessed]
        assert {m.key for m in posted} == {SUBAGENT_KEY}  # type: ignore[attr-defined]
        assert not (tmp_path / "state").exists()  # without a sidecar the tracker only reads
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


def test_session_updated_replaces_only_the_same_session() -> None:
    first = snapshot_session(discover_sessions([SUBAGENT]).sessions[0])
    second = snapshot_session(discover_sessions([SUBAGENT]).sessions[0])
    other = snapshot_session(discover_sessions([MAIN_SESSION]).sessions[0])
    assert SessionUpdated(first).can_replace(SessionUpdated(second))
    assert not SessionUpdated(first).can_replace(SessionUpdated(other))
    assert not SessionUpdated(first).can_replace(SessionReadFailed(first.key, "gone"))


def test_watch_targets_are_directories_that_exist(tmp_path: Path) -> None:
    file = copy_fixtures([SUBAGENT], tmp_path / "a") / SUBAGENT.name
    (tmp_path / "b").mkdir()
    assert watch_targets([file, tmp_path / "b", tmp_path / "missing"]) == (tmp_path / "a", tmp_path / "b")
    assert watch_targets([], env={"HOME": str(tmp_path / "nobody")}) == ()
