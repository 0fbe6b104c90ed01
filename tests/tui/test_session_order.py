"""The session list's orders and filter, on the fixtures' real snapshots."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.agents.discovery import discover_sessions
from engine.session.snapshot import SessionFollower, SessionSnapshot
from tests.conftest import LISTED_FIXTURES
from tests.tui.app_factory import copy_fixtures, make_app, settle
from tui.textual_compat import FooterKey
from tui.widgets.session_order import SORTS, matches, ordered, project_label
from tui.widgets.session_table import SessionTable


@pytest.fixture
def snapshots(tmp_path: Path) -> list[SessionSnapshot]:
    sessions = copy_fixtures(LISTED_FIXTURES, tmp_path / "sessions")
    return [SessionFollower(s).refresh() for s in discover_sessions([sessions]).sessions]


def test_every_order_sorts_numbers_largest_first_and_names_a_to_z(snapshots: list[SessionSnapshot]) -> None:
    assert len(snapshots) >= 4
    by_context = ordered(snapshots, "context")
    known = [s.gauge.utilization for s in by_context if s.gauge.utilization is not None]
    assert known == sorted(known, reverse=True)
    assert all(s.gauge.utilization is None for s in by_context[len(known):])  # unknowns last
    assert [s.key.lower() for s in ordered(snapshots, "session")] == sorted(s.key.lower() for s in snapshots)
    active = [s.last_activity for s in ordered(snapshots) if s.last_activity is not None]
    assert active == sorted(active, reverse=True)
    for by in SORTS:
        assert sorted(s.key for s in ordered(snapshots, by)) == sorted(s.key for s in snapshots)  # nothing lost
    with pytest.raises(ValueError, match="unknown order"):
        ordered(snapshots, "colour")


def test_the_project_is_the_working_directory_and_the_filter_finds_it(snapshots: list[SessionSnapshot]) -> None:
    with_cwd = [s for s in snapshots if s.project]
    assert with_cwd
    for s in with_cwd:
        label = project_label(s)
        assert label and label in s.project.replace("\\", "/") and "/" not in label
        assert matches(s, label.upper())
    named = [project_label(s) for s in ordered(snapshots, "project") if project_label(s) != "-"]
    assert [n.lower() for n in named] == sorted(n.lower() for n in named)


@pytest.mark.parametrize("width", [100, 120, 160])
async def test_the_list_fits_the_terminal_without_a_horizontal_scrollbar(tmp_path: Path, width: int) -> None:
    # At 120 columns the list was one cell too wide: a scrollbar row sat above the preview in every screenshot.
    sessions = copy_fixtures(LISTED_FIXTURES, tmp_path / "sessions")
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=(width, 30)) as pilot:
        await settle(pilot)
        table = app.session_list.query_one(SessionTable)
        assert table.row_count == len(app.snapshots) > 0
        assert table.virtual_size.width <= table.region.width, (table.virtual_size, table.region)
        assert not table.show_horizontal_scrollbar


async def test_at_80_columns_the_preview_names_the_project_and_model_the_list_drops(tmp_path: Path) -> None:
    sessions = copy_fixtures(LISTED_FIXTURES, tmp_path / "sessions")
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.session_list.query_one(SessionTable)
        table.move_cursor(row=table.get_row_index("agent:main:main"))
        await pilot.pause()
        title = str(app.session_list.query_one("#preview").border_title)
        assert "clawd" in title and "MiniMax-M2.1" in title, title


@pytest.mark.parametrize("width", [80, 100])
async def test_footer_keys_that_do_not_fit_are_left_out_rather_than_slid_under_the_palette_key(
    tmp_path: Path, width: int
) -> None:
    sessions = copy_fixtures(LISTED_FIXTURES, tmp_path / "sessions")
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=(width, 24)) as pilot:
        await settle(pilot)
        keys = list(app.session_list.query(FooterKey))
        palette = [k for k in keys if k.has_class("-command-palette")]
        assert len(palette) == 1 and palette[0].region.right <= width
        for key in keys:
            if key is not palette[0]:
                assert key.region.right <= palette[0].region.x, (key.key_display, key.region, palette[0].region)
