"""How fast the TUI answers a key: open a session, open the compact dialog, re-plan on a layer change, quit.

Targets: docs/architecture.md, Targets. Run: ``python -m bench.tui_actions [--trials 15] [--session-mb 20]``.

The real app runs headless (``App.run_test``) on one generated pi session of ``--session-mb`` MB. Each figure is the
time from the key press until the screen holds the result, next to a baseline measured in the same run:

* **open a session** (Enter on the list → the session screen shows its gauge and its Overview tab): baseline,
  reading the session with a fresh follower (what opening would cost without the app's live tracker);
* **open the compact dialog** (``k`` → the first plan on screen): baseline, the engine's plan with a cold token
  cache (the dialog's plan reuses the follower's cached counts);
* **re-plan on a layer change** (a click on ``full`` → its plan on screen): baseline, the same engine plan with
  a warm cache (the dialog's own overhead is the difference);
* **quit** (``q`` → the app has shut down): baseline, a bare Textual app with one widget quitting the same way.

The dialog's two figures end when the dialog renders the plan (a hook on its ``_render_plan``; the terminal gets
it with the next frame), not when the test harness next looks: ``Pilot.pause`` waits for the app to go idle and
would add its own delay. Opening a session ends when the harness sees the mounted screen with its Overview tab
complete (the plot's timeline and the top consumers in; the other tabs are mounted when first shown), after one
pause.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import RadioButton, Static

from bench.table import Row, print_table
from engine.compaction.planner import plan_compaction
from engine.config.loader import Config
from engine.session.snapshot import SessionFollower
from engine.stores.discovery import discover_sessions
from sim.session_generator import generate_session_file
from tui.app import CtxscopeApp
from tui.dialogs.compact import CompactDialog
from tui.screens.session_view import SessionScreen
from tui.widgets.session_table import SessionTable

TARGETS_MS = {"open": 150.0, "dialog": 300.0, "replan": 150.0, "quit": 300.0}


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _ms(values: list[float]) -> str:
    return f"median {statistics.median(values) * 1000:.0f} ms, p95 {_p95(values) * 1000:.0f} ms"


async def _until(pilot: Pilot[None], done: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.perf_counter() + timeout
    while not done():
        if time.perf_counter() > deadline:
            raise TimeoutError("the app did not get there in time")
        await pilot.pause(0.002)


def _overview_shown(app: CtxscopeApp) -> bool:
    """The session screen is mounted and its Overview tab (the one that opens; the others are mounted when first
    shown) holds what its workers read: the utilization plot's timeline and the top consumers."""
    screen = app.screen
    return (isinstance(screen, SessionScreen) and screen.is_mounted and screen.timeline is not None
            and bool(screen.consumers) and all(w.is_mounted for w in screen.query("#overview *")))


async def _app_latencies(directory: Path, state: Path, trials: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"open": [], "dialog": [], "replan": []}
    rendered: list[float] = []
    original = CompactDialog._render_plan

    def render_plan(dialog: CompactDialog, plan: object) -> None:
        original(dialog, plan)  # type: ignore[arg-type]
        rendered.append(time.perf_counter())

    CompactDialog._render_plan = render_plan  # type: ignore[method-assign]
    app = CtxscopeApp([directory], Config(state_dir=state), auto_checkpoints=False, compaction_debounce=0)
    async with app.run_test(size=(120, 36)) as pilot:
        await _until(pilot, lambda: app.sessions_loaded and bool(app.snapshots))
        key = next(iter(app.snapshots))
        table = app.session_list.query_one(SessionTable)
        for _ in range(trials):
            table.move_cursor(row=table.get_row_index(key))
            start = time.perf_counter()
            await pilot.press("enter")
            await _until(pilot, lambda: _overview_shown(app))
            await pilot.pause()  # the first frame of the screen is composed and drawn
            times["open"].append(time.perf_counter() - start)
            rendered.clear()
            start = time.perf_counter()
            await pilot.press("k")
            await _until(pilot, lambda: isinstance(app.screen, CompactDialog) and app.screen.plan is not None)
            dialog = app.screen
            assert isinstance(dialog, CompactDialog)
            times["dialog"].append(rendered[0] - start)
            target = "full" if dialog.chosen_layer != "full" else "summarize"
            button = next(b for b in dialog.query(RadioButton) if b.name == target)
            rendered.clear()
            start = time.perf_counter()
            await pilot.click(button)

            def replanned(dialog: CompactDialog = dialog, target: str = target) -> bool:
                return (dialog.plan is not None and dialog.plan.layer == target
                        and dialog._pending == dialog.request())

            await _until(pilot, replanned)
            times["replan"].append(rendered[-1] - start)
            await pilot.press("escape")  # the dialog
            await _until(pilot, lambda: isinstance(app.screen, SessionScreen))
            await pilot.press("escape")  # back to the list
            await _until(pilot, lambda: not isinstance(app.screen, SessionScreen))
    CompactDialog._render_plan = original  # type: ignore[method-assign]
    return times


