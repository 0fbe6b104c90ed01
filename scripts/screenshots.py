"""Regenerate the SVGs in ``screenshots/`` with the app itself: ``python scripts/screenshots.py [--only NAME …]``.

Each shot runs the real :class:`~tui.app.CtxscopeApp` headless (``App.run_test``) and saves it with
``app.save_screenshot``. The scene is built in a temporary directory: copies of the real fixtures plus short
simulated agents (pace 0: a virtual clock, fixed seeds) whose every entry is stepped through the sidecar, so
checkpoints exist as ``ctxscope watch`` would have written them. The app's clock is fixed and animation is off,
so the same code draws the same SVG. A shot that cannot be taken (say, the compact modal before it exists)
fails loudly; the others are still written, and the exit code is 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import tempfile
import threading
import traceback
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing; an installed ctxscope works the same

from textual.pilot import Pilot  # noqa: E402 - after the path set-up above
from textual.screen import ModalScreen  # noqa: E402
from textual.widgets import RadioButton, TextArea  # noqa: E402

from engine.agents.discovery import discover_sessions  # noqa: E402
from engine.config.loader import Config  # noqa: E402
from engine.sidecar import ContextManager  # noqa: E402
from sim import simulate  # noqa: E402
from tui.app import CtxscopeApp  # noqa: E402
from tui.screens.session_list import SessionChosen  # noqa: E402
from tui.screens.session_view import SessionScreen  # noqa: E402
from tui.screens.usage import UsageScreen  # noqa: E402
from tui.widgets.branch_tree import BranchTree  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "openclaw"
DEGRADED = "42naodia__moltbot-config__76cc5ab5-0425-4038-b41f-0af9f313d594.jsonl"
"""The real session with three compactions (``agent:main:main`` in its ``sessions.json``)."""
NOW = datetime(2026, 5, 6, 12, 0, tzinfo=UTC)
"""The app's fixed clock: half a day after the newest fixture, minutes after the simulated agents."""
FIXTURES_WRITTEN = datetime(2026, 5, 6, 0, 0, tzinfo=UTC)
"""The mtime given to the copied fixtures (not "just now", or the app would think an agent is mid-run)."""
SIMULATION_START = datetime(2026, 5, 6, 11, 40, tzinfo=UTC)
NEAR = "agent:payments:main"
"""The simulated session stopped just past the 80% checkpoint line, below the agent's compaction line."""
SIZE = (120, 36)
LONG_LIVED = frozenset({"follow_sessions"})
"""Worker groups that run as long as the app does: not waited for when settling."""


class ShotError(Exception):
    """A shot could not be taken as described."""


# -- the scene ---------------------------------------------------------------------------------------------


def _date_files(directory: Path, when: datetime) -> None:
    """Give every file under ``directory`` the mtime ``when``: the app compares mtimes with its fixed clock."""
    stamp = when.timestamp()
    for path in directory.rglob("*"):
        if path.is_file():
            os.utime(path, (stamp, stamp))


def _simulate(state: Path, agent: str, seed: int, *, window: int = simulate.DEMO_WINDOW,
              turns: int | None = None, stop_at: float | None = None) -> datetime:
    """One simulated agent, its every entry stepped through a sidecar on the simulated clock; its last time."""
    now = [SIMULATION_START]
    manager = ContextManager(Config(state_dir=state), clock=lambda: now[0])
    key = f"agent:{agent}:main"
    stop = threading.Event()

    def on_entry(entry: Mapping[str, Any]) -> None:
        now[0] = datetime.fromisoformat(str(entry["timestamp"]).replace("Z", "+00:00"))
        if key not in manager.sessions:
            for source in discover_sessions([state / "agents" / agent / "sessions"]).sessions:
                manager.add(source)
        snapshot, _events = manager.step(key)
        if stop_at is not None and snapshot is not None and (snapshot.utilization or 0) >= stop_at:
            stop.set()  # the agent stops at its next pause: just past the line, as a real one would be

    simulate.run_simulation(state, pace=0, seed=seed, window=window, max_turns=turns, stop=stop,
                            on_entry=on_entry, agent_id=agent)
    return now[0]


