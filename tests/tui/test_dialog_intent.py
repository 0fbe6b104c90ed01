"""Issue 28, items 1 and 2: the compaction dialog never loses the user's intent, and its footer shows its own keys.

Each agent write re-plans the open dialog; the primary button must keep the focus through it, a confirm key must
work from any field, every close must say what came of it, and a cancel must reach the audit log.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.message import Message
from textual.notifications import Notify
from textual.pilot import Pilot
from textual.widgets import Button, Input

from engine.fs.audit import read_audit
from tests.conftest import SUBAGENT
from tests.tui.app_factory import copy_fixtures, make_app, settle, wait_until
from tests.tui.test_actions import SUBAGENT_KEY, SUBAGENT_LEAF, _appended, _dialog, _keep_recent
from tests.tui.transcript_lines import append, compaction, decision_exchange
from tui.dialogs.compact import CompactDialog
from tui.messages import CompactionApplied, CompactionFailed
from tui.widgets.footer import KeyFooter

CONFIRM_KEY = "ctrl+s"


def _titles(seen: list[Message]) -> list[str]:
    return [m.notification.title for m in seen if isinstance(m, Notify)]


@pytest.fixture
def subagent(tmp_path: Path) -> Path:
    return copy_fixtures([SUBAGENT], tmp_path / "sessions") / SUBAGENT.name


async def _agent_writes(pilot: Pilot[None], dialog: CompactDialog, subagent: Path, changes: object, parent: str,
                        prefix: str) -> str:
    entries, leaf = decision_exchange(parent, 12_000, prefix=prefix)
    append(subagent, *entries)
    changes.push(subagent)  # type: ignore[attr-defined]
    await wait_until(pilot, lambda: dialog.plan is not None and dialog.plan.leaf_id == leaf)
    return leaf


async def test_enter_on_compact_while_the_agent_writes_applies_the_plan(subagent: Path, tmp_path: Path) -> None:
    original = subagent.read_bytes()
    seen: list[Message] = []
    app, changes = make_app([subagent.parent], tmp_path / "state")
    app.compaction.debounce = 0
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await settle(pilot)
        dialog = await _dialog(pilot, SUBAGENT_KEY, "k")
        await _keep_recent(pilot, dialog, 500)
        dialog.query_one("#apply", Button).focus()
        await pilot.pause()
        leaf = SUBAGENT_LEAF
        for n in range(3):  # three re-plans: the focus stays where the user put it
            leaf = await _agent_writes(pilot, dialog, subagent, changes, leaf, f"w{n}")
            assert dialog.focused is dialog.query_one("#apply", Button)
        await pilot.press("enter")
        await wait_until(pilot, lambda: [m for m in seen if isinstance(m, CompactionApplied | CompactionFailed)])
        assert [m for m in seen if isinstance(m, CompactionApplied)]
        assert _appended(subagent, original)[-1]["type"] in ("compaction", "custom_message")


async def test_the_confirm_key_applies_from_any_field_even_mid_replan(subagent: Path, tmp_path: Path) -> None:
    seen: list[Message] = []
    app, changes = make_app([subagent.parent], tmp_path / "state")
    app.compaction.debounce = 0
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await settle(pilot)
        dialog = await _dialog(pilot, SUBAGENT_KEY, "k")
        await _keep_recent(pilot, dialog, 500)
        shown = dialog.plan
        dialog.query_one("#focus", Input).focus()
        # The agent writes and the dialog has not seen it yet: the plan on screen is confirmed and kept exactly.
        append(subagent, *decision_exchange(SUBAGENT_LEAF, 12_000)[0])
        await pilot.press(CONFIRM_KEY)
        await wait_until(pilot, lambda: [m for m in seen if isinstance(m, CompactionApplied | CompactionFailed)])
        applied = [m.result for m in seen if isinstance(m, CompactionApplied)]
        assert applied and applied[0].plan is shown and not applied[0].replanned
        assert any("kept verbatim" in w for w in applied[0].warnings)
        del changes


async def test_a_plan_the_agent_compacted_under_is_refused_and_the_close_says_why(subagent: Path,
                                                                                tmp_path: Path) -> None:
    seen: list[Message] = []
    app, _ = make_app([subagent.parent], tmp_path / "state")
    app.compaction.debounce = 0
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await settle(pilot)
        dialog = await _dialog(pilot, SUBAGENT_KEY, "k")
        await _keep_recent(pilot, dialog, 500)
        append(subagent, compaction("agentcmp", SUBAGENT_LEAF, SUBAGENT_LEAF))  # the agent compacted itself
        before = subagent.read_bytes()
        await pilot.press(CONFIRM_KEY)
        await wait_until(pilot, lambda: [m for m in seen if isinstance(m, CompactionFailed)])
        assert subagent.read_bytes() == before
        assert "Compaction refused: nothing written" in _titles(seen)


async def test_confirming_a_blocked_plan_keeps_the_dialog_open_and_says_why(subagent: Path, tmp_path: Path) -> None:
    app, _ = make_app([subagent.parent], tmp_path / "state")
    app.compaction.debounce = 0
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        dialog = await _dialog(pilot, SUBAGENT_KEY, "k")
        assert dialog.plan is not None and dialog.plan.blocked  # everything fits the layer's budget
        await pilot.press(CONFIRM_KEY)
        await pilot.pause()
        assert app.screen is dialog
        assert "not compacted: blocked" in str(dialog.query_one("#plan-status").render())


async def test_every_cancel_says_nothing_was_written_and_is_audited(subagent: Path, tmp_path: Path) -> None:
    seen: list[Message] = []
    app, _ = make_app([subagent.parent], tmp_path / "state")
    app.compaction.debounce = 0
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await settle(pilot)
        await _dialog(pilot, SUBAGENT_KEY, "k")
        await pilot.press("escape")
        await wait_until(pilot, lambda: "Compact cancelled — nothing written" in _titles(seen))
        dialog = await _dialog(pilot, SUBAGENT_KEY, "p")
        dialog.query_one("#cancel", Button).press()
        await pilot.pause()
        await wait_until(pilot, lambda: "Prune cancelled — nothing written" in _titles(seen))
        await wait_until(pilot, lambda: len([r for r in read_audit(tmp_path / "state")
                                             if r.result == "cancelled"]) == 2)
        audit = [(r.action, r.result, r.params.get("layer")) for r in read_audit(tmp_path / "state")]
        assert ("compact", "cancelled", "summarize") in audit and ("prune", "cancelled", "prune") in audit
        del dialog


async def test_the_dialogs_footer_shows_its_keys_not_the_screens(subagent: Path, tmp_path: Path) -> None:
    app, _ = make_app([subagent.parent], tmp_path / "state")
    app.compaction.debounce = 0
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        dialog = await _dialog(pilot, SUBAGENT_KEY, "p")
        await pilot.pause()
        footers = dialog.query(KeyFooter)
        assert footers, "the dialog has no footer of its own"
        shown = {binding.description for binding, enabled, _ in
                 (v[1:] for v in dialog.active_bindings.values()) if binding.show and enabled}
        assert {"Prune", "Cancel"} <= shown
        assert not shown & {"Quit", "Help", "Checkpoint", "Diff", "Compact"}, shown
        assert "^s prune" in str(dialog.query_one("#dialog-keys").render())


async def test_the_chosen_layer_and_ticked_boxes_read_in_plain_text(subagent: Path, tmp_path: Path) -> None:
    # Issue 28 item 3: every radio drew ▐●▌ and both checkbox states ▐X▌, told apart by colour alone.
    app, _ = make_app([subagent.parent], tmp_path / "state")
    app.compaction.debounce = 0
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        dialog = await _dialog(pilot, SUBAGENT_KEY, "k")
        await pilot.pause()
        radios = {str(b.name): b.render().plain for b in dialog.query("#layer > RadioButton")}
        assert "●" in radios[dialog.chosen_layer]
        assert all("●" not in text for name, text in radios.items() if name != dialog.chosen_layer), radios
        box = dialog.query_one("#confirm-risk")
        off = box.render().plain
        box.value = True  # type: ignore[attr-defined]
        await pilot.pause()
        assert box.render().plain != off and "X" in box.render().plain and "X" not in off
        # The cursor highlight never sits on another layer than the chosen one while the set is not focused.
        layer_set = dialog.query_one("#layer")
        assert not layer_set.has_focus
        for button in dialog.query("#layer > RadioButton"):
            label_bg = button.get_component_styles("toggle--label").background
            if button.has_class("-selected") and not button.has_class("-on"):
                assert label_bg.a == 0, button.name


async def test_the_prune_dialog_speaks_of_prune(subagent: Path, tmp_path: Path) -> None:
    # Issue 28 item 7: "Dropped from the context", a "Summary", "Compact" buttons and a focus field, for a prune.
    app, _ = make_app([subagent.parent], tmp_path / "state")
    app.compaction.debounce = 0
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        dialog = await _dialog(pilot, SUBAGENT_KEY, "p")
        await _keep_recent(pilot, dialog, 500)
        assert str(dialog.query_one("#apply", Button).label) == "Prune"
        assert not dialog.query_one("#focus").display  # a prune writes no summary: nothing to focus
        title = str(dialog.query_one("#plan-summary").border_title)
        assert title.startswith("Pruned span") and "Summary" not in title
        dropped = str(dialog.query_one("#plan-dropped").render())
        assert "Dropped" not in dropped and "tool outputs shortened" in dropped


async def test_d_on_the_list_opens_the_sessions_checkpoint_diff(subagent: Path, tmp_path: Path) -> None:
    from tui.screens.session_view import SessionScreen
    from tui.widgets.tab_bar import TabBar

    app, _ = make_app([subagent.parent], tmp_path / "state")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionScreen))
        screen = app.screen
        await wait_until(pilot, lambda: screen.query_one(TabBar).active == "checkpoints")


async def test_an_agent_writing_during_every_plan_never_starves_the_dialog(subagent: Path, tmp_path: Path) -> None:
    # In the demo each write re-planned and cancelled the plan being computed: "computing the plan…" for as long
    # as the agent wrote, and nothing to confirm. Here the agent "writes" while each of six plans is computed.
    app, _ = make_app([subagent.parent], tmp_path / "state")
    app.compaction.debounce = 0
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        dialog = await _dialog(pilot, SUBAGENT_KEY, "k")
        await _keep_recent(pilot, dialog, 500)
        real, calls, confirmable = dialog._planner, [0], []

        def planner(request):  # type: ignore[no-untyped-def]
            calls[0] += 1
            if calls[0] <= 6:
                app.call_from_thread(dialog.session_moved)
                app.call_from_thread(lambda: confirmable.append(dialog.confirmable))
            return real(request)

        shown_while_writing: list[object] = []
        render = dialog._render_plan

        def counted(plan):  # type: ignore[no-untyped-def]
            if calls[0] <= 6:
                shown_while_writing.append(plan)
            render(plan)

        dialog._planner, dialog._render_plan = planner, counted  # type: ignore[method-assign]
        dialog.session_moved()
        await wait_until(pilot, lambda: calls[0] >= 6, rounds=4000)
        assert len(shown_while_writing) >= 3, "plans computed while the agent wrote were thrown away"
        assert all(confirmable), "the plan on screen stopped being confirmable while the agent wrote"
        await wait_until(pilot, lambda: calls[0] >= 7 and "ready" in str(dialog.query_one("#plan-status").render()),
                         rounds=2000)  # once the agent stops, the last write's plan is shown
