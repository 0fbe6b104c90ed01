"""Reading benchmarks: full index throughput, time to first gauge, peak memory (docs/architecture.md, Targets).

Run: ``python -m bench.index [--size-mb 100] [--gauge-gb 1.0] [--quick]``.

Every figure is printed next to a baseline measured in the same run on the same file:

* full index: the engine's :class:`~engine.stores.transcript.TranscriptReader` vs "orjson every line" (parse each line
  and throw it away — the floor any reader that looks at every line must pay);
* first gauge: :func:`~engine.session.quick_gauge.quick_context_tokens` (tail scan) vs a full index + measure;
* memory: peak RSS of a process that indexes the big file with the engine vs one that keeps every parsed line
  (what tools that hold whole transcripts do), both in fresh subprocesses.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

from bench.table import Row, print_table
from engine.accounting.context import build_context
from engine.accounting.measure import measure_context
from engine.session.quick_gauge import quick_context_tokens
from engine.stores.transcript import TranscriptReader
from sim.session_generator import generate_session_file


def _best(fn, repeat: int = 3) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _orjson_every_line(path: Path) -> None:
    loads = orjson.loads
    with path.open("rb") as handle:
        for line in handle:
            try:  # noqa: SIM105 - a context manager per line would slow the baseline down
                loads(line)
            except orjson.JSONDecodeError:
                pass


def _index(path: Path) -> TranscriptReader:
    reader = TranscriptReader(path)
    reader.read_new()
    return reader


def _full_gauge(path: Path) -> int | None:
    reader = _index(path)
    view = build_context(reader.entries, reader.by_id, reader.leaf)
    return measure_context(view, reader).tokens


def bench_full_index(path: Path, *, repeat: int = 3) -> Row:
    """Full index MB/s vs the orjson-every-line floor."""
    size_mb = path.stat().st_size / 1e6
    baseline = _best(lambda: _orjson_every_line(path), repeat)
    engine = _best(lambda: _index(path), repeat)
    rate = size_mb / engine
    return Row(
        f"full index of a {size_mb:.0f} MB session ≥ 100 MB/s",
        f"{rate:.0f} MB/s",
        f"orjson every line {size_mb / baseline:.0f} MB/s",
        f"{baseline / engine:.2f}× of the parse floor",
        rate >= 100,
    )


def bench_first_gauge(path: Path, *, full_baseline: bool = True) -> Row:
    """Time to the first gauge by scanning back from the end, vs a full index."""
    size_gb = path.stat().st_size / 1e9
    quick_time = _best(lambda: quick_context_tokens(path), 5)
    quick = quick_context_tokens(path)
    if full_baseline:
        start = time.perf_counter()
        full_tokens = _full_gauge(path)
        full_time = time.perf_counter() - start
        agree = "same figure" if full_tokens == quick.tokens else f"DIFFERENT: full {full_tokens} vs {quick.tokens}"
        baseline = f"full index + measure {full_time:.2f} s ({agree})"
        ratio = f"{full_time / quick_time:.0f}× faster"
    else:
        baseline, ratio = "(skipped)", "-"
    return Row(
        f"time to first gauge on a {size_gb:.2f} GB session ≤ 0.2 s",
        f"{quick_time * 1000:.1f} ms (scanned {quick.bytes_scanned / 1e3:.0f} kB, {quick.tokens} tokens)",
        baseline,
        ratio,
        quick_time <= 0.2,
    )


# Peak RSS from /proc/self/status VmHWM: unlike ru_maxrss, it starts afresh at exec, so the benchmark's own
# memory (inherited across fork) does not leak into the child's figure.
_HWM = "int(next(l for l in open('/proc/self/status') if l.startswith('VmHWM')).split()[1])"

_RSS_ENGINE = """
import sys
from engine.session.snapshot import SessionFollower
from engine.stores.source import SessionSource
from pathlib import Path
f = SessionFollower(SessionSource(key="bench", path=Path(sys.argv[1]), format="pi-jsonl"))
s = f.refresh()
print(HWM, s.entries)
""".replace("HWM", _HWM)

_RSS_BASELINE = """
import sys, orjson
rows = [orjson.loads(line) for line in open(sys.argv[1], "rb")]
print(HWM, len(rows))
""".replace("HWM", _HWM)

_RSS_EMPTY = """
import engine.session.snapshot, engine.agents.discovery
print(HWM, 0)
""".replace("HWM", _HWM)


def _rss_mb(code: str, path: Path | None) -> tuple[float, int]:
    argv = [sys.executable, "-c", code] + ([str(path)] if path else [])
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout.split()
    return int(out[0]) / 1024, int(out[1])


def bench_memory(big: Path, small: Path) -> Row:
    """Peak RSS indexing ``big`` with the engine, vs keeping every parsed line of ``small``."""
    idle, _ = _rss_mb(_RSS_EMPTY, None)
    engine_rss, entries = _rss_mb(_RSS_ENGINE, big)
    base_rss, _ = _rss_mb(_RSS_BASELINE, small)
    big_gb, small_mb = big.stat().st_size / 1e9, small.stat().st_size / 1e6
    per_gb_baseline = (base_rss - idle) / (small_mb / 1000)
    return Row(
        f"RSS ≤ 150 MB with {big_gb:.2f} GB of history",
        f"{engine_rss:.0f} MB peak ({entries:,} entries; interpreter + imports {idle:.0f} MB)",
        f"all lines as dicts: {base_rss:.0f} MB for {small_mb:.0f} MB (≈{per_gb_baseline / 1000:.1f} GB per GB)",
        f"{per_gb_baseline * big_gb / max(engine_rss - idle, 1):.0f}× less held per GB",
        engine_rss <= 150,
    )


def run(size_mb: int, gauge_gb: float, work: Path) -> list[Row]:
    """Generate the sessions under ``work`` and run every reading benchmark."""
    medium = work / f"session-{size_mb}mb.jsonl"
    big = work / f"session-{gauge_gb:g}gb.jsonl"
    start = time.perf_counter()
    stats = generate_session_file(medium, target_bytes=size_mb * 1_000_000, seed=3)
    print(f"generated {medium.name}: {stats.bytes / 1e6:.0f} MB, {stats.entries:,} entries, "
          f"{stats.compactions} compactions in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    start = time.perf_counter()
    big_stats = generate_session_file(big, target_bytes=int(gauge_gb * 1e9), seed=4)
    print(f"generated {big.name}: {big_stats.bytes / 1e9:.2f} GB, {big_stats.entries:,} entries in "
          f"{time.perf_counter() - start:.1f} s", file=sys.stderr)
    return [
        bench_full_index(medium),
        bench_first_gauge(big),
        bench_memory(big, medium),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.index", description=__doc__.split("\n")[0])
    parser.add_argument("--size-mb", type=int, default=100, help="session size for the index benchmark")
    parser.add_argument("--gauge-gb", type=float, default=1.0, help="session size for first gauge and memory")
    parser.add_argument("--quick", action="store_true", help="20 MB and 0.1 GB: a fast smoke run")
    parser.add_argument("--keep", type=Path, help="write the sessions here and keep them")
    args = parser.parse_args(argv)
    size_mb, gauge_gb = (20, 0.1) if args.quick else (args.size_mb, args.gauge_gb)
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}", file=sys.stderr)
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        rows = run(size_mb, gauge_gb, args.keep)
    else:
        with tempfile.TemporaryDirectory(prefix="ctxscope-bench-") as tmp:
            rows = run(size_mb, gauge_gb, Path(tmp))
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
