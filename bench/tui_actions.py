"""How fast the TUI answers a key: open a session, open the compact dialog, re-plan on a layer change, quit.

Targets: docs/architecture.md, Targets. Run: ``python -m bench.tui_actions [--trials 15] [--session-mb 20]``.

The real app runs headless (``App.run_test``) on one generated pi session of ``--session-mb`` MB. Each figure is the
time from the key press until the terminal would have the result: every compositor update is rendered to its
escape sequences as the driver would (:mod:`bench.frames`), and a figure ends with the first update that holds
it, not when the test harness next looks (``Pilot.press`` waits for the app to go idle, which adds its own delay).
Next to each, a baseline measured in the same run:

* **open a session** (Enter on the list → the first frame of the session screen: title, gauge with its figures
  and model, cards, the tab bar) and **its Overview complete** (→ the frame in which the utilization plot is drawn
  from the timeline and the top consumers are listed, both read by workers): baseline, reading the session with a
  fresh follower (what opening would cost without the app's live tracker);
* **open the compact dialog** (``k`` → the first frame after the dialog put its first plan in its widgets):
  baseline, the engine's plan with a cold token cache (the dialog's plan reuses the follower's cached counts);
* **re-plan on a layer change** (``full`` chosen, as its button's click handler does → the first frame with its
  plan; the app's own debounce, which a layer change skips): baseline, the same engine plan with a warm cache (the
  dialog's own overhead is the difference);
* **quit** (``q`` → the app has shut down): baseline, a bare Textual app with one widget quitting the same way.
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

from bench.frames import FrameProbe
from bench.table import Row, print_table
from engine.agents.discovery import discover_sessions
from engine.compaction.planner import plan_compaction
from engine.config.loader import Config
from engine.session.snapshot import SessionFollower
from sim.session_generator import generate_session_file
from tui.app import CtxscopeApp
from tui.dialogs.compact import CompactDialog
from tui.gc_pacing import full_collection
from tui.screens.session_view import SessionScreen
from tui.widgets.session_table import SessionTable

TARGETS_MS = {"open": 150.0, "overview": 150.0, "dialog": 300.0, "replan": 150.0, "quit": 300.0}


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


class _Frames:
    """When the terminal got the session screen, its Overview complete, and each plan the dialog rendered."""

    def __init__(self, app: CtxscopeApp) -> None:
        self.first: float | None = None
        self.plot: float | None = None
        self.consumers: float | None = None
        self.plan_rendered: float | None = None
        self.plan_shown: float | None = None
        FrameProbe(app).lookers.append(self._look)

    def reset(self) -> None:
        self.first = self.plot = self.consumers = self.plan_rendered = self.plan_shown = None

    def _look(self, screen: object, text: str, at: float) -> None:
        if isinstance(screen, SessionScreen):
            if self.first is None:
                self.first = at
            if self.plot is None and screen.timeline is not None and f"{screen.timeline.turns} replies" in text:
                self.plot = at
            if self.consumers is None and screen.consumers and screen.consumers[0].entry_id[:12] in text:
                self.consumers = at
        elif isinstance(screen, CompactDialog) and self.plan_rendered is not None and self.plan_shown is None:
            self.plan_shown = at  # the first frame of the dialog after its plan went into its widgets

    @property
    def overview(self) -> float | None:
        """The Overview complete on the terminal: the plot drawn from the timeline and the top consumers listed."""
        return None if self.plot is None or self.consumers is None else max(self.plot, self.consumers)


async def _app_latencies(directory: Path, state: Path, trials: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"open": [], "overview": [], "dialog": [], "replan": [], "idle_gc": []}
    original = CompactDialog._render_plan
    app = CtxscopeApp([directory], Config(state_dir=state), auto_checkpoints=False)  # the app's own debounce
    frames = _Frames(app)

    def render_plan(dialog: CompactDialog, plan: object) -> None:
        original(dialog, plan)  # type: ignore[arg-type]
        frames.plan_rendered = time.perf_counter()
        frames.plan_shown = None

    CompactDialog._render_plan = render_plan  # type: ignore[method-assign]
    async with app.run_test(size=(120, 36)) as pilot:
        await _until(pilot, lambda: app.sessions_loaded and bool(app.snapshots))
        key = next(iter(app.snapshots))
        table = app.session_list.query_one(SessionTable)
        for _ in range(trials):
            table.move_cursor(row=table.get_row_index(key))
            await pilot.pause()
            frames.reset()
            start = time.perf_counter()
            await pilot.press("enter")
            await _until(pilot, lambda: frames.first is not None and frames.overview is not None)
            assert frames.first is not None and frames.overview is not None
            times["open"].append(frames.first - start)
            times["overview"].append(frames.overview - start)
            frames.reset()
            start = time.perf_counter()
            await pilot.press("k")
            await _until(pilot, lambda: frames.plan_shown is not None)
            assert frames.plan_shown is not None
            times["dialog"].append(frames.plan_shown - start)
            dialog = app.screen
            assert isinstance(dialog, CompactDialog)
            target = "full" if dialog.chosen_layer != "full" else "summarize"
            button = next(b for b in dialog.query(RadioButton) if b.name == target)
            await pilot.pause()

            def replanned(dialog: CompactDialog = dialog, target: str = target) -> bool:
                return (dialog.plan is not None and dialog.plan.layer == target
                        and dialog._pending == dialog.request() and frames.plan_shown is not None)

            frames.reset()
            start = time.perf_counter()
            button.toggle()  # what its click handler does (Pilot.click waits for the app to go idle 3 times first)
            await _until(pilot, replanned)
            assert frames.plan_shown is not None
            times["replan"].append(frames.plan_shown - start)
            await pilot.press("escape")  # the dialog
            await _until(pilot, lambda: isinstance(app.screen, SessionScreen))
            await pilot.press("escape")  # back to the list
            await _until(pilot, lambda: not isinstance(app.screen, SessionScreen))
        for _ in range(3):  # the full collection the app runs itself once the user pauses (tui/gc_pacing.py)
            start = time.perf_counter()
            full_collection()
            times["idle_gc"].append(time.perf_counter() - start)
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
    if os.environ.get("BENCH_RAW"):
        print({k: [round(v * 1000) for v in vs] for k, vs in times.items()}, file=sys.stderr)
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
        row("open", "open a session (its first frame)", times["open"], "a fresh follower reading it", reads),
        row("overview", "… its Overview complete", times["overview"], "a fresh follower reading it", reads),
        row("dialog", "open the compact dialog with its plan", times["dialog"], "engine plan, cold token cache", cold),
        row("replan", "re-plan on a layer change", times["replan"], "engine plan, warm token cache", warm),
        row("quit", "quit", quits, "a bare Textual app quitting", bare),
        Row("(a full collection, run when no key came for 3 s)",
            f"{_ms(times['idle_gc'])} (in the app, after the trials)", "-", "-", None),
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
