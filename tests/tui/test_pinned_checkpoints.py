"""Issue 28, item 6: checkpoints the user marked are pinned (retention keeps them while marked), and the history
says what retention removed."""

from __future__ import annotations

from pathlib import Path

from engine.checkpoints.store import list_checkpoints, write_checkpoint
from engine.fs.audit import read_audit
from tests.conftest import SUBAGENT
from tests.engine._checkpoints import sample_checkpoint
from tests.tui.app_factory import copy_fixtures, make_app, settle, wait_until
from tests.tui.test_views import _open
from tui.widgets.checkpoints import CheckpointList, CheckpointsView

KEY = "3003a4e2-a8c1-417d-9ebc-76480d47d0c0"


async def test_a_marked_checkpoint_survives_retention_and_the_list_says_what_was_removed(tmp_path: Path) -> None:
    state = tmp_path / "state"
    transcript = copy_fixtures([SUBAGENT], tmp_path / "sessions") / SUBAGENT.name
    for _ in range(3):
        write_checkpoint(state, KEY, sample_checkpoint(), retention=3)
    app, _ = make_app([transcript.parent], state, auto_checkpoints=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = await _open(pilot, KEY)
        screen.show_tab("checkpoints", focus=True)
        await wait_until(pilot, lambda: screen.query(CheckpointList) and screen.query_one(CheckpointList).row_count)
        view = screen.query_one(CheckpointsView)
        listing = view.table
        listing.move_cursor(row=listing.get_row_index("cp_001"))
        await pilot.press("space")  # mark cp_001, the oldest: the next write's retention would delete it
        await wait_until(pilot, lambda: any(r.action == "pin" for r in read_audit(state)))
        for _ in range(4):  # the agent keeps going: four more checkpoints with retention 3
            write_checkpoint(state, KEY, sample_checkpoint(), retention=3)
        app.reload_history(KEY)
        await wait_until(pilot, lambda: "retention removed" in str(view.query_one("#checkpoint-hint").render()))
        numbers = [r.checkpoint_id for r in list_checkpoints(state, KEY)]
        assert "cp_001" in numbers and numbers[-3:] == ["cp_005", "cp_006", "cp_007"]
        assert view.marks == ["cp_001"]
        hint = str(view.query_one("#checkpoint-hint").render())
        assert "cp_002" in hint and "cp_004" in hint and "cp_001" not in hint.split("removed", 1)[1]
