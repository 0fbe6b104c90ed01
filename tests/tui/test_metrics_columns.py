"""The session list's ``m`` columns show what ``watch --metrics`` exports for each session, read the same way."""

from __future__ import annotations

from pathlib import Path

from engine.config.metrics_settings import MetricsSettings
from engine.live.activity import ActivityRecorder
from engine.live.exposition import SidecarCollector
from tests.conftest import OPENCLAW
from tests.tui.app_factory import FIXED_NOW, copy_fixtures, make_app, settle, wait_until
from tui.screens.help import HelpScreen
from tui.widgets.session_table import SessionTable, metric_cells


async def test_m_shows_the_exported_values_and_m_again_the_usual_columns(tmp_path: Path) -> None:
    app, _ = make_app([copy_fixtures(OPENCLAW.iterdir(), tmp_path / "sessions")], tmp_path / "state")
    async with app.run_test(size=(160, 36)) as pilot:
        await settle(pilot)
        await wait_until(pilot, lambda: app.sessions_loaded and len(app.insights) == len(app.snapshots) > 0)
        table = app.session_list.query_one(SessionTable)
        usual = [str(column.key.value) for column in table.ordered_columns]
        await pilot.press("m")
        await pilot.pause()
        columns = [str(column.key.value) for column in table.ordered_columns]
        assert columns[0] == "session" and columns[-1] == "active" and "m_degradation" in columns
        # What the exporter would serve for these sessions right now (every session: no idle cut-off here).
        collector = SidecarCollector(app.tracker, ActivityRecorder(), MetricsSettings(1e12), clock=lambda: FIXED_NOW)
        exported = {row.session: metric_cells(row) for row in collector.scrape().sessions}
        assert len(exported) == len(app.snapshots)
        for key, cells in exported.items():
            for column, value in cells.items():
                assert str(table.get_cell(key, column)) == value, (key, column)
        snapshot = app.snapshots["agent:main:main"]
        assert snapshot.tokens.tokens is not None
        assert str(table.get_cell("agent:main:main", "m_tokens")) == f"{snapshot.tokens.tokens:,}"
        await pilot.press("m")
        await pilot.pause()
        assert [str(column.key.value) for column in table.ordered_columns] == usual


async def test_the_help_lists_the_metrics_key(tmp_path: Path) -> None:
    app, _ = make_app([copy_fixtures(OPENCLAW.iterdir(), tmp_path / "sessions")], tmp_path / "state")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert "watch --metrics" in str(app.screen.query_one("Static").render())
