"""Builds the app for Pilot and snapshot tests: copied fixtures, a hand-driven change source, a fixed clock."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from textual.pilot import Pilot

from engine.config.compaction_settings import CompactionSettings
from engine.config.loader import Config
from tui.app import CtxscopeApp
from tui.controls import ControlRunner
from tui.follow import ChangeQueue

FIXED_NOW = datetime(2026, 5, 6, 12, 0, tzinfo=UTC)
"""Half a day after the newest fixture's last entry, so "ago" columns never move."""


COPIED_MTIME = (FIXED_NOW - timedelta(hours=12)).timestamp()
"""Copies are dated before :data:`FIXED_NOW`, so nothing looks written "0 s ago" (agent mid-run) to the app."""


def copy_fixtures(sources: Iterable[Path], directory: Path) -> Path:
    """Copy transcripts (and whatever store sits beside them) into ``directory``; returns it."""
    directory.mkdir(parents=True, exist_ok=True)
    for source in sources:
        target = directory / source.name
        shutil.copy2(source, target)
        os.utime(target, (COPIED_MTIME, COPIED_MTIME))
    return directory


ALWAYS = 100 * 365 * 86_400.0
"""An ``auto_checkpoint_idle`` no fixture is idle past: the scenes play ctxscope started while they were live."""


def sandbox_config(state_dir: Path, *, idle: float = ALWAYS) -> Config:
    """Everything ctxscope writes goes under ``state_dir``'s parent: checkpoints, audit, drop-only archives."""
    compaction = replace(CompactionSettings(), workspace=state_dir.parent / "workspace")
    return Config(state_dir=state_dir, compaction=compaction, auto_checkpoint_idle=idle)


def make_app(
    paths: Iterable[Path],
    state_dir: Path,
    *,
    runners: Mapping[str, ControlRunner] | None = None,
    theme: str | None = None,
    auto_checkpoints: bool | None = None,
    idle: float = ALWAYS,
) -> tuple[CtxscopeApp, ChangeQueue]:
    """An app over ``paths`` whose state dir is ``state_dir``, with its change queue (``idle``: the config's
    ``auto_checkpoint_idle``)."""
    changes = ChangeQueue()
    app = CtxscopeApp(
        list(paths), sandbox_config(state_dir, idle=idle), changes=changes, runners=runners, clock=lambda: FIXED_NOW,
        auto_checkpoints=auto_checkpoints,
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
