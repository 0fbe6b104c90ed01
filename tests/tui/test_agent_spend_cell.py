"""The session list's spend cell of a Claude Code and a Codex session: the figure ``report`` gives, not "-"
(docs/usage.md, Cost)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import aggregate_usage, collect_usage, discover_sessions
from sim.agent_corpus import write_claude_code, write_codex
from tests.tui.app_factory import make_app, settle, wait_until
from tui.widgets.labels import money
from tui.widgets.session_table import SessionTable


@pytest.mark.parametrize(("write", "root"), [(write_claude_code, "projects"), (write_codex, "sessions")])
async def test_the_spend_cell_shows_what_report_says(write, root: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    list(write(tmp_path / "home", 1, turns=3))
    where = tmp_path / "home" / root
    cost = aggregate_usage(collect_usage(discover_sessions([where]))[0], "session").total.cost_usd
    assert cost > 0
    app, _ = make_app([where], tmp_path / "state")
    async with app.run_test(size=(160, 36)) as pilot:
        await settle(pilot)
        table = app.session_list.query_one(SessionTable)
        await wait_until(pilot, lambda: table.row_count == 1 and table.get_row_at(0)[
            [k for k, _ in table._columns].index("spend")].plain not in ("…", ""))
        cells = table.get_row_at(0)
        spend = cells[[k for k, _ in table._columns].index("spend")].plain
    assert spend == money(cost, short=True)
