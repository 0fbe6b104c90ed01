"""What the views show: engine assessments on the cards and in the list, checkpoints, decisions."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Static
from textual.widgets._toast import Toast

from engine.accounting.timeline import Timeline
from engine.checkpoints.model import Checkpoint
from engine.checkpoints.store import latest_checkpoint
from engine.compaction.degradation import assess_degradation
from sim.session_generator import generate_session_file
from tests.conftest import LISTED_FIXTURES, MAIN_SESSION, SESSIONS_JSON, SUBAGENT
from tests.tui.app_factory import copy_fixtures, make_app, settle, wait_until
from tests.tui.transcript_lines import append, decision_exchange, reply, user
from tui.app import CtxscopeApp
from tui.dialogs.message_view import MessageView
from tui.dialogs.risk_detail import RiskDetail
from tui.screens.session_view import SessionScreen
from tui.widgets.branch_tree import BranchTree
from tui.widgets.cards import CostCard, RiskCard
from tui.widgets.checkpoints import CheckpointList, CheckpointsView
from tui.widgets.context_table import ContextTable
from tui.widgets.notice_line import NoticeLine
from tui.widgets.plot import UtilizationPlot, plot_content
from tui.widgets.session_table import SessionTable
from tui.widgets.tab_bar import TabBar
from tui.widgets.transcript import TranscriptTail

SUBAGENT_KEY = "3003a4e2-a8c1-417d-9ebc-76480d47d0c0"
SUBAGENT_LEAF = "562b10c7"
MAIN_KEY = "agent:main:main"


async def _open(pilot: Pilot[None], key: str) -> SessionScreen:
    app = pilot.app
    assert isinstance(app, CtxscopeApp)
    table = app.session_list.query_one(SessionTable)
    table.move_cursor(row=table.get_row_index(key))
    await pilot.press("enter")
    await wait_until(pilot, lambda: isinstance(app.screen, SessionScreen))
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, SessionScreen)
    return screen


def _text(screen: SessionScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def test_risk_and_cost_cards_render_the_engine_assessment(tmp_path: Path) -> None:
    sessions = copy_fixtures([MAIN_SESSION, SESSIONS_JSON], tmp_path / "sessions")
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = await _open(pilot, MAIN_KEY)
        expected = assess_degradation(app.snapshots[MAIN_KEY], checkpoints=(_latest(tmp_path / "state"),))
        assert app.insights[MAIN_KEY].degradation == expected
        risk = str(screen.query_one(RiskCard).render())
        assert "HIGH · 4 compactions (3 on path) · ~40% lost" in risk
        assert "3 summaries unavailable" in risk and "summarized nothing new" in risk
        cost = str(screen.query_one(CostCard).render())
        assert "$4.29 (mixed)" in cost and "cold" in cost and "19% of spend" in cost


def _visible(widget: Widget) -> str:
    """What ``widget`` shows on screen, border included, without spaces (wrapping moves them)."""
    strips = widget.render_lines(Region(0, 0, *widget.outer_size))
    return "".join(segment.text for strip in strips for segment in strip).replace(" ", "")


async def test_at_80_columns_r_shows_the_advice_whole_that_the_card_cuts(tmp_path: Path) -> None:
    sessions = copy_fixtures([MAIN_SESSION, SESSIONS_JSON], tmp_path / "sessions")
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = await _open(pilot, MAIN_KEY)
        await wait_until(pilot, lambda: app.insights.get(MAIN_KEY) is not None)
        advice = [line.strip().replace(" ", "") for line in
                  app.insights[MAIN_KEY].degradation.report.recommendation.splitlines() if line.strip()]
        card = screen.query_one(RiskCard)
        assert not all(line in _visible(card) for line in advice), "the card should cut the advice at 80 columns"
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, RiskDetail))
        await settle(pilot)
        whole = _visible(app.screen.query_one(RiskCard))
        assert all(line in whole for line in advice), whole
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen)


async def test_critical_advice_keeps_two_rows_so_the_plot_and_its_caption_stay_on_screen(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    generate_session_file(sessions / "critical.jsonl", target_bytes=300_000, compaction_every=6, seed=3)
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        key = next(iter(app.snapshots))
        screen = await _open(pilot, key)
        await wait_until(pilot, lambda: app.insights.get(key) is not None and screen.timeline is not None)
        await settle(pilot)
        assert app.insights[key].degradation.report.level == "critical"
        card = _visible(screen.query_one(RiskCard))
        # The numbered steps joined on one row.
        assert "ctxscopecheckpointSESSION→startafreshsession→ctxscopeinjectNEW_SESSION" in card, card
        plot = screen.query_one(UtilizationPlot)
        assert plot.region.bottom <= app.size.height - 1, "the plot runs under the footer"
        timeline = screen.timeline
        assert timeline is not None and f"{timeline.turns}replies" in _visible(plot)
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, RiskDetail))
        await settle(pilot)
        whole = _visible(app.screen.query_one(RiskCard))
        assert "1.ctxscopecheckpointSESSION" in whole and "3.ctxscopeinjectNEW_SESSION" in whole, whole


async def test_clicks_queued_on_the_risk_card_open_one_dialog(tmp_path: Path) -> None:
    # Clicks that reach the session screen after the first one opened the dialog (a user clicking fast, a terminal
    # replaying events) pushed a second screen with the same id: DuplicateIds crashed the app.
    sessions = copy_fixtures([MAIN_SESSION, SESSIONS_JSON], tmp_path / "sessions")
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = await _open(pilot, next(iter(app.snapshots)))
        await wait_until(pilot, lambda: screen.snapshot is not None)
        screen.action_risk_detail()
        screen.action_risk_detail()
        await wait_until(pilot, lambda: isinstance(app.screen, RiskDetail))
        await settle(pilot)
        assert sum(isinstance(s, RiskDetail) for s in app.screen_stack) == 1
        assert app.is_running


def test_the_plot_says_measuring_until_its_timeline_arrives_and_no_replies_only_when_there_are_none() -> None:
    assert "measuring" in plot_content(None, None, 80, 8).plain
    empty = plot_content(Timeline((), 200_000), None, 80, 8).plain
    assert "No model replies" in empty and "measuring" not in empty


@pytest.mark.parametrize("size", [(120, 36), (80, 24)])
async def test_a_click_on_a_tab_label_shows_its_pane_and_all_labels_fit(tmp_path: Path, size: tuple[int, int]) -> None:
    sessions = copy_fixtures([MAIN_SESSION, SESSIONS_JSON], tmp_path / "sessions")
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = await _open(pilot, MAIN_KEY)
        bar = screen.query_one(TabBar)
        # The labels on the first row, the rule alone on the second (at 80 columns "Audit" wrapped onto it).
        first, second = (
            "".join(segment.text for segment in strip)
            for strip in bar.render_lines(Region(0, 0, bar.outer_size.width, 2))
        )
        assert all(label in first for label in ("Overview", "Context", "Transcript", "Tree", "Audit")), first
        assert set(second.strip()) == {"━"}, second
        (start, _end), padding = next((s, e) for t, s, e in bar._spans() if t == "tree"), bar.styles.padding.left
        await pilot.click(TabBar, offset=(padding + start + 1, 0))
        await wait_until(pilot, lambda: bar.active == "tree" and screen.query_one("#tree").display)
        assert not screen.query_one("#overview").display
        await wait_until(pilot, lambda: bool(screen.query(BranchTree)))


def _latest(state: Path) -> Checkpoint:
    loaded = latest_checkpoint(state, MAIN_KEY)
    assert loaded is not None
    return loaded.checkpoint


async def test_session_list_shows_degradation_risk_and_spend(tmp_path: Path) -> None:
    sessions = copy_fixtures(LISTED_FIXTURES, tmp_path / "sessions")
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        table = app.session_list.query_one(SessionTable)

        def cells(key: str) -> tuple[str, str]:
            row = table.get_row(key)
            columns = [str(c.key.value) for c in table.ordered_columns]
            return row[columns.index("risk")].plain, row[columns.index("spend")].plain

        assert cells(MAIN_KEY) == ("high", "$4.29")
        assert cells("agent:main:openresponses-user:9e983849") == ("medium", "$0.21")
        # 89% full but never compacted: the gauge is high, the degradation risk is not.
        assert cells("d703a1a9-1b7b-4fb1-b512-c9738b1fe617") == ("low", "$30.33")  # cents, as the header says


async def test_checkpoints_tab_diffs_against_the_previous_or_the_marked_one(tmp_path: Path) -> None:
    transcript = copy_fixtures([SUBAGENT], tmp_path / "sessions") / SUBAGENT.name
    app, changes = make_app([transcript.parent], tmp_path / "state", auto_checkpoints=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = await _open(pilot, SUBAGENT_KEY)
        await pilot.press("4")  # the Checkpoints tab: its view is mounted when first shown
        await pilot.press("c")
        await wait_until(pilot, lambda: len(screen.query_one(CheckpointsView).stored) == 1)
        entries, leaf = decision_exchange(SUBAGENT_LEAF, 40_000)
        append(transcript, *entries)
        changes.push(transcript)
        await wait_until(pilot, lambda: app.snapshots[SUBAGENT_KEY].view.leaf.id == leaf)  # type: ignore[union-attr]
        await pilot.press("c")
        await wait_until(pilot, lambda: len(screen.query_one(CheckpointsView).stored) == 2)
        append(transcript, reply("r9", leaf, 60_000))
        changes.push(transcript)
        await wait_until(pilot, lambda: app.snapshots[SUBAGENT_KEY].view.leaf.id == "r9")  # type: ignore[union-attr]
        await pilot.press("c")
        await wait_until(pilot, lambda: len(screen.query_one(CheckpointsView).stored) == 3)

        await pilot.press("d")
        await settle(pilot)
        view = screen.query_one(CheckpointsView)
        assert screen.query_one(TabBar).active == "checkpoints"
        assert view.pair == ("cp_002", "cp_003")
        assert "cp_002 → cp_003" in _text(screen, "#diff-text")
        old, new = (c.checkpoint for c in view.stored[1:])
        assert old is not None and new is not None
        delta = new.meta.token_usage.input_tokens - old.meta.token_usage.input_tokens
        assert delta > 0 and f"tokens {delta:+,}" in _text(screen, "#diff-text")

        table = screen.query_one(CheckpointList)
        assert [str(r.key.value) for r in table.ordered_rows] == ["cp_003", "cp_002", "cp_001"]
        table.focus()
        table.move_cursor(row=2)  # cp_001
        await pilot.press("space")
        table.move_cursor(row=0)  # cp_003
        await pilot.pause()
        assert view.marks == ["cp_001"] and view.pair == ("cp_001", "cp_003")
        diff = _text(screen, "#diff-text")
        assert "cp_001 → cp_003" in diff and "marked vs highlighted" in diff
        assert "Decision: use SQLite for the session index" in diff  # a decision added since cp_001
        assert "--- cp_001.yaml" in _text(screen, "#raw-text") and "+++ cp_003.yaml" in _text(screen, "#raw-text")
        assert "<checkpoint-data" in _text(screen, "#rendered-text")
        table.move_cursor(row=1)  # cp_002, then mark it too: the two marked are compared
        await pilot.press("space")
        await pilot.pause()
        assert view.marks == ["cp_001", "cp_002"] and view.pair == ("cp_001", "cp_002")


async def test_decisions_tab_shows_live_capture_then_the_checkpoint_as_source(tmp_path: Path) -> None:
    transcript = copy_fixtures([SUBAGENT], tmp_path / "sessions") / SUBAGENT.name
    app, changes = make_app([transcript.parent], tmp_path / "state", auto_checkpoints=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = await _open(pilot, SUBAGENT_KEY)
        screen.show_tab("decisions")
        await pilot.pause()  # the tab's view is mounted when first shown
        entries, _ = decision_exchange(SUBAGENT_LEAF, 40_000)
        append(transcript, *entries)
        changes.push(transcript)
        await wait_until(pilot, lambda: "use SQLite" in _text(screen, "#decisions-text"))
        await settle(pilot)
        text = _text(screen, "#decisions-text")
        assert "05-05 15:11  Decision: use SQLite for the session index, with WAL mode on.  [live · d2]" in text
        # An open item carries the time and entry where it was said (docs/capture.md).
        assert "05-05 15:10  migrate the existing JSON index files to the new SQLite store.  [live · d1]" in text
        assert "Always run the tests before you commit.  [live]" in text
        assert "user   Always run the tests before you commit.  [d4]" in text  # a key exchange
        await pilot.press("c")
        await wait_until(pilot, lambda: "[cp_001" in _text(screen, "#decisions-text"))
        await settle(pilot)
        text = _text(screen, "#decisions-text")
        assert "Decision: use SQLite for the session index, with WAL mode on.  [cp_001]" in text
        assert "[live" not in text.split("Key exchanges")[0]


async def test_tree_tab_shows_the_branches_with_the_sent_path_and_labels(tmp_path: Path) -> None:
    transcript = copy_fixtures([SUBAGENT], tmp_path / "sessions") / SUBAGENT.name
    app, changes = make_app([transcript.parent], tmp_path / "state", auto_checkpoints=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = await _open(pilot, SUBAGENT_KEY)
        screen.show_tab("tree")
        tree = screen.query_one(BranchTree)
        await wait_until(pilot, lambda: "leaf" in str(tree.root.children[0].label) if tree.root.children else False)
        [root] = tree.root.children
        assert str(root.label).startswith("●") and "◀ leaf" in str(root.label)
        assert not root.children  # one run: no branch yet
        # The user rewinds to an earlier entry and tries again, then labels the abandoned attempt.
        entries, _ = decision_exchange(SUBAGENT_LEAF, 40_000)
        append(transcript, *entries)
        rewound = [{"type": "message", "id": "rw1", "parentId": SUBAGENT_LEAF, "timestamp": "2026-05-05T15:20:00.000Z",
                    "message": {"role": "user", "content": "let us try another way", "timestamp": 9}},
                   {"type": "label", "id": "lb1", "parentId": "rw1", "timestamp": "2026-05-05T15:20:01.000Z",
                    "targetId": entries[0]["id"], "label": "first attempt"}]
        append(transcript, *rewound)
        changes.push(transcript)
        await wait_until(pilot, lambda: bool(tree.root.children and tree.root.children[0].children))
        await settle(pilot)
        [root] = tree.root.children
        first, second = root.children
        assert "[first attempt]" in str(first.label) and "leaf" not in str(first.label)
        assert "◀ leaf" in str(second.label) and str(second.label).startswith("●")
        assert str(first.label).startswith("○") and not first.is_expanded and second.is_expanded
        assert tree.cursor_node is second


async def test_enter_on_a_context_row_opens_the_message_redacted_with_its_tokens(tmp_path: Path) -> None:
    transcript = copy_fixtures([SUBAGENT], tmp_path / "sessions") / SUBAGENT.name
    secret = "sk-ant-api03-" + "Q" * 40
    append(transcript, user("s1", SUBAGENT_LEAF, f"use the key {secret} for the deploy", when="15:30:00"))
    app, _ = make_app([transcript.parent], tmp_path / "state", auto_checkpoints=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = await _open(pilot, SUBAGENT_KEY)
        await pilot.press("2")  # the Context tab
        table = screen.query_one(ContextTable)
        await wait_until(pilot, lambda: table.row_count > 0 and "s1" in table.rows)
        table.focus()
        table.move_cursor(row=table.get_row_index("s1"))
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, MessageView))
        view = app.screen
        assert isinstance(view, MessageView)
        shown = str(view.query_one("#message-text", Static).render())
        assert "use the key" in shown and "for the deploy" in shown and secret not in shown
        assert f"{view.message.tokens:,} tokens" in str(view.query_one("#message-meta", Static).render())
        assert view.message.entry_id == "s1" and view.message.role == "user"
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen)


async def test_enter_on_a_transcript_message_opens_it_and_the_tail_shows_it_redacted(tmp_path: Path) -> None:
    transcript = copy_fixtures([SUBAGENT], tmp_path / "sessions") / SUBAGENT.name
    secret = "sk-ant-api03-" + "Q" * 40
    append(transcript, user("s1", SUBAGENT_LEAF, f"use the key {secret} for the deploy", when="15:30:00"),
           reply("s2", "s1", 30_000, "Deploying now.", when="15:30:05"))
    app, changes = make_app([transcript.parent], tmp_path / "state", auto_checkpoints=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = await _open(pilot, SUBAGENT_KEY)
        await pilot.press("3")  # the Transcript tab
        tail = screen.query_one(TranscriptTail)
        await wait_until(pilot, lambda: bool(tail.messages) and tail.messages[-1].entry_id == "s2")
        assert "use the key" in tail.shown_text() and secret not in tail.shown_text()
        tail.focus()
        await pilot.press("up", "up")  # from following the newest: s2, then s1
        assert tail.cursor is not None and tail.messages[tail.cursor].entry_id == "s1"
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, MessageView))
        view = app.screen
        assert isinstance(view, MessageView) and view.message.entry_id == "s1"
        assert secret not in str(view.query_one("#message-text", Static).render())
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen)
        # The cursor stays on its message as the agent writes; the tail stops following until it is let go.
        append(transcript, user("s3", "s2", "and now the docs", when="15:31:00"))
        changes.push(transcript)
        await wait_until(pilot, lambda: tail.messages[-1].entry_id == "s3")
        assert tail.cursor is not None and tail.messages[tail.cursor].entry_id == "s1"


@pytest.mark.parametrize("size", [(120, 36), (80, 24)])
async def test_a_burst_of_real_notices_collapses_by_kind_and_stays_off_the_plot(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    # What the demo showed: checkpoint, threshold and risk notices every few seconds, each five or six rows high,
    # stacked down over the plot.
    sessions = copy_fixtures([MAIN_SESSION, SESSIONS_JSON], tmp_path / "sessions")
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=size, notifications=True) as pilot:
        await settle(pilot)
        screen = await _open(pilot, MAIN_KEY)
        for n in range(3):
            app.tell(f"agent:main:main: cp_00{n + 3} (auto-75pct) at 7{n}% — 0 decisions, {n + 6} open items",
                     title="Checkpoint written", timeout=30)
        app.tell("agent:main:main: near the agent's compaction line (84%).", title="Threshold crossed",
                 severity="warning", timeout=30)
        app.tell("agent:main:main: medium → high after 3 compactions.", title="Risk level changed",
                 severity="error", timeout=30)
        line = screen.query_one(NoticeLine)
        await wait_until(pilot, lambda: "Risk level" in str(line.render()))
        await pilot.pause()
        assert "(+1 more)" in str(line.render())  # the oldest kind gave way: two current, the newest shown
        assert not [t for t in screen.query(Toast) if t.region]  # nothing floats over the panes
        plot, gauge = screen.query_one(UtilizationPlot).region, screen.query_one("#gauge-box").region
        assert not line.region.overlaps(plot) and not line.region.overlaps(gauge), (line.region, plot, gauge)


async def test_repeated_notices_of_one_kind_are_one_notice_with_a_count(tmp_path: Path) -> None:
    sessions = copy_fixtures([MAIN_SESSION, SESSIONS_JSON], tmp_path / "sessions")
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await settle(pilot)
        screen = await _open(pilot, MAIN_KEY)
        for n in range(3):
            app.tell(f"agent:main:main: cp_00{n + 3} (auto-75pct) at 7{n}%", title="Checkpoint written", timeout=30)
        line = screen.query_one(NoticeLine)
        await wait_until(pilot, lambda: "×3" in str(line.render()))
        assert "cp_005" in str(line.render())


async def test_notifications_never_cover_the_plot(tmp_path: Path) -> None:
    sessions = copy_fixtures([MAIN_SESSION, SESSIONS_JSON], tmp_path / "sessions")
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await settle(pilot)
        screen = await _open(pilot, MAIN_KEY)
        for n in range(3):
            app.notify(f"something happened {n}", timeout=30)
        await wait_until(pilot, lambda: len(app._notifications) >= 3)
        await pilot.pause()
        await pilot.pause()
        assert not screen.query(Toast)  # even Textual's own notify draws nothing over the panes


async def test_a_number_key_puts_the_keyboard_in_the_tab_so_enter_and_space_act_at_once(tmp_path: Path) -> None:
    # The tab bar kept the focus: after `2` Enter opened nothing, after `4` space marked nothing, until the user
    # found the Tab key (the tests focused the views by hand).
    transcript = copy_fixtures([SUBAGENT], tmp_path / "sessions") / SUBAGENT.name
    app, _ = make_app([transcript.parent], tmp_path / "state", auto_checkpoints=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = await _open(pilot, SUBAGENT_KEY)
        await pilot.press("2")
        table = screen.query_one(ContextTable)
        await wait_until(pilot, lambda: table.has_focus and table.row_count > 0)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, MessageView))
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen)

        await pilot.press("3")
        tail = screen.query_one(TranscriptTail)
        await wait_until(pilot, lambda: tail.has_focus and bool(tail.messages))
        await pilot.press("up", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, MessageView))
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen)

        await pilot.press("c", "4")
        view = screen.query_one(CheckpointsView)
        await wait_until(pilot, lambda: view.table.has_focus and len(view.stored) == 1)
        await pilot.press("space")
        assert view.marks == ["cp_001"]

        await pilot.press("1")  # the overview has nothing to focus: the tab bar keeps the keys working
        await wait_until(pilot, lambda: screen.query_one(TabBar).active == "overview")
        await pilot.press("right")
        await wait_until(pilot, lambda: screen.query_one(TabBar).active == "context")
