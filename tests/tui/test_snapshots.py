"""Snapshot tests (pytest-textual-snapshot): real fixtures, a fixed clock, no animation, no cursor blink.

Review the report before running ``--snapshot-update``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from tests.conftest import LISTED_FIXTURES, MAIN_SESSION, SESSIONS_JSON, SUBAGENT
from tests.tui.app_factory import copy_fixtures, make_app, settle, wait_until
from tests.tui.transcript_lines import append, decision_exchange
from tui.app import CtxscopeApp
from tui.dialogs.compact import CompactDialog
from tui.dialogs.prune_chosen import ChooseConsumersDialog
from tui.follow import ChangeQueue
from tui.screens.session_view import SessionScreen
from tui.screens.usage import UsageScreen
from tui.widgets.checkpoints import CheckpointsView
from tui.widgets.session_table import SessionTable

SUBAGENT_KEY = "3003a4e2-a8c1-417d-9ebc-76480d47d0c0"
SUBAGENT_LEAF = "562b10c7"

Compare = Callable[..., bool]


@pytest.fixture
def sessions(tmp_path: Path) -> Path:
    return copy_fixtures(LISTED_FIXTURES, tmp_path / "sessions")


def _opening(key: str | None, tab: str | None = None) -> Callable[[Pilot[None]], Awaitable[None]]:
    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        if key is None:
            pilot.app.clear_notifications()
            return
        table = pilot.app.screen.query_one(SessionTable)
        table.move_cursor(row=table.get_row_index(key))
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, SessionScreen))
        if tab is not None:
            pilot.app.screen.show_tab(tab)  # type: ignore[attr-defined]
        await settle(pilot)
        pilot.app.clear_notifications()  # toasts expire on a timer: never part of a snapshot

    return run_before


def _compacting(key: str, press: str, keep_recent: int) -> Callable[[Pilot[None]], Awaitable[None]]:
    async def run_before(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, CtxscopeApp)
        app.compaction.debounce = 0
        await settle(pilot)
        table = app.session_list.query_one(SessionTable)
        table.move_cursor(row=table.get_row_index(key))
        await pilot.press(press)
        await wait_until(pilot, lambda: isinstance(app.screen, CompactDialog))
        dialog = app.screen
        assert isinstance(dialog, CompactDialog)
        for field in dialog.query(Input):
            field.cursor_blink = False
        dialog.query_one("#keep-recent", Input).focus()
        await pilot.press(*str(keep_recent))
        await wait_until(pilot, lambda: dialog.plan is not None and dialog.plan.keep_recent_tokens == keep_recent)
        await settle(pilot)
        app.clear_notifications()

    return run_before


def _with_decisions(changes: ChangeQueue, transcript: Path, tab: str) -> Callable[[Pilot[None]], Awaitable[None]]:
    """Open the sub-agent session, checkpoint it, append a decision exchange, checkpoint again, show ``tab``."""

    async def run_before(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, CtxscopeApp)
        await _opening(SUBAGENT_KEY)(pilot)
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        screen.show_tab("checkpoints")  # its view is mounted when first shown; the test shows ``tab`` at the end
        await pilot.pause()
        await pilot.press("c")
        await wait_until(pilot, lambda: len(screen.query_one(CheckpointsView).stored) == 1)
        entries, leaf = decision_exchange(SUBAGENT_LEAF, 40_000)
        append(transcript, *entries)
        changes.push(transcript)
        await wait_until(pilot, lambda: app.snapshots[SUBAGENT_KEY].view.leaf.id == leaf)  # type: ignore[union-attr]
        if tab == "checkpoints":
            await pilot.press("c")
            await wait_until(pilot, lambda: len(screen.query_one(CheckpointsView).stored) == 2)
            await pilot.press("d")
        else:
            screen.show_tab(tab)
        await settle(pilot)
        app.clear_notifications()

    return run_before


class TestSessionList:
    def test_list_120x36(self, snap_compare: Compare, sessions: Path, tmp_path: Path) -> None:
        app, _ = make_app([sessions], tmp_path / "state")
        assert snap_compare(app, terminal_size=(120, 36), run_before=_opening(None))

    def test_main_screen_80x24(self, snap_compare: Compare, sessions: Path, tmp_path: Path) -> None:
        app, _ = make_app([sessions], tmp_path / "state")
        assert snap_compare(app, terminal_size=(80, 24), run_before=_opening(None))

    def test_filter_80x24(self, snap_compare: Compare, sessions: Path, tmp_path: Path) -> None:
        async def run_before(pilot: Pilot[None]) -> None:
            await settle(pilot)
            await pilot.press("slash")
            pilot.app.screen.query_one(Input).cursor_blink = False  # a blinking cursor would flake the snapshot
            await pilot.press(*"agent")
            pilot.app.clear_notifications()

        app, _ = make_app([sessions], tmp_path / "state")
        assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


class TestSessionView:
    def test_over_compaction_line_120x36(self, snap_compare: Compare, sessions: Path, tmp_path: Path) -> None:
        app, _ = make_app([sessions], tmp_path / "state")
        assert snap_compare(app, terminal_size=(120, 36), run_before=_opening("agent:main:main"))

    def test_unknown_after_compaction_120x36(self, snap_compare: Compare, sessions: Path, tmp_path: Path) -> None:
        app, _ = make_app([sessions], tmp_path / "state")
        key = "agent:main:openresponses-user:9e983849"
        assert snap_compare(app, terminal_size=(120, 36), run_before=_opening(key))

    def test_session_80x24(self, snap_compare: Compare, sessions: Path, tmp_path: Path) -> None:
        app, _ = make_app([sessions], tmp_path / "state")
        assert snap_compare(app, terminal_size=(80, 24), run_before=_opening("agent:main:main"))

    def test_context_tab_120x36(self, snap_compare: Compare, sessions: Path, tmp_path: Path) -> None:
        app, _ = make_app([sessions], tmp_path / "state")
        assert snap_compare(app, terminal_size=(120, 36), run_before=_opening("agent:main:main", "context"))

    def test_light_theme_120x36(self, snap_compare: Compare, sessions: Path, tmp_path: Path) -> None:
        app, _ = make_app([sessions], tmp_path / "state", theme="textual-light")
        assert snap_compare(app, terminal_size=(120, 36), run_before=_opening("agent:main:main"))

    def test_near_threshold_120x36(self, snap_compare: Compare, sessions: Path, tmp_path: Path) -> None:
        app, _ = make_app([sessions], tmp_path / "state")
        key = "d703a1a9-1b7b-4fb1-b512-c9738b1fe617"  # 89% of 200k: near the agent's compaction line
        assert snap_compare(app, terminal_size=(120, 36), run_before=_opening(key))


class TestCompactDialog:
    def test_preview_120x36(self, snap_compare: Compare, tmp_path: Path) -> None:
        sessions = copy_fixtures([SUBAGENT], tmp_path / "sessions")
        app, _ = make_app([sessions], tmp_path / "state")
        assert snap_compare(app, terminal_size=(120, 36), run_before=_compacting(SUBAGENT_KEY, "k", 500))

    def test_degradation_high_120x36(self, snap_compare: Compare, tmp_path: Path) -> None:
        sessions = copy_fixtures([MAIN_SESSION, SESSIONS_JSON], tmp_path / "sessions")
        app, _ = make_app([sessions], tmp_path / "state")
        assert snap_compare(app, terminal_size=(120, 36), run_before=_compacting("agent:main:main", "k", 2000))

    def test_prune_80x24(self, snap_compare: Compare, tmp_path: Path) -> None:
        sessions = copy_fixtures([SUBAGENT], tmp_path / "sessions")
        app, _ = make_app([sessions], tmp_path / "state")
        assert snap_compare(app, terminal_size=(80, 24), run_before=_compacting(SUBAGENT_KEY, "p", 500))


class TestHistory:
    def test_checkpoint_diff_120x36(self, snap_compare: Compare, tmp_path: Path) -> None:
        transcript = copy_fixtures([SUBAGENT], tmp_path / "sessions") / SUBAGENT.name
        app, changes = make_app([transcript.parent], tmp_path / "state", auto_checkpoints=False)
        assert snap_compare(app, terminal_size=(120, 36),
                            run_before=_with_decisions(changes, transcript, "checkpoints"))

    def test_decisions_120x36(self, snap_compare: Compare, tmp_path: Path) -> None:
        transcript = copy_fixtures([SUBAGENT], tmp_path / "sessions") / SUBAGENT.name
        app, changes = make_app([transcript.parent], tmp_path / "state", auto_checkpoints=False)
        assert snap_compare(app, terminal_size=(120, 36),
                            run_before=_with_decisions(changes, transcript, "decisions"))


def _usage(pilot: Pilot[None]) -> Awaitable[None]:
    async def run() -> None:
        app = pilot.app
        assert isinstance(app, CtxscopeApp)
        await settle(pilot)
        await pilot.press("u")
        await wait_until(pilot, lambda: isinstance(app.screen, UsageScreen) and bool(app.screen.reports))
        await settle(pilot)
        app.clear_notifications()

    return run()


class TestUsage:
    def test_usage_120x36(self, snap_compare: Compare, sessions: Path, tmp_path: Path) -> None:
        app, _ = make_app([sessions], tmp_path / "state")
        app.usage_timezone = UTC
        assert snap_compare(app, terminal_size=(120, 36), run_before=_usage)

    def test_top_consumers_chooser_120x36(self, snap_compare: Compare, tmp_path: Path) -> None:
        sessions = copy_fixtures([SUBAGENT], tmp_path / "sessions")
        app, _ = make_app([sessions], tmp_path / "state")

        async def run_before(pilot: Pilot[None]) -> None:
            await _opening(SUBAGENT_KEY)(pilot)
            screen = pilot.app.screen
            assert isinstance(screen, SessionScreen)
            await wait_until(pilot, lambda: bool(screen.consumers))
            await pilot.press("t")
            await wait_until(pilot, lambda: isinstance(pilot.app.screen, ChooseConsumersDialog))
            await pilot.press("space", "down", "down", "space")
            await settle(pilot)

        assert snap_compare(app, terminal_size=(120, 36), run_before=run_before)
