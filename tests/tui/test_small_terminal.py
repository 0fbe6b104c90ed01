"""Issue 28, item 10: ctxscope at 80×24 — the Checkpoints tab's essential columns fit, the compact dialog's key facts
show without scrolling, and the footer keeps the control keys."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Static
from textual.widgets._footer import FooterKey

from tests.conftest import LISTED_FIXTURES
from tests.tui.app_factory import copy_fixtures, make_app, settle, wait_until
from tests.tui.test_actions import MAIN_KEY, _dialog, _keep_recent
from tests.tui.test_keys import _open, _tab
from tui.screens.session_view import SessionScreen
from tui.widgets.checkpoints import CheckpointList
from tui.widgets.context_table import ContextTable
from tui.widgets.footer import KeyFooter
from tui.widgets.transcript import TranscriptTail

SIZES = [(80, 24), (120, 36)]
CONTROLS = ("c", "k", "p", "d")


@pytest.fixture
def sessions(tmp_path: Path) -> Path:
    return copy_fixtures(LISTED_FIXTURES, tmp_path / "sessions")


def _screen_text(pilot: Pilot[None]) -> list[str]:
    """Every row of the terminal as the user sees it."""
    return ["".join(s.text for s in strip) for strip in pilot.app.screen._compositor.render_strips()]


def _visible_text(widget: Widget) -> str:
    """What ``widget`` draws inside the screen (rows below the screen's edge are not seen)."""
    region = widget.region.intersection(widget.screen.region)
    if not region.height:
        return ""
    lines = widget.render_lines(Region(0, 0, widget.outer_size.width, region.height))
    return "\n".join("".join(s.text for s in strip) for strip in lines)


async def _footer_keys(pilot: Pilot[None]) -> list[str]:
    footer = pilot.app.screen.query_one(KeyFooter)
    await wait_until(pilot, lambda: bool(footer.query(FooterKey)))
    await pilot.pause()
    return [key.key for key in footer.query(FooterKey)]


@pytest.mark.parametrize("size", SIZES)
async def test_the_footer_keeps_the_control_keys_and_help(sessions: Path, tmp_path: Path,
                                                          size: tuple[int, int]) -> None:
    # At 80 columns the footer lost p and d (it drops what does not fit from its end, and they came last).
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        keys = await _footer_keys(pilot)
        assert set(CONTROLS) | {"question_mark"} <= set(keys), keys
        screen = await _open(pilot, MAIN_KEY)
        views = (("1", None), ("2", ContextTable), ("3", TranscriptTail), ("4", CheckpointList))
        for number, view in views:
            if view is None:
                await pilot.press(number)
            else:
                await _tab(pilot, screen, number, view)
            keys = await _footer_keys(pilot)
            assert set(CONTROLS) | {"question_mark", "escape"} <= set(keys), (number, keys)
        # What the user reads on the last row, too: every kept key is drawn whole.
        last = _screen_text(pilot)[-1]
        for label in ("c Checkpoint", "k Compact", "p Prune", "d Diff", "? Help", "esc Back"):
            assert label in last, last


@pytest.mark.parametrize("size", SIZES)
async def test_the_checkpoint_list_shows_id_trigger_and_tokens_whole(sessions: Path, tmp_path: Path,
                                                                     size: tuple[int, int]) -> None:
    # At 80 columns the trigger read "pre-compa" and the tokens column was past the list's edge.
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = await _open(pilot, MAIN_KEY)
        assert isinstance(screen, SessionScreen)
        await pilot.press("c")
        await wait_until(pilot, lambda: len(screen._stored) >= 1)
        await _tab(pilot, screen, "4", CheckpointList)
        table = screen.query_one(CheckpointList)
        await wait_until(pilot, lambda: table.row_count >= 1)
        await pilot.pause()
        shown = _visible_text(table)
        triggers = {item.checkpoint.meta.trigger for item in screen._stored if item.checkpoint is not None}
        assert "pre-compaction-margin" in triggers  # the fixture's own checkpoints include the longest trigger
        expected = "pre-compaction" if size[0] < 100 else "pre-compaction-margin"
        assert expected in shown, shown
        assert "Tokens" in shown, shown
        for item in screen._stored:
            assert item.checkpoint is not None
            usage = item.checkpoint.meta.token_usage
            assert f"{usage.utilization:.0%}" in shown and item.checkpoint_id in shown, shown


async def test_the_compact_dialogs_key_facts_show_without_scrolling_at_80x24(sessions: Path, tmp_path: Path) -> None:
    # At 80×24 the dry run showed four lines: the cost, the warnings and what is dropped were below the fold.
    app, _ = make_app([sessions], tmp_path / "state")
    app.compaction.debounce = 0
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        dialog = await _dialog(pilot, MAIN_KEY, "k")
        await _keep_recent(pilot, dialog, 2000)
        plan = dialog.plan
        assert plan is not None and plan.warnings and plan.cost is not None
        await pilot.pause()
        seen = "\n".join(_screen_text(pilot))
        assert f"{len(plan.warnings)} warnings" in seen and plan.warnings[0][:30] in seen, seen  # warnings
        assert f"{plan.messages_summarized:,} out ({plan.tokens_summarized:,} tokens)" in seen, seen  # what is dropped
        assert f"{plan.context_tokens_before:,} → {plan.context_tokens_after:,}" in seen, seen
        assert "cost     write $" in seen and "payback" in seen, seen  # cost
        assert "^s Compact" in seen and "esc Cancel" in seen, seen  # the confirm key
        assert "Compact anyway" in seen  # the risk confirmation and the buttons are on screen too
        box = dialog.query_one("#compact-box").region
        for button in ("#apply", "#cancel"):
            assert dialog.query_one(button).region.bottom <= box.bottom - 1  # inside the box's border
        assert str(dialog.query_one("#plan-figures", Static).render()).startswith("tokens")
