"""Measure: does any notice cover the active pane while the demo runs? (issue 28, item 5)

Runs ``ctxscope demo``'s app in-process under Textual's Pilot with the real simulated agent at pace 1, and once a
second records every widget drawn over the panes (Textual's toasts, the notice line) and whether its region
overlaps the active pane: the list on the list screen, the shown tab's pane on the session screen (it opens the
demo session and cycles its tabs every 10 s). Prints the samples, the notices seen and the overlaps found.

    .venv/bin/python bench/notice_overlap.py --seconds 300 --size 120x36
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.config.loader import Config
from sim.simulate import DEMO_WINDOW
from tui.demo import DemoApp, prepare_demo_dir, start_simulator, stop_simulator
from tui.screens.session_view import TABS, SessionScreen


def _active_pane(screen: object) -> object | None:
    if isinstance(screen, SessionScreen):
        shown = [p for p in screen.query(".pane") if p.display]
        return shown[0] if shown else None
    tables = screen.query("SessionTable")  # type: ignore[attr-defined]
    return tables.first() if tables else None


async def measure(seconds: float, size: tuple[int, int]) -> int:
    demo = prepare_demo_dir(Path(tempfile.mkdtemp(prefix="ctxscope-overlap-")))
    process = start_simulator(demo, pace=1.0, seed=7, window=DEMO_WINDOW)
    samples = overlaps = with_notice = 0
    titles: set[str] = set()
    try:
        while not list(demo.sessions.glob("*.jsonl")):
            await asyncio.sleep(0.1)
        app = DemoApp([demo.sessions], Config(state_dir=demo.root), simulator=process, demo=demo)
        async with app.run_test(size=size, notifications=True) as pilot:
            start = time.monotonic()
            tab = 0
            while time.monotonic() - start < seconds:
                await asyncio.sleep(1.0)
                elapsed = time.monotonic() - start
                screen = app.screen
                if isinstance(screen, SessionScreen) and int(elapsed) % 10 == 0:
                    tab = (tab + 1) % len(TABS)
                    screen.show_tab(TABS[tab])
                await pilot.pause()
                pane = _active_pane(app.screen)
                floating = [w for w in app.screen.query("Toast") if w.region]
                floating += [w for w in app.screen.query("#notice-line") if w.display and w.region]
                samples += 1
                if floating:
                    with_notice += 1
                    titles.update(str(w.render())[:40] for w in floating)
                if pane is not None and any(w.region.overlaps(pane.region) for w in floating):  # type: ignore[attr-defined]
                    overlaps += 1
                    print(f"{elapsed:6.1f}s overlap on {type(app.screen).__name__}: "
                          f"{[(type(w).__name__, w.region) for w in floating]} pane {pane.region}")  # type: ignore[attr-defined]
        print(f"size {size[0]}x{size[1]}: {samples} samples over {seconds:.0f} s, {with_notice} with a notice "
              f"shown, {overlaps} with a notice over the active pane")
        for title in sorted(titles)[:20]:
            print("  seen:", title)
    finally:
        stop_simulator(process)
    return 1 if overlaps else 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument("--size", default="120x36")
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.split("x"))
    return asyncio.run(measure(args.seconds, (width, height)))


if __name__ == "__main__":
    sys.exit(main())
