"""Issue 28, item 5: notices never cover the work, routine ones are only filed, a key dismisses them, and a
history lists them all."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widget import Widget

from tests.conftest import MAIN_SESSION, SESSIONS_JSON
from tests.tui.app_factory import copy_fixtures, make_app, settle, wait_until
from tests.tui.test_views import _open
from tui.screens.session_view import TABS

MAIN_KEY = "agent:main:main"


def _floating(screen: Widget) -> list[Widget]:
    """Everything drawn over the panes: Textual's toasts (any left with a region) and the notice line."""
    toasts = [w for w in screen.query("Toast") if w.region]
    return toasts + [w for w in screen.query("#notice-line") if w.display and w.region]


@pytest.mark.parametrize("size", [(120, 36), (80, 24)])
async def test_no_notice_covers_the_active_pane_of_any_tab(tmp_path: Path, size: tuple[int, int]) -> None:
    sessions = copy_fixtures([MAIN_SESSION, SESSIONS_JSON], tmp_path / "sessions")
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=size, notifications=True) as pilot:
        await settle(pilot)
        screen = await _open(pilot, MAIN_KEY)
        for tab in TABS:
            screen.show_tab(tab)
            await pilot.pause()
            app.tell(f"{tab}: near the agent's compaction line (84%).", title="Threshold crossed",
                     severity="warning", timeout=30)
            app.tell(f"{tab}: medium → high after 3 compactions.", title="Risk level changed", severity="error",
                     timeout=30)
            await wait_until(pilot, lambda: any("Risk level" in str(w.render()) for w in _floating(screen)))
            await pilot.pause()
            pane = screen.query_one(f"#{tab}").region
            assert pane, tab
            for widget in _floating(screen):
                assert not widget.region.overlaps(pane), (tab, widget, widget.region, pane)


async def test_routine_notices_are_filed_not_shown_and_n_lists_every_notice(tmp_path: Path) -> None:
    sessions = copy_fixtures([MAIN_SESSION, SESSIONS_JSON], tmp_path / "sessions")
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await settle(pilot)
        screen = await _open(pilot, MAIN_KEY)
        app.toasts.dismiss_all()  # what the start said (checkpoints written at start)
        await wait_until(pilot, lambda: not _floating(screen))
        app.tell("agent:main:main: cp_004 (auto-75pct) at 75%", title="Checkpoint written", routine=True)
        await pilot.pause()
        assert not _floating(screen)  # the Audit tab lists the checkpoint; the notice line stays clear
        app.tell("agent:main:main: near the agent's compaction line.", title="Threshold crossed", severity="warning")
        await wait_until(pilot, lambda: bool(_floating(screen)))
        await pilot.press("z")  # dismiss
        await wait_until(pilot, lambda: not _floating(screen))
        await pilot.press("n")
        from tui.screens.notices import NoticesScreen

        await wait_until(pilot, lambda: isinstance(app.screen, NoticesScreen))
        listed = str(app.screen.query_one("Static").render())
        assert "cp_004 (auto-75pct)" in listed and "near the agent's compaction line" in listed
        assert "filed: routine" in listed


async def test_a_screens_own_notify_and_textuals_reach_the_notice_line(tmp_path: Path) -> None:
    # Textual's toasts are off (tui/textual_compat.py, ToastsOff): a screen's `self.notify` ("The context is still
    # being measured.", "Sessions sorted by …") and Textual's own (ctrl+c's hint) went to them and were never seen.
    sessions = copy_fixtures([MAIN_SESSION, SESSIONS_JSON], tmp_path / "sessions")
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await settle(pilot)
        screen = await _open(pilot, MAIN_KEY)
        app.toasts.dismiss_all()
        await wait_until(pilot, lambda: not _floating(screen))
        screen.notify("The context is still being measured.", severity="warning")
        await wait_until(pilot, lambda: any("still being measured" in str(w.render()) for w in _floating(screen)))
        app.action_help_quit()  # Textual's hint, in markup: shown as its text
        await wait_until(pilot, lambda: any("to quit the app" in str(w.render()) for w in _floating(screen)))
        line = str(screen.query_one("#notice-line").render())
        assert "Press q to quit the app" in line or "Press ctrl+q to quit the app" in line, line
        assert "[b]" not in line
        said = [s.text for s in app.notifier.history]
        assert "The context is still being measured." in said  # in the history too (`n`)


async def test_a_notice_quoting_session_data_keeps_its_brackets(tmp_path: Path) -> None:
    # An entry id is session data: "[b]x[/b]" in it is text to show, not markup to apply (or to strip).
    sessions = copy_fixtures([MAIN_SESSION, SESSIONS_JSON], tmp_path / "sessions")
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await settle(pilot)
        screen = await _open(pilot, MAIN_KEY)
        screen.notify("[b]v1-9[/b] is no longer in the context.", severity="warning", markup=False)
        await wait_until(pilot, lambda: any("no longer in the context" in s.text for s in app.notifier.history))
        said = [s.text for s in app.notifier.history]
        assert "[b]v1-9[/b] is no longer in the context." in said, said
