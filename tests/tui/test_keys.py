"""Issue 28, item 8: vim-style movement where it does not clash with an action key, Home/End reaching the ends of
every table and list, a help that lists ctxscope's keys only, and Ctrl+End reaching the end of the summary."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, SelectionList, Static

from tests.conftest import LISTED_FIXTURES, SUBAGENT
from tests.tui.app_factory import copy_fixtures, make_app, settle, wait_until
from tests.tui.test_actions import MAIN_KEY, SUBAGENT_KEY, _dialog
from tests.tui.transcript_lines import append, user
from tui.app import CtxscopeApp
from tui.dialogs.compact import CompactDialog
from tui.dialogs.prune_chosen import ChooseConsumersDialog
from tui.screens.help import HelpScreen
from tui.screens.notices import NoticesScreen
from tui.screens.session_view import SessionScreen
from tui.widgets.branch_tree import BranchTree
from tui.widgets.checkpoints import CheckpointList
from tui.widgets.context_table import ContextTable
from tui.widgets.session_table import SessionTable
from tui.widgets.summary_editor import SummaryEditor
from tui.widgets.transcript import TranscriptTail

SIZES = [(80, 24), (120, 36)]


@pytest.fixture
def sessions(tmp_path: Path) -> Path:
    return copy_fixtures(LISTED_FIXTURES, tmp_path / "sessions")


async def _open(pilot: Pilot[None], key: str) -> SessionScreen:
    app = pilot.app
    assert isinstance(app, CtxscopeApp)
    table = app.session_list.query_one(SessionTable)
    table.move_cursor(row=table.get_row_index(key))
    await pilot.press("enter")
    await wait_until(pilot, lambda: isinstance(app.screen, SessionScreen))
    assert isinstance(app.screen, SessionScreen)
    return app.screen


async def _tab(pilot: Pilot[None], screen: SessionScreen, number: str, view: type[object]) -> None:
    await pilot.press(number)
    await wait_until(pilot, lambda: isinstance(screen.focused, view))


def _row(table: DataTable[object]) -> int:
    return table.cursor_coordinate.row


@pytest.mark.parametrize("size", SIZES)
async def test_home_end_g_and_G_reach_the_ends_of_the_context_table(sessions: Path, tmp_path: Path,
                                                                    size: tuple[int, int]) -> None:
    # Home and End scrolled the table sideways (DataTable binds them to the columns); g/G did nothing.
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = await _open(pilot, MAIN_KEY)
        await _tab(pilot, screen, "2", ContextTable)
        table = screen.query_one(ContextTable)
        await wait_until(pilot, lambda: table.row_count > 3)
        last = table.row_count - 1
        assert _row(table) == last  # the table opens on the newest message
        await pilot.press("home")
        assert _row(table) == 0
        assert table.scroll_y == 0
        await pilot.press("end")
        assert _row(table) == last
        await pilot.press("g")
        assert _row(table) == 0
        await pilot.press("j", "j")
        assert _row(table) == 2
        await pilot.press("G")
        assert _row(table) == last
        assert isinstance(app.screen, SessionScreen)


async def test_every_table_and_list_of_the_session_view_has_the_same_movement_keys(sessions: Path,
                                                                                  tmp_path: Path) -> None:
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = await _open(pilot, MAIN_KEY)
        await pilot.press("c")  # two checkpoints, so the list has two rows
        await wait_until(pilot, lambda: len(screen._stored) >= 1)
        await pilot.press("c")
        await wait_until(pilot, lambda: len(screen._stored) >= 2)
        await _tab(pilot, screen, "4", CheckpointList)
        checkpoints = screen.query_one(CheckpointList)
        await wait_until(pilot, lambda: checkpoints.row_count >= 2)
        await pilot.press("G")
        assert _row(checkpoints) == checkpoints.row_count - 1
        await pilot.press("home")
        assert _row(checkpoints) == 0

        await _tab(pilot, screen, "3", TranscriptTail)
        tail = screen.query_one(TranscriptTail)
        await wait_until(pilot, lambda: len(tail.messages) > 2)
        await pilot.press("g")
        assert tail.cursor == 0
        await pilot.press("j")
        assert tail.cursor == 1
        await pilot.press("end")
        assert tail.cursor == len(tail.messages) - 1



async def test_the_tree_moves_with_the_same_keys(tmp_path: Path) -> None:
    transcript = copy_fixtures([SUBAGENT], tmp_path / "sessions") / SUBAGENT.name
    entries = [orjson.loads(raw) for raw in transcript.read_bytes().splitlines()]
    fork = [e["id"] for e in entries if e.get("type") == "message"][2]
    append(transcript, user("fork-1", fork, "let's try that again"))  # a branch point: the tree has several lines
    app, _ = make_app([transcript.parent], tmp_path / "state")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = await _open(pilot, SUBAGENT_KEY)
        await _tab(pilot, screen, "6", BranchTree)
        tree = screen.query_one(BranchTree)
        await wait_until(pilot, lambda: tree.last_line > 0)
        await pilot.press("G")
        assert tree.cursor_line == tree.last_line
        await pilot.press("g")
        assert tree.cursor_line == 0
        await pilot.press("j")
        assert tree.cursor_line == 1
        await pilot.press("end")
        assert tree.cursor_line == tree.last_line


async def test_j_g_G_move_in_the_session_list_and_k_stays_compact(sessions: Path, tmp_path: Path) -> None:
    # The decision (docs/keys.md): k is Compact on every screen, so no list takes it; only in a dialog does k move.
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.session_list.query_one(SessionTable)
        assert app.focused is table
        await pilot.press("G")
        assert _row(table) == table.row_count - 1
        await pilot.press("g")
        assert _row(table) == 0
        await pilot.press("j")
        assert _row(table) == 1
        table.move_cursor(row=table.get_row_index(SUBAGENT_KEY))
        await pilot.press("k")
        await wait_until(pilot, lambda: isinstance(app.screen, CompactDialog))


async def test_k_moves_up_in_the_top_consumers_chooser(tmp_path: Path) -> None:
    sessions = copy_fixtures([SUBAGENT], tmp_path / "sessions")
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = await _open(pilot, SUBAGENT_KEY)
        await wait_until(pilot, lambda: bool(screen.consumers))
        await pilot.press("t")
        await wait_until(pilot, lambda: isinstance(app.screen, ChooseConsumersDialog))
        chooser = app.screen.query_one(SelectionList)
        await pilot.press("j", "j")
        assert chooser.highlighted == 2
        await pilot.press("k")
        assert chooser.highlighted == 1
        await pilot.press("G")
        assert chooser.highlighted == chooser.option_count - 1
        await pilot.press("g")
        assert chooser.highlighted == 0
        assert isinstance(app.screen, ChooseConsumersDialog)  # k opened no compaction over the chooser


@pytest.mark.parametrize("size", SIZES)
async def test_help_lists_ctxscopes_keys_not_textuals_defaults(sessions: Path, tmp_path: Path,
                                                               size: tuple[int, int]) -> None:
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = await _open(pilot, MAIN_KEY)
        await _tab(pilot, screen, "2", ContextTable)
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        text = str(app.screen.query_one(Static).render())
        for default in ("Copy selected text", "super+c", "Focus Next", "Page Left", "^q", "Quit the app"):
            assert default not in text
        for ours in (" home g  Go to the top", " end G  Go to the bottom", " ↓ j  Move down", " k  Preview and "
                     "apply a compaction", " q  Quit", " 2  Context tab"):
            assert ours in text
        assert "k moves up" in text  # the help says why k is not "up" here


async def test_ctrl_end_in_the_summary_editor_reaches_the_end(tmp_path: Path) -> None:
    sessions = copy_fixtures([SUBAGENT], tmp_path / "sessions")
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        dialog = await _dialog(pilot, SUBAGENT_KEY, "k")
        editor = dialog.query_one("#summary-text", SummaryEditor)
        await wait_until(pilot, lambda: editor.text.count("\n") > 5)
        editor.focus()
        editor.move_cursor((0, 0))
        await pilot.press("ctrl+end")
        assert editor.cursor_location == editor.document.end
        assert editor.scroll_y == editor.max_scroll_y
        await pilot.press("ctrl+home")
        assert editor.cursor_location == (0, 0)
        assert isinstance(app.screen, CompactDialog)


async def test_n_and_z_work_inside_a_dialog_and_stay_text_in_its_editor(tmp_path: Path) -> None:
    # Textual stops a dialog's bindings at the dialog: the App's n and z did nothing there, while a notice could
    # cover the dialog's lines.
    sessions = copy_fixtures([SUBAGENT], tmp_path / "sessions")
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await settle(pilot)
        dialog = await _dialog(pilot, SUBAGENT_KEY, "k")
        app.tell("near the agent's compaction line.", title="Threshold crossed", severity="warning", timeout=60)
        await wait_until(pilot, lambda: any("compaction line" in n.message for n in app.toasts.current()))
        await pilot.press("z")
        await wait_until(pilot, lambda: not app.toasts.current())
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, NoticesScreen))
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is dialog)
        editor = dialog.query_one("#summary-text", SummaryEditor)
        await wait_until(pilot, lambda: editor.text.count("\n") > 5)
        editor.focus()
        editor.move_cursor((0, 0))
        await pilot.press("n", "z")
        assert editor.text.startswith("nz") and app.screen is dialog
