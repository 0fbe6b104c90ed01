"""``ctxscope watch --metrics`` benchmarks (docs/fleet.md): the scrape of 1,000 sessions, the exporter's idle CPU.

Run: ``python -m bench.metrics [--sessions 1000] [--idle-sessions 50] [--idle-seconds 60] [--scrape-interval 15]
[--quick]``.

* scrape: the collector's rendering (tracker → exposition text) of N followed sessions, every one active so every
  one is exported, median of repeated scrapes: with every session changed since the previous scrape (nothing kept:
  the target), and unchanged (lines kept). Timed as CPU time of the rendering thread (on an idle machine that is
  its latency; on a shared one the wall time, shown too, adds the wait for a core); beside it a ``GET /metrics``
  over loopback from a
  :class:`~engine.live.metrics_server.MetricsServer` (HTTP, the process collector, the client's read). Baseline in
  the same run: the same per-session values, already gathered, written with one f-string per line (no escaping,
  no sorting) — the floor any exporter pays. For reference, ``prometheus_client.generate_latest`` on the same
  collector.
* idle CPU: two ``ctxscope watch`` processes on copies of the same 50 idle sessions run side by side, one with
  ``--metrics`` and scraped every ``--scrape-interval`` seconds (Prometheus's default is 15 s), one without; the
  figure is the difference of their CPU time (``/proc/PID/stat``, all threads) over the same window, as a share of
  one core.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson
from prometheus_client import CollectorRegistry, generate_latest

from bench.table import Row, print_table
from engine.config.loader import Config
from engine.config.metrics_settings import MetricsSettings
from engine.live.activity import ActivityRecorder
from engine.live.exposition import SESSION_METRICS, SidecarCollector
from engine.live.metrics import SessionMetrics
from engine.live.metrics_server import MetricsServer
from engine.live.tracker import SessionTracker

_TICKS = os.sysconf("SC_CLK_TCK")
_MODELS = ("claude-sonnet-4-5", "gpt-5", "qwen3-max", "kimi-k2-turbo")
_SETTLE_LIMIT = 300.0


def write_sessions(directory: Path, count: int) -> Path:
    """``count`` small pi sessions (header, a user turn, a priced assistant reply) stamped a minute ago."""
    directory.mkdir(parents=True, exist_ok=True)
    when = (datetime.now(UTC) - timedelta(minutes=1)).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    for i in range(count):
        model = _MODELS[i % len(_MODELS)]
        total = 20_000 + 137 * i
        lines = [
            {"type": "session", "version": 3, "id": str(uuid.UUID(int=i + 1)), "timestamp": when, "cwd": "/srv"},
            {"type": "message", "id": "u1", "parentId": None, "timestamp": when,
             "message": {"role": "user", "content": [{"type": "text", "text": f"task {i}: fix the build"}]}},
            {"type": "message", "id": "a1", "parentId": "u1", "timestamp": when,
             "message": {"role": "assistant", "content": [{"type": "text", "text": "Fixed."}], "provider": "x",
                         "model": model, "stopReason": "stop",
                         "usage": {"input": 100, "output": 50, "cacheRead": total - 2_150, "cacheWrite": 2_000,
                                   "totalTokens": total, "cost": {"total": 0.01 * (i % 7)}}}},
        ]
        (directory / f"session-{i:05d}.jsonl").write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return directory


def _plain(rows: list[SessionMetrics]) -> bytes:
    """The baseline: the same values, one f-string per line."""
    out: list[str] = []
    for metric in SESSION_METRICS:
        out.append(f"# HELP {metric.name} {metric.help}\n# TYPE {metric.name} gauge\n")
        for row in rows:
            labels = f'agent="{row.agent}",host="{row.host}",model="{row.model}",session="{row.session}"'
            for extra, value in metric.samples(row):
                if value is not None:
                    more = f',{metric.label}="{extra}"' if extra is not None else ""
                    out.append(f"{metric.name}{{{labels}{more}}} {value}\n")
    return "".join(out).encode()


def _median_ms(fn: Callable[[], object], runs: int, clock: Callable[[], float] = time.perf_counter) -> float:
    times = []
    for _ in range(runs):
        start = clock()
        fn()
        times.append(clock() - start)
    return statistics.median(times) * 1000


def _cpu_and_wall(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    """Median CPU time of this thread and median wall time of ``fn``, in ms (CPU first)."""
    return _median_ms(fn, runs, time.thread_time), _median_ms(fn, runs)


def bench_scrape(work: Path, count: int, runs: int) -> list[Row]:
    """Median scrape of ``count`` followed sessions vs a plain formatter of the same values."""
    directory = write_sessions(work / "scrape", count)
    tracker = SessionTracker([directory], Config(state_dir=work / "scrape-state"))
    tracker.discover()
    for key in tracker.keys:
        tracker.step(key)
    collector = SidecarCollector(tracker, ActivityRecorder(), MetricsSettings(host="bench"))
    rows = collector.scrape().sessions
    assert len(rows) == count, f"{len(rows)} of {count} sessions exported"
    size = len(collector.render())
    server = MetricsServer(collector, "127.0.0.1", 0).start()
    try:
        def get() -> bytes:
            with urllib.request.urlopen(server.url, timeout=60) as response:
                return bytes(response.read())

        get()
        http = _median_ms(get, runs)
    finally:
        server.close()
    warm, warm_wall = _cpu_and_wall(collector.render, runs)

    def cold() -> None:  # every session changed since the previous scrape: nothing kept
        collector.forget()
        collector.render()

    render, render_wall = _cpu_and_wall(cold, runs)
    plain, plain_wall = _cpu_and_wall(lambda: _plain(rows), runs)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(collector)
    reference, _ = _cpu_and_wall(lambda: generate_latest(registry), max(3, runs // 4))
    return [
        Row(f"scrape of {count:,} followed sessions ≤ 50 ms",
            f"{render:.1f} ms CPU with every session changed (wall {render_wall:.0f}), {warm:.1f} ms unchanged "
            f"(wall {warm_wall:.0f}); GET /metrics wall {http:.0f} ms, {size / 1e6:.1f} MB",
            f"plain f-string formatter {plain:.1f} ms CPU (wall {plain_wall:.0f})",
            f"{render / plain:.2f}× changed, {warm / plain:.2f}× unchanged", render <= 50),
        Row("  reference: prometheus_client.generate_latest", f"{reference:.0f} ms CPU",
            f"plain f-string formatter {plain:.1f} ms CPU", f"{reference / plain:.1f}×", None),
    ]


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS  # utime, stime of the whole thread group


def _settle(pid: int) -> None:
    """Wait until the process has finished its start-up pass (no CPU used for three seconds in a row)."""
    deadline, quiet, last = time.monotonic() + _SETTLE_LIMIT, 0, _cpu(pid)
    while quiet < 3:
        if time.monotonic() > deadline:
            raise RuntimeError(f"watch (pid {pid}) never went idle")
        time.sleep(1)
        now = _cpu(pid)
        quiet = quiet + 1 if now - last < 0.02 else 0
        last = now


def _watch(directory: Path, state: Path, *extra: str) -> subprocess.Popen[str]:
    config = state / "config"
    (config / "ctxscope").mkdir(parents=True)
    # Every session exported whatever its age, under a fixed host label.
    (config / "ctxscope" / "config.yaml").write_text("metrics: {idle_after: 3650d, host: bench}\n")
    exe = Path(sys.executable).with_name("ctxscope")
    return subprocess.Popen([str(exe), "--state-dir", str(state), "watch", str(directory), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ, "XDG_CONFIG_HOME": str(config)})


def bench_idle(work: Path, count: int, seconds: float, interval: float) -> Row:
    """Exporter CPU on an idle watch of ``count`` sessions, scraped every ``interval`` s, vs the same watch without."""
    plain_dir = write_sessions(work / "idle-plain", count)
    metrics_dir = write_sessions(work / "idle-metrics", count)
    processes = [_watch(plain_dir, work / "state-plain"),
                 _watch(metrics_dir, work / "state-metrics", "--metrics", "127.0.0.1:0")]
    try:
        url = ""
        deadline = time.monotonic() + _SETTLE_LIMIT
        out = processes[1].stdout
        assert out is not None
        while not url:
            if time.monotonic() > deadline:
                raise RuntimeError("watch --metrics never printed its address")
            line = out.readline()
            if line.startswith("metrics at "):
                url = line.split()[-1]
        for process in processes:
            _settle(process.pid)

        def scrape() -> None:
            with urllib.request.urlopen(url, timeout=60) as response:
                body = response.read()
            assert b"ctxscope_sessions_exported{" in body

        scrape()
        start = [_cpu(p.pid) for p in processes]
        wall0 = time.monotonic()
        scrapes = 0
        while time.monotonic() - wall0 < seconds:
            scrape()
            scrapes += 1
            time.sleep(max(0.0, min(interval, seconds - (time.monotonic() - wall0))))
        wall = time.monotonic() - wall0
        plain, metrics = ((_cpu(p.pid) - s) / wall for p, s in zip(processes, start, strict=True))
    finally:
        for process in processes:
            if process.poll() is None:
                os.kill(process.pid, 15)
                process.wait(timeout=60)
            if process.stdout is not None:
                process.stdout.close()
    added = metrics - plain
    return Row(
        f"exporter on an idle watch of {count} sessions ≤ 0.5% of a core",
        f"+{added:.3%} of a core ({scrapes} scrapes, one every {interval:g} s, over {wall:.0f} s)",
        f"watch without --metrics {plain:.3%} of a core", f"with --metrics {metrics:.3%}", added <= 0.005,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.metrics", description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=1000, help="sessions followed in the scrape benchmark")
    parser.add_argument("--runs", type=int, default=21, help="scrapes timed")
    parser.add_argument("--idle-sessions", type=int, default=50)
    parser.add_argument("--idle-seconds", type=float, default=60.0)
    parser.add_argument("--scrape-interval", type=float, default=15.0)
    parser.add_argument("--quick", action="store_true", help="200 sessions, a 15 s idle window: a smoke run")
    args = parser.parse_args(argv)
    sessions, idle = (200, 15.0) if args.quick else (args.sessions, args.idle_seconds)
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, Python {sys.version.split()[0]}",
          file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="ctxscope-bench-metrics-") as tmp:
        work = Path(tmp)
        rows = bench_scrape(work, sessions, args.runs)
        rows.append(bench_idle(work, args.idle_sessions, idle, args.scrape_interval))
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