def build_scene(root: Path) -> tuple[list[Path], Path]:
    """Simulated agents and copied fixtures under ``root``: (paths to watch, ctxscope state dir)."""
    state = root / "openclaw"
    # The virtual clock starts at a module constant; moved so the simulated agents are the most recent sessions.
    simulate.VIRTUAL_START_MS = int(SIMULATION_START.timestamp() * 1000)
    last = max(_simulate(state, "payments", 7, stop_at=0.81),
               _simulate(state, "research", 11, window=64_000, turns=40),
               _simulate(state, "ops", 3, turns=4))
    _date_files(state, last)
    fixtures = root / "fixtures"
    fixtures.mkdir()
    for source in FIXTURES.iterdir():
        if source.name != "badlogic__pi-mono__before-compaction.jsonl":  # the summary tests' fixture only
            shutil.copy2(source, fixtures / source.name)
    _date_files(fixtures, FIXTURES_WRITTEN)
    return [state / "agents", fixtures], state


def build_degraded(root: Path) -> tuple[list[Path], Path]:
    """The real session with several compactions alone, beside its ``sessions.json``."""
    sessions = root / "degraded"
    sessions.mkdir()
    for name in (DEGRADED, "42naodia__moltbot-config__sessions.json"):
        shutil.copy2(FIXTURES / name, sessions / name)
    _date_files(sessions, FIXTURES_WRITTEN)
    return [sessions], root / "degraded-state"


BRANCHED = "3003a4e2-a8c1-417d-9ebc-76480d47d0c0"


def build_branched(root: Path) -> tuple[list[Path], Path]:
    """A real sub-agent session the user rewound twice, the first attempt labelled (pi's ``/tree`` and labels)."""
    sessions = root / "branched"
    sessions.mkdir()
    source = FIXTURES / f"bhagya554__AITesterBlueprint_OpenClawMasterClass__{BRANCHED}.jsonl"
    target = sessions / f"{BRANCHED}.jsonl"
    shutil.copy2(source, target)

    def message(id_: str, parent: str, role: str, text: str, minute: int) -> dict[str, object]:
        return {"type": "message", "id": id_, "parentId": parent, "timestamp": f"2026-05-05T15:{minute:02d}:00.000Z",
                "message": {"role": role, "content": [{"type": "text", "text": text}], "timestamp": minute}}

    branches = [
        message("a1", "562b10c7", "user", "Summarise the test plan as a table.", 10),
        message("a2", "a1", "assistant", "Here is the plan as a table.", 11),
        message("b1", "562b10c7", "user", "Actually, write it as a checklist instead.", 20),
        message("b2", "b1", "assistant", "Here is the plan as a checklist.", 21),
        message("c1", "b2", "user", "Keep the checklist, add owners.", 30),
        {"type": "label", "id": "l1", "parentId": "c1", "timestamp": "2026-05-05T15:31:00.000Z",
         "targetId": "a1", "label": "table attempt"},
        message("c2", "l1", "assistant", "Owners added to each item.", 32),
    ]
    with target.open("ab") as handle:
        for entry in branches:
            handle.write(json.dumps(entry).encode() + b"\n")
    _date_files(sessions, FIXTURES_WRITTEN)
    return [sessions], root / "branched-state"


# -- driving the app ---------------------------------------------------------------------------------------


async def _until(pilot: Pilot[None], condition: Callable[[], object], what: str, *, seconds: float = 30) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not condition():
        if loop.time() > deadline:
            raise ShotError(f"timed out waiting for {what}")
        await pilot.pause(0.02)


