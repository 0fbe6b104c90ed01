"""The Usage screen (``u``, the palette) and the Top consumers card whose choice starts a prune of exactly those."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

from textual.message import Message
from textual.pilot import Pilot

from engine.agents.discovery import discover_sessions
from engine.usage.aggregate import aggregate_usage
from engine.usage.collect import collect_usage
from tests.conftest import MAIN_SESSION, SESSIONS_JSON, SUBAGENT
from tests.tui.app_factory import copy_fixtures, make_app, settle, wait_until
from tui.app import CtxscopeApp
from tui.dialogs.compact import CompactDialog
from tui.dialogs.prune_chosen import ChooseConsumersDialog
from tui.messages import PruneChosen
from tui.screens.session_view import SessionScreen
from tui.screens.usage import UsageScreen
from tui.widgets.session_table import SessionTable
from tui.widgets.top_consumers import TopConsumersCard
from tui.widgets.usage_bars import UsageBars

SUBAGENT_KEY = "3003a4e2-a8c1-417d-9ebc-76480d47d0c0"


async def _usage(pilot: Pilot[None]) -> UsageScreen:
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, UsageScreen))
    screen = app.screen
    assert isinstance(screen, UsageScreen)
    await wait_until(pilot, lambda: bool(screen.reports))
    return screen


async def test_u_shows_usage_by_day_model_and_project(tmp_path: Path) -> None:
    sessions = copy_fixtures([MAIN_SESSION, SESSIONS_JSON, SUBAGENT], tmp_path / "sessions")
    app, _ = make_app([sessions], tmp_path / "state")
    app.usage_timezone = UTC
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("u")
        screen = await _usage(pilot)
        usages, _ = collect_usage(discover_sessions([sessions]))
        for by in ("day", "model", "project"):
            expected = aggregate_usage(usages, by, tz=UTC)
            assert screen.reports[by].rows == expected.rows
            bars = screen.query_one(f"#usage-{by}", UsageBars)
            assert bars.report is screen.reports[by]
        drawn = str(screen.query_one("#usage-model", UsageBars).render())
        assert "MiniMax-M2.1" in drawn and "kimi-code" in drawn and "TOTAL" in drawn
        assert all(b.border_subtitle == "bars: cost · m: tokens" for b in screen.query(UsageBars))
        await pilot.press("m")
        assert all(b.metric == "tokens" for b in screen.query(UsageBars))
        assert all(b.border_subtitle == "bars: tokens · m: cost" for b in screen.query(UsageBars))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, UsageScreen))


async def test_one_session_is_one_session_in_the_usage_status(tmp_path: Path) -> None:
    sessions = copy_fixtures([SUBAGENT], tmp_path / "sessions")
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("u")
        screen = await _usage(pilot)
        status = str(screen.query_one("#usage-status").render())
        assert status.startswith("1 session · ") and "1 sessions" not in status


async def test_the_palette_offers_the_usage_report(tmp_path: Path) -> None:
    sessions = copy_fixtures([SUBAGENT], tmp_path / "sessions")
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        assert "Usage report" in commands
        commands["Usage report"].callback()
        await _usage(pilot)


async def test_top_consumers_start_a_prune_of_exactly_the_chosen(tmp_path: Path) -> None:
    sessions = copy_fixtures([SUBAGENT], tmp_path / "sessions")
    original = (sessions / SUBAGENT.name).read_bytes()
    seen: list[Message] = []
    app, _ = make_app([sessions], tmp_path / "state")
    app.compaction.debounce = 0
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await settle(pilot)
        assert isinstance(app, CtxscopeApp)
        table = app.session_list.query_one(SessionTable)
        table.move_cursor(row=table.get_row_index(SUBAGENT_KEY))
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionScreen))
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        await wait_until(pilot, lambda: bool(screen.consumers))
        card = screen.query_one(TopConsumersCard)
        assert card.consumers == screen.consumers
        tokens = [c.tokens for c in screen.consumers]
        assert tokens == sorted(tokens, reverse=True)
        # What the user sees: the card was blank in the live app (it never received the session's snapshot).
        shown = str(card.render())
        assert f"{tokens[0]:,} tok" in shown and card.border_subtitle == "t: choose and prune", shown
        # The share is of the messages only (the system prompt aside): the card says of what.
        assert str(card.border_title) == "Top consumers · % of the context's messages"
        await pilot.press("t")
        await wait_until(pilot, lambda: isinstance(app.screen, ChooseConsumersDialog))
        chooser = app.screen
        assert isinstance(chooser, ChooseConsumersDialog)
        await pilot.press("down", "space")  # the second largest (the largest may end the context)
        chosen = chooser.chosen
        assert len(chosen) == 1
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, CompactDialog))
        dialog = app.screen
        assert isinstance(dialog, CompactDialog)
        await wait_until(pilot, lambda: dialog.plan is not None)
        posted = {id(m): m for m in seen if isinstance(m, PruneChosen)}  # the hook sees it at each node it bubbles to
        assert [m.entry_ids for m in posted.values()] == [chosen]
        assert len(app.screen_stack) == 3  # list, session, one prune dialog
        assert dialog.plan is not None and dialog.plan.layer == "prune" and dialog.plan.targets == chosen
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionScreen))
    assert (sessions / SUBAGENT.name).read_bytes() == original  # a preview writes nothing


async def test_a_second_start_reads_only_what_was_appended(tmp_path: Path) -> None:
    sessions = copy_fixtures([MAIN_SESSION, SESSIONS_JSON, SUBAGENT], tmp_path / "sessions")
    first, _ = make_app([sessions], tmp_path / "state")
    async with first.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        before = {key: first.snapshots[key].to_status() for key in first.snapshots}
        assert all(first.tracker.follower(key).restored_bytes == 0 for key in before)  # type: ignore[union-attr]
    second, _ = make_app([sessions], tmp_path / "state")
    async with second.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        for key, status in before.items():
            follower = second.tracker.follower(key)
            assert follower is not None and follower.restored_bytes == Path(status["path"]).stat().st_size
            assert second.snapshots[key].to_status() == status
