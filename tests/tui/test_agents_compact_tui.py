"""``k`` in the TUI on a Claude Code session: the plan, then the boundary Claude Code resumes from (docs/agents.md)."""

from __future__ import annotations

from pathlib import Path

import orjson
from textual.message import Message
from textual.widgets import Button

from engine.agents.claude_code.reader import ClaudeCodeReader
from tests.engine._agent_files import SID
from tests.engine.test_claude_code_compaction import _session
from tests.tui.app_factory import make_app, settle, wait_until
from tests.tui.test_actions import _dialog, _keep_recent
from tui.messages import CompactionApplied


async def test_k_on_a_claude_code_session_appends_the_boundary_and_summary(tmp_path: Path) -> None:
    path = _session(tmp_path)
    original = path.read_bytes()
    seen: list[Message] = []
    app, _ = make_app([path.parent], tmp_path / "state")
    app.compaction.debounce = 0
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await settle(pilot)
        dialog = await _dialog(pilot, SID, "k")
        await _keep_recent(pilot, dialog, 150)
        plan = dialog.plan
        assert plan is not None and plan.applicable and plan.controller == "claude-code"
        assert not dialog.query_one("#apply", Button).disabled
        await pilot.click("#apply")
        await wait_until(pilot, lambda: [m for m in seen if isinstance(m, CompactionApplied)])
    data = path.read_bytes()
    assert data.startswith(original)
    boundary, summary = (orjson.loads(line) for line in data[len(original):].splitlines())
    assert boundary["subtype"] == "compact_boundary" and summary["isCompactSummary"] is True
    reading = ClaudeCodeReader(path).read_new()
    assert [i.id for i in reading.context[1:]] == list(plan.kept_ids)