async def settle(pilot: Pilot[None], *, quiet: float = 0.25, seconds: float = 30) -> None:
    """Every session read, every short-lived worker finished, and the screen unchanged for ``quiet`` seconds.

    The last condition catches what the others cannot see (timers, panes filled by ``call_later``).
    """
    app = pilot.app
    assert isinstance(app, CtxscopeApp)
    await _until(pilot, lambda: app.sessions_loaded, "the sessions to load")
    await _until(pilot, lambda: not [w for w in app.workers if w.is_running and w.group not in LONG_LIVED],
                 "the workers to finish")
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    before = app.export_screenshot()
    while True:
        await pilot.pause(quiet)
        now = app.export_screenshot()
        if now == before:
            return
        if loop.time() > deadline:
            raise ShotError(f"the screen kept changing for {seconds:g} s")
        before = now


async def open_session(pilot: Pilot[None], key: str) -> SessionScreen:
    app = pilot.app
    assert isinstance(app, CtxscopeApp)
    await settle(pilot)
    if key not in app.snapshots:
        raise ShotError(f"session {key} not found; have {sorted(app.snapshots)}")
    app.post_message(SessionChosen(key))
    await _until(pilot, lambda: isinstance(app.screen, SessionScreen), f"the session view of {key}")
    await settle(pilot)
    assert isinstance(app.screen, SessionScreen)
    return app.screen


Scene = Callable[[Path], tuple[list[Path], Path]]
Action = Callable[[Pilot[None]], Awaitable[None]]


async def _session_list(pilot: Pilot[None]) -> None:
    await settle(pilot)


async def _near_threshold(pilot: Pilot[None]) -> None:
    await open_session(pilot, NEAR)


async def _checkpoint_diff(pilot: Pilot[None]) -> None:
    await open_session(pilot, NEAR)
    await pilot.press("d")
    await settle(pilot)


async def _compact_modal(pilot: Pilot[None]) -> None:
    await open_session(pilot, NEAR)
    await pilot.press("k")
    await settle(pilot)
    if not isinstance(pilot.app.screen, ModalScreen):
        shown = [n.message for n in pilot.app._notifications]
        raise ShotError(f"pressing k opened no modal (screen {type(pilot.app.screen).__name__}; notes {shown})")
    await settle(pilot)  # again: the live dry-run preview is computed in a worker after the modal mounts


async def _compact_modal_edited(pilot: Pilot[None]) -> None:
    await _compact_modal(pilot)
    dialog = pilot.app.screen
    summarize = next(b for b in dialog.query(RadioButton) if b.name == "summarize")
    summarize.value = True
    await _until(pilot, lambda: getattr(dialog, "plan", None) is not None and dialog.plan.layer == "summarize",
                 "the summarize plan")
    await settle(pilot)
    area = dialog.query_one("#summary-text", TextArea)
    lines = area.text.splitlines()
    if "## Decisions" not in lines:
        raise ShotError(f"the summary has no Decisions section: {lines[:5]}")
    area.cursor_blink = False  # a blinking cursor made each run's SVG differ
    area.focus()
    area.move_cursor((lines.index("## Decisions") + 1, 0))
    await pilot.press(*"- Keep the fail-open fallback until the incident review", "enter")
    await _until(pilot, lambda: getattr(dialog, "plan", None) is not None and dialog.plan.summary_edited,
                 "the edited plan")
    await settle(pilot)


async def _degradation(pilot: Pilot[None]) -> None:
    await open_session(pilot, "agent:main:main")


async def _tree(pilot: Pilot[None]) -> None:
    await open_session(pilot, BRANCHED)
    await pilot.press("6")
    tree = pilot.app.screen.query_one(BranchTree)
    await _until(pilot, lambda: bool(tree.root.children and tree.root.children[0].children), "the branch tree")
    await settle(pilot)


async def _session_metrics(pilot: Pilot[None]) -> None:
    await settle(pilot)
    await pilot.press("m")


