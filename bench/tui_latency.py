"""Live-update benchmarks: append → engine snapshot, append → screen, idle CPU watching 50 sessions.

Targets: docs/architecture.md, Targets.

Run: ``python -m bench.tui_latency [--trials 40] [--session-mb 10] [--sessions 50] [--idle-seconds 20] [--quick]``.

Every figure is printed next to a baseline measured in the same run:

* append → engine snapshot: :meth:`~engine.session.snapshot.SessionFollower.refresh` right after an append, vs a full
  re-parse of the file per refresh (a fresh follower each time: what tools without an incremental reader do;
  orjson of every line is shown too, the least a peer that parses each line pays);
* append → screen: the app headless (``App.run_test``) with its real watchfiles change source, on the session
  view; the time from the append until the bytes the app would send the terminal contain the new token figure
  (each compositor update is rendered to its escape sequences, as the terminal driver would); baseline: the same
  app whose tracker re-parses the whole file on every change;
* idle: CPU time / wall time of ``ctxscope tui`` on 50 sessions in a real terminal (tmux; the app headless in a
  subprocess when tmux is missing), vs a loop that re-reads and parses every file every 2 s (as abtop does).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson

from bench.frames import FrameProbe
from bench.index import Row, _orjson_every_line, print_table
from engine.config.loader import Config
from engine.session.snapshot import SessionFollower, snapshot_session
from engine.stores.source import SessionSource
from sim.session_generator import generate_session_file
from sim.synthetic import SONNET, assistant_entry, make_usage, text_block

_TICKS = os.sysconf("SC_CLK_TCK")


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def _ms(values: list[float]) -> str:
    return f"median {statistics.median(values) * 1000:.1f} ms, p95 {_pct(values, 0.95) * 1000:.1f} ms"


class Appender:
    """Appends assistant replies whose usage makes the gauge read a known, never repeated token figure."""

    def __init__(self, path: Path, leaf: str, start_tokens: int) -> None:
        self.path = path
        self.leaf = leaf
        self.tokens = start_tokens
        self._n = 0

    def line(self) -> tuple[bytes, int]:
        """The next line and the context tokens it reports (not yet written)."""
        self._n += 1
        self.tokens += 97 + self._n % 13
        entry_id = f"{0xBE000000 + self._n:08x}"
        now = int(time.time() * 1000)
        usage = make_usage(SONNET, prompt=self.tokens - 180, output=180, cached=self.tokens - 900, fresh=8)
        entry = assistant_entry(entry_id, self.leaf, now, model=SONNET, usage=usage, stop_reason="stop",
                                content=[text_block(f"Step {self._n}: the limiter now returns Retry-After.")],
                                started_ms=now - 1500)
        self.leaf = entry_id
        return orjson.dumps(entry) + b"\n", self.tokens

    def append(self, data: bytes) -> None:
        with self.path.open("ab") as handle:  # one write() of a whole line, as pi does
            handle.write(data)


# -- append → engine snapshot ------------------------------------------------------------------------------


def bench_engine(path: Path, leaf: str, trials: int) -> Row:
    """Incremental refresh after each append vs a fresh full parse of the file."""
    source = SessionSource(key="bench", path=path, format="pi-jsonl")
    follower = SessionFollower(source)
    follower.refresh()
    appender = Appender(path, leaf, 60_000)
    engine: list[float] = []
    baseline: list[float] = []
    every_line: list[float] = []
    for i in range(trials):
        data, tokens = appender.line()
        start = time.perf_counter()
        appender.append(data)
        snapshot = follower.refresh()
        engine.append(time.perf_counter() - start)
        assert snapshot.tokens.tokens == tokens, (snapshot.tokens, tokens)
        if i % 2 == 0:  # the baseline is slow: every other append is enough for its median and p95
            data, tokens = appender.line()
            start = time.perf_counter()
            appender.append(data)
            full = snapshot_session(source)
            baseline.append(time.perf_counter() - start)
            assert full.tokens.tokens == tokens
            follower.refresh()
            start = time.perf_counter()
            _orjson_every_line(path)  # the least a reader that parses every line pays, before any accounting
            every_line.append(time.perf_counter() - start)
    size = path.stat().st_size / 1e6
    return Row(
        "append → engine snapshot ≤ 50 ms",
        f"{_ms(engine)} ({size:.0f} MB session, {len(engine)} appends)",
        f"full re-parse per refresh: {_ms(baseline)}; orjson of every line alone: median "
        f"{statistics.median(every_line) * 1000:.0f} ms",
        f"{statistics.median(baseline) / statistics.median(engine):.0f}× faster (median)",
        _pct(engine, 0.95) <= 0.050,
    )


# -- append → screen ---------------------------------------------------------------------------------------


class ScreenProbe:
    """Spots a needle in the bytes the terminal would get (:class:`bench.frames.FrameProbe`)."""

    def __init__(self, app: Any) -> None:
        self.needle: str | None = None
        self.seen = asyncio.Event()
        self.at = 0.0
        FrameProbe(app).lookers.append(self._look)

    def _look(self, screen: Any, text: str, at: float) -> None:
        if self.needle is not None and self.needle in text:
            self.at = at
            self.needle = None
            self.seen.set()

    def expect(self, needle: str) -> None:
        self.needle = needle
        self.seen.clear()


def _reparse_on_every_change(tracker: Any) -> None:
    """Make the app's tracker start each session's follower afresh (a full parse) on every change: the baseline.

    Reaches into the tracker (there is no public seam for making it slower on purpose).
    """
    name = "step" if hasattr(tracker, "step") else "refresh"
    original = getattr(tracker, name)

    def fresh_then_read(key: str, *args: Any, **kwargs: Any) -> Any:
        tracked = tracker._sessions[key]
        with tracked.lock:
            follower = SessionFollower(tracked.follower.source, tracker.config)
            tracked.follower = follower
            if getattr(tracked, "managed", None) is not None:
                tracked.managed.follower = follower
        return original(key, *args, **kwargs)

    setattr(tracker, name, fresh_then_read)


async def _screen_latencies(directory: Path, path: Path, leaf: str, trials: int, state: Path,
                            *, reparse: bool) -> tuple[list[float], list[float]]:
    from tui.app import CtxscopeApp
    from tui.screens.session_list import SessionChosen
    from tui.screens.session_view import SessionScreen

    app = CtxscopeApp([directory], Config(state_dir=state))
    app.animation_level = "none"
    if reparse:
        _reparse_on_every_change(app.tracker)
    probe = ScreenProbe(app)
    source = app.changes
    noticed: list[float] = []

    async def timed(targets: tuple[Path, ...]) -> AsyncIterator[frozenset[Path]]:
        async for batch in source(targets):
            noticed.append(time.perf_counter())
            yield batch

    app.changes = timed
    appender = Appender(path, leaf, 80_000 if reparse else 70_000)
    rng = random.Random(5)
    latencies: list[float] = []
    notify: list[float] = []
    async with app.run_test(size=(120, 36)) as pilot:
        while not app.sessions_loaded or not app.snapshots:
            await pilot.pause(0.05)
        key = next(iter(app.snapshots))
        window = app.snapshots[key].window.tokens
        app.post_message(SessionChosen(key))
        while not isinstance(app.screen, SessionScreen):
            await pilot.pause(0.05)
        await pilot.pause(1.0)  # the session view's first workers (timeline, context table) finish
        for _ in range(trials):
            data, tokens = appender.line()
            probe.expect(f"{tokens:,} / {window:,} tokens")
            noticed.clear()
            start = time.perf_counter()
            appender.append(data)
            await asyncio.wait_for(probe.seen.wait(), timeout=30)
            latencies.append(probe.at - start)
            notify.append(noticed[0] - start)
            await asyncio.sleep(rng.uniform(0.3, 0.6))  # an agent writes every 0.5–2 s; let the panes settle
    return latencies, notify


def bench_screen(work: Path, session: Path, leaf: str, trials: int) -> Row:
    """Append → the new token figure in the app's terminal output, incremental vs re-parse per change."""
    results: dict[bool, tuple[list[float], list[float]]] = {}
    for reparse, count in ((False, trials), (True, max(10, trials // 2))):
        directory = work / ("screen-baseline" if reparse else "screen")
        directory.mkdir()
        path = directory / session.name
        shutil.copyfile(session, path)
        results[reparse] = asyncio.run(_screen_latencies(directory, path, leaf, count, work / "state", reparse=reparse))
    (engine, notify), (baseline, _) = results[False], results[True]
    return Row(
        "append → screen p95 ≤ 150 ms",
        f"{_ms(engine)}; file notification alone median {statistics.median(notify) * 1000:.0f} ms "
        f"(headless app, {len(engine)} appends)",
        f"same app re-parsing per change: {_ms(baseline)}",
        f"{statistics.median(baseline) / statistics.median(engine):.1f}× faster (median)",
        _pct(engine, 0.95) <= 0.150,
    )


# -- idle CPU ----------------------------------------------------------------------------------------------


def _proc_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS  # utime, stime: fields 14 and 15 of proc(5)


def _rusage_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _idle_in_tmux(directory: Path, count: int, seconds: float, state: Path) -> tuple[float, str]:
    socket = f"ctxscope-bench-{os.getpid()}"
    tmux = ["tmux", "-L", socket, "-f", os.devnull]
    command = ["exec", "env", f"XDG_CONFIG_HOME={state / 'config'}", sys.executable, "-m", "tui.cli.main",
               "--state-dir", str(state), "tui", str(directory)]
    subprocess.run([*tmux, "new-session", "-d", "-s", "idle", "-x", "120", "-y", "36", " ".join(command)],
                   check=True, cwd=Path(__file__).resolve().parent.parent)
    try:
        pid = int(subprocess.run([*tmux, "display", "-p", "-t", "idle", "#{pane_pid}"], capture_output=True,
                                 text=True, check=True).stdout)
        deadline = time.monotonic() + 120
        shown = f"{count} sessions"
        while shown not in subprocess.run([*tmux, "capture-pane", "-p", "-t", "idle"], capture_output=True,
                                          text=True, check=True).stdout:
            if time.monotonic() > deadline:
                raise RuntimeError(f"ctxscope tui never showed {shown!r}")
            time.sleep(0.2)
        time.sleep(3)  # the first reads are done; let the last workers and the GC finish
        cpu0, wall0 = _proc_cpu_seconds(pid), time.monotonic()
        time.sleep(seconds)
        cpu1, wall1 = _proc_cpu_seconds(pid), time.monotonic()
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
    return (cpu1 - cpu0) / (wall1 - wall0), "ctxscope tui in tmux"


async def _idle_app(directory: Path, seconds: float, state: Path) -> dict[str, float]:
    from tui.app import CtxscopeApp

    app = CtxscopeApp([directory], Config(state_dir=state))
    async with app.run_test(size=(120, 36)) as pilot:
        while not app.sessions_loaded:
            await pilot.pause(0.05)
        await asyncio.sleep(3)
        cpu0, wall0 = _rusage_cpu(), time.monotonic()
        await asyncio.sleep(seconds)
        return {"cpu": _rusage_cpu() - cpu0, "wall": time.monotonic() - wall0}


def _poll_loop(directory: Path, seconds: float) -> dict[str, float]:
    """The baseline: every 2 s, read and parse every line of every session file."""
    files = sorted(directory.glob("*.jsonl"))

    def read_all() -> None:
        for path in files:
            for line in path.read_bytes().splitlines():
                try:  # noqa: SIM105 - a context manager per line would slow the baseline down
                    orjson.loads(line)
                except orjson.JSONDecodeError:
                    pass

    read_all()
    cpu0, wall0 = _rusage_cpu(), time.monotonic()
    next_at = wall0
    while time.monotonic() - wall0 < seconds:
        next_at += 2.0
        time.sleep(max(0.0, min(next_at, wall0 + seconds) - time.monotonic()))
        if time.monotonic() - wall0 < seconds:
            read_all()
    return {"cpu": _rusage_cpu() - cpu0, "wall": time.monotonic() - wall0}


def _child(kind: str, directory: Path, seconds: float, state: Path) -> float:
    """CPU share of one core of a fresh process running ``kind`` (so this process's threads do not count)."""
    out = subprocess.run([sys.executable, "-m", "bench.tui_latency", "--child", kind, str(directory), str(seconds),
                          str(state)], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parent.parent).stdout
    result = json.loads(out.strip().splitlines()[-1])
    return float(result["cpu"] / result["wall"])


def bench_idle(work: Path, count: int, seconds: float, *, use_tmux: bool) -> Row:
    """CPU share of one core while watching ``count`` idle sessions, vs re-reading them every 2 s."""
    directory = work / "idle"
    directory.mkdir()
    total = 0
    for i in range(count):
        total += generate_session_file(directory / f"session-{i:03d}.jsonl", target_bytes=1_000_000,
                                       seed=100 + i).bytes
    state = work / "idle-state"
    if use_tmux and shutil.which("tmux") and Path("/proc").is_dir():
        share, how = _idle_in_tmux(directory, count, seconds, state)
    else:
        share, how = _child("app", directory, seconds, state), "headless app"
    baseline = _child("poll", directory, seconds, state)
    return Row(
        f"idle watching of {count} sessions ≤ 2% of a core",
        f"{share:.2%} of a core ({how}, {seconds:g} s, {total / 1e6:.0f} MB watched)",
        f"re-read and parse every file every 2 s: {baseline:.1%}",
        f"{baseline / max(share, 1e-4):.0f}× less CPU",
        share <= 0.02,
    )


def run(work: Path, *, trials: int, session_mb: float, sessions: int, idle_seconds: float, use_tmux: bool) -> list[Row]:
    """Generate the sessions under ``work`` and run the three benchmarks."""
    start = time.perf_counter()
    session = work / "latency.jsonl"
    stats = generate_session_file(session, target_bytes=int(session_mb * 1e6), seed=11)
    print(f"generated {session.name}: {stats.bytes / 1e6:.1f} MB, {stats.entries:,} entries in "
          f"{time.perf_counter() - start:.1f} s", file=sys.stderr)
    engine_copy = work / "engine.jsonl"
    shutil.copyfile(session, engine_copy)
    rows = [bench_engine(engine_copy, stats.leaf_id, trials)]
    print("engine: done", file=sys.stderr)
    rows.append(bench_screen(work, session, stats.leaf_id, trials))
    print("screen: done", file=sys.stderr)
    rows.append(bench_idle(work, sessions, idle_seconds, use_tmux=use_tmux))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.tui_latency", description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=40, help="appends per latency measurement")
    parser.add_argument("--session-mb", type=float, default=10, help="size of the session appended to")
    parser.add_argument("--sessions", type=int, default=50, help="sessions watched while idle")
    parser.add_argument("--idle-seconds", type=float, default=20, help="length of the idle measurement")
    parser.add_argument("--headless", action="store_true", help="measure idle CPU headless even if tmux exists")
    parser.add_argument("--quick", action="store_true", help="15 appends, 5 s idle: a smoke run")
    parser.add_argument("--child", nargs=4, metavar=("KIND", "DIR", "SECONDS", "STATE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        kind, directory, seconds, state = args.child
        if kind == "app":
            result = asyncio.run(_idle_app(Path(directory), float(seconds), Path(state)))
        else:
            result = _poll_loop(Path(directory), float(seconds))
        print(json.dumps(result))
        return 0
    trials, idle = (15, 5.0) if args.quick else (args.trials, args.idle_seconds)
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="ctxscope-bench-") as tmp:
        rows = run(Path(tmp), trials=trials, session_mb=args.session_mb, sessions=args.sessions, idle_seconds=idle,
                   use_tmux=not args.headless)
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
