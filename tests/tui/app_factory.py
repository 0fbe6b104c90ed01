"""Builds the app for Pilot and snapshot tests: copied fixtures, a hand-driven change source, a fixed clock."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path

from textual.pilot import Pilot

from engine.config import Config
from tui.app import CtxscopeApp
from tui.controls import Controls
from tui.follow import ChangeQueue

FIXED_NOW = datetime(2026, 5, 6, 12, 0, tzinfo=UTC)
"""Half a day after the newest fixture's last entry, so "ago" columns never move."""


def copy_fixtures(sources: Iterable[Path], directory: Path) -> Path:
    """Copy transcripts (and whatever store sits beside them) into ``directory``; returns it."""
    directory.mkdir(parents=True, exist_ok=True)
    for source in sources:
        shutil.copy2(source, directory / source.name)
    return directory


def make_app(
    paths: Iterable[Path], state_dir: Path, *, controls: Controls | None = None, theme: str | None = None
) -> tuple[CtxscopeApp, ChangeQueue]:
    """An app over ``paths`` whose state dir is ``state_dir``, with its change queue."""
    changes = ChangeQueue()
    app = CtxscopeApp(
        list(paths), Config(state_dir=state_dir), changes=changes, controls=controls, clock=lambda: FIXED_NOW
    )
    app.animation_level = "none"
    if theme is not None:
        app.theme = theme
    return app, changes


async def wait_until(pilot: Pilot[None], condition: Callable[[], object], *, rounds: int = 400) -> None:
    """Let the app process messages until ``condition()`` holds (bounded by rounds, not by time)."""
    for _ in range(rounds):
        if condition():
            return
        await pilot.pause()
    raise AssertionError("condition never became true")


async def settle(pilot: Pilot[None]) -> None:
    """Wait until the app has read every session and its workers (other than the follower) are done."""
    app = pilot.app
    assert isinstance(app, CtxscopeApp)
    await wait_until(pilot, lambda: app.sessions_loaded)
    await wait_until(pilot, lambda: not [w for w in app.workers if w.group != "follow_sessions" and w.is_running])
    await pilot.pause()
