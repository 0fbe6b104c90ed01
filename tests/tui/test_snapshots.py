"""Snapshot tests (pytest-textual-snapshot): real fixtures, a fixed clock, no animation, no cursor blink.

Review the report before running ``--snapshot-update``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from tests.conftest import OPENCLAW
from tests.tui.app_factory import copy_fixtures, make_app, settle, wait_until
from tui.screens.session_view import SessionScreen
from tui.widgets.session_table import SessionTable

Compare = Callable[..., bool]


@pytest.fixture
def sessions(tmp_path: Path) -> Path:
    return copy_fixtures(OPENCLAW.iterdir(), tmp_path / "sessions")


def _opening(key: str | None, tab: str | None = None) -> Callable[[Pilot[None]], Awaitable[None]]:
    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        if key is None:
            return
        table = pilot.app.screen.query_one(SessionTable)
        table.move_cursor(row=table.get_row_index(key))
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, SessionScreen))
        if tab is not None:
            pilot.app.screen.show_tab(tab)  # type: ignore[attr-defined]
        await settle(pilot)

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