async def _usage(pilot: Pilot[None]) -> None:
    await settle(pilot)
    await pilot.press("u")
    screen = pilot.app.screen
    await _until(pilot, lambda: isinstance(screen, UsageScreen) and bool(screen.reports), "the usage figures")
    await settle(pilot)


@dataclass(frozen=True, slots=True)
class Shot:
    """One SVG: which scene, what to do before saving it."""

    name: str
    what: str
    scene: Scene
    action: Action
    size: tuple[int, int] = SIZE


SHOTS: tuple[Shot, ...] = (
    Shot("session-list", "every session with a small gauge, sorted by activity", build_scene, _session_list),
    Shot("session-gauge", "a session just past the 80% checkpoint line, below the agent's compaction line",
         build_scene, _near_threshold),
    Shot("checkpoint-diff", "the checkpoint history and the diff of the last two (d)", build_scene,
         _checkpoint_diff),
    Shot("compact-modal", "the compact modal with its live dry-run preview (k)", build_scene, _compact_modal),
    Shot("compact-modal-edited", "the compact modal after editing the summary: the plan counts the edited text",
         build_scene, _compact_modal_edited),
    Shot("degradation", "a real session after three compactions: degradation risk", build_degraded, _degradation),
    Shot("session-metrics", "the session list showing what `watch --metrics` exports (m)", build_scene,
         _session_metrics, (160, 36)),
    Shot("usage", "tokens, cost, cache hits and compactions of every session by day, model and project (u)",
         build_scene, _usage),
    Shot("tree", "the Tree tab: a session rewound twice, the path the agent sends highlighted, a label (6)",
         build_branched, _tree),
)


class Scenes:
    """Each scene built once under ``root``; every shot gets a fresh copy (the app may write into its state)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._built: dict[str, tuple[Path, list[Path], Path]] = {}

    def copy(self, scene: Scene, work: Path) -> tuple[list[Path], Path]:
        name = scene.__name__
        if name not in self._built:
            template = self.root / name
            template.mkdir()
            paths, state = scene(template)
            self._built[name] = (template, paths, state)
        template, paths, state = self._built[name]
        # Stores name transcripts by absolute path, but discovery matches them by file name: a copy works.
        shutil.copytree(template, work, symlinks=True)
        return [work / p.relative_to(template) for p in paths], work / state.relative_to(template)


async def take(shot: Shot, scenes: Scenes, work: Path, out: Path) -> Path:
    """Run the app on a copy of the shot's scene in ``work`` and save ``out/<name>.svg``."""
    paths, state = scenes.copy(shot.scene, work)
    app = CtxscopeApp(paths, Config(state_dir=state), clock=lambda: NOW)
    app.animation_level = "none"
    app.usage_timezone = UTC
    async with app.run_test(size=shot.size) as pilot:
        await shot.action(pilot)
        return Path(app.save_screenshot(filename=f"{shot.name}.svg", path=str(out)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", action="append", choices=[s.name for s in SHOTS], help="take only these shots")
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots", help="where the SVGs go")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    failed = []
    with tempfile.TemporaryDirectory(prefix="ctxscope-shots-") as tmp:
        os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")  # the index cache of the shots, not the user's
        scenes = Scenes(Path(tmp) / "scenes")
        scenes.root.mkdir()
        for shot in SHOTS:
            if args.only and shot.name not in args.only:
                continue
            try:
                path = asyncio.run(take(shot, scenes, Path(tmp) / shot.name, args.out))
            except Exception as exc:  # noqa: BLE001 - one missing screen must not stop the other shots
                failed.append(shot.name)
                detail = str(exc) if isinstance(exc, ShotError) else traceback.format_exc()
                print(f"FAILED {shot.name}: {detail}", file=sys.stderr)
                continue
            print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: {shot.what}")
    if failed:
        print(f"{len(failed)} shot(s) failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
