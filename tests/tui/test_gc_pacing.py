"""Full garbage collections are run when the user pauses, and the collector is handed back as it was."""

from __future__ import annotations

import gc
from pathlib import Path

from tests.conftest import MAIN_SESSION, SESSIONS_JSON
from tests.tui.app_factory import copy_fixtures, make_app, settle
from tui.gc_pacing import EVERY_SECONDS, IDLE_SECONDS, LONGEST_SECONDS, CollectorPacing


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_full_collection_waits_for_a_pause_in_the_input_and_never_for_longer_than_the_longest() -> None:
    clock, runs = Clock(), []
    pacing = CollectorPacing(clock=clock, collect=lambda: runs.append(clock.now))
    saved = gc.get_threshold()
    pacing.start()
    try:
        assert gc.get_threshold()[:2] == saved[:2] and gc.get_threshold()[2] > 10**6  # young generations unchanged
        clock.now += EVERY_SECONDS + 1
        pacing.input_seen()
        clock.now += IDLE_SECONDS / 2
        assert not pacing.tick(), "the user typed a moment ago"
        clock.now += IDLE_SECONDS
        assert pacing.tick() and len(runs) == 1
        clock.now += IDLE_SECONDS + 1
        assert not pacing.tick(), "one full collection per EVERY_SECONDS at most"
        for _ in range(int(LONGEST_SECONDS) + 1):  # a user who never stops typing
            clock.now += 1
            pacing.input_seen()
            pacing.tick()
        assert len(runs) == 2 and runs[1] - runs[0] == LONGEST_SECONDS
    finally:
        pacing.stop()
    assert gc.get_threshold() == saved
    assert not pacing.tick() and len(runs) == 2, "stopped: collections are Python's again"


async def test_the_app_takes_full_collections_over_once_loaded_and_gives_them_back_on_exit(tmp_path: Path) -> None:
    sessions = copy_fixtures([MAIN_SESSION, SESSIONS_JSON], tmp_path / "sessions")
    saved = gc.get_threshold()
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.gc_pacing.running and gc.get_threshold()[2] > 10**6
    assert gc.get_threshold() == saved and not app.gc_pacing.running
