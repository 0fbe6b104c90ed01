"""ctxscope can be started before the agent: on an empty directory the list says where it looks and waits, and a
session appears as soon as the agent writes it. The real app with the real file watcher, as ``ctxscope tui DIR``
runs it."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Static

from engine.config.loader import Config
from tests.conftest import SUBAGENT
from tests.tui.app_factory import wait_until
from tui.app import CtxscopeApp

SUBAGENT_KEY = "3003a4e2-a8c1-417d-9ebc-76480d47d0c0"
WATCHER_WAIT = 60.0
"""Seconds the real (polling) watcher may take to see the new file on a busy machine."""


async def _seen_within(pilot: Pilot[None], condition: Callable[[], bool], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"not seen within {seconds:.0f} s"
        await pilot.pause(0.05)


async def test_an_empty_directory_says_where_it_looks_and_a_new_session_appears(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    app = CtxscopeApp([sessions], Config(state_dir=tmp_path / "state"), force_polling=True)
    async with app.run_test(size=(120, 30)) as pilot:
        status = app.session_list.query_one("#list-status", Static)
        # The empty directory is read before the list screen has mounted: it said "reading…" forever.
        await wait_until(pilot, lambda: "No sessions yet" in str(status.content))
        assert str(sessions) in str(status.content)
        shutil.copy(SUBAGENT, sessions / SUBAGENT.name)
        await _seen_within(pilot, lambda: SUBAGENT_KEY in app.snapshots, WATCHER_WAIT)
        await wait_until(pilot, lambda: not status.display)
        assert [s.key for s in app.session_list.snapshots] == [SUBAGENT_KEY]