class _Bare(App[None]):
    BINDINGS = [("q", "quit", "Quit")]  # noqa: RUF012 - Textual's declaration

    def compose(self) -> ComposeResult:
        yield Static("bare")


async def _quit_once(make: Callable[[], App[None]], ready: Callable[[App[None]], bool]) -> float:
    app = make()
    async with app.run_test(size=(120, 36)) as pilot:
        await _until(pilot, lambda: ready(app))
        start = time.perf_counter()
        await pilot.press("q")
    return time.perf_counter() - start


def _engine_plans(path: Path, trials: int) -> tuple[list[float], list[float], list[float]]:
    source = discover_sessions([path]).sessions[0]
    reads, cold, warm = [], [], []
    for _ in range(trials):
        start = time.perf_counter()
        follower = SessionFollower(source)
        snapshot = follower.refresh()
        reads.append(time.perf_counter() - start)
        state = Path(tempfile.mkdtemp(prefix="ctxscope-bench-state-"))
        start = time.perf_counter()
        plan_compaction(snapshot, "summarize", load=follower.reader.read_object, state_dir=state,
                        token_cache={})
        cold.append(time.perf_counter() - start)
        start = time.perf_counter()
        plan_compaction(snapshot, "full", load=follower.reader.read_object, state_dir=state,
                        token_cache=follower.token_cache)
        warm.append(time.perf_counter() - start)
    return reads, cold, warm


def run(work: Path, *, trials: int, session_mb: float) -> list[Row]:
    directory = work / "sessions"
    directory.mkdir()
    stats = generate_session_file(directory / "latency.jsonl", target_bytes=int(session_mb * 1e6), seed=11)
    print(f"generated {stats.bytes / 1e6:.1f} MB, {stats.entries:,} entries", file=sys.stderr)
    times = asyncio.run(_app_latencies(directory, work / "state", trials))
    reads, cold, warm = _engine_plans(directory / "latency.jsonl", max(3, trials // 3))
    quits = [asyncio.run(_quit_once(lambda: CtxscopeApp([directory], Config(state_dir=work / "state"),
                                                        auto_checkpoints=False),
                                    lambda app: isinstance(app, CtxscopeApp) and app.sessions_loaded))
             for _ in range(max(3, trials // 3))]
    bare = [asyncio.run(_quit_once(_Bare, lambda app: app.is_running)) for _ in range(max(3, trials // 3))]
    size = f"{stats.bytes / 1e6:.0f} MB session"

    def row(name: str, label: str, measured: list[float], baseline_label: str, baseline: list[float]) -> Row:
        ratio = statistics.median(measured) / statistics.median(baseline)
        return Row(f"{label} p95 ≤ {TARGETS_MS[name]:.0f} ms", f"{_ms(measured)} ({size})",
                   f"{baseline_label}: {_ms(baseline)}", f"{ratio:.2f}× (median)",
                   _p95(measured) * 1000 <= TARGETS_MS[name])

    return [
        row("open", "open a session", times["open"], "a fresh follower reading it", reads),
        row("dialog", "open the compact dialog with its plan", times["dialog"], "engine plan, cold token cache", cold),
        row("replan", "re-plan on a layer change", times["replan"], "engine plan, warm token cache", warm),
        row("quit", "quit", quits, "a bare Textual app quitting", bare),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.tui_actions", description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=15)
    parser.add_argument("--session-mb", type=float, default=20)
    parser.add_argument("--quick", action="store_true", help="5 trials on a 5 MB session: a smoke run")
    args = parser.parse_args(argv)
    trials, size = (5, 5.0) if args.quick else (args.trials, args.session_mb)
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="ctxscope-bench-") as tmp:
        rows = run(Path(tmp), trials=trials, session_mb=size)
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
