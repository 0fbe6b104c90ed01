"""The persistent index: ``status`` on one big session and ``report`` over a thousand, cold, warm and after appends.

Run: ``python -m bench.report [--sessions 1000] [--quick]``.

* ``status`` on a 234 MB generated pi session (375 compactions, 128k window): ``glance_session`` in this process —
  cold (empty index cache), warm (the cache present, the file unchanged; a new cache object each time, so the
  index file is read from disk), and after appending 1 MB — each against parsing every line of the file with
  orjson in the same run (the floor of any reader that looks at every line). The file stays in the page cache for
  both: the ratio compares work, not disk speed. The reported compaction count must be 375.
* ``report`` over the 1,000-session corpus of :mod:`bench.status` (one ~0.4 MB generated session copied under
  1,000 names; here each copy is dated in its own month, so its calls are distinct requests and not copies of
  one another): a fresh ``ctxscope report --json --utc`` process cold (page cache evicted, no index), warm, and
  after appending a turn to ten sessions, printed beside the plain full-parse reference
  (``python -m bench.usage_reference``, a process that parses every line of every file) — whose totals the
  report must equal, to the token.

Wall-clock seconds on a shared machine move with its load; each row also gives the process's CPU seconds.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from bench.status import evict, make_sessions
from bench.table import Row, print_table
from engine.index.cache import IndexCache
from engine.session.glance import glance_session
from engine.stores.source import SessionSource
from sim.session_generator import generate_session_file

BIG_SEED, BIG_BYTES, BIG_WINDOW, BIG_COMPACTIONS = 30, 234_000_000, 128_000, 375
"""The generator's arguments for the 234 MB session, and the compactions it writes."""


def _orjson_every_line(path: Path) -> None:
    loads = orjson.loads
    with path.open("rb") as handle:
        for line in handle:
            try:  # noqa: SIM105 - a context manager per line would slow the baseline down
                loads(line)
            except orjson.JSONDecodeError:
                pass


def _best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _chunk(work: Path, size: int, seed: int, parent: str | None) -> bytes:
    """About ``size`` bytes of new turns (no header, no compaction) whose first entry continues from ``parent``."""
    path = work / f"chunk-{seed}.jsonl"
    generate_session_file(path, target_bytes=size, seed=seed, compaction_every=0)
    lines = path.read_bytes().splitlines(keepends=True)[1:]
    path.unlink()
    first = orjson.loads(lines[0])
    first["parentId"] = parent
    return orjson.dumps(first) + b"\n" + b"".join(lines[1:])


def _leaf(path: Path) -> str | None:
    from engine.fs.tail import last_entry

    found = last_entry(path)
    return str(found[1]["id"]) if found else None


def bench_big_status(work: Path, *, size: int = BIG_BYTES, quick: bool = False) -> list[Row]:
    """Status of one big session: cold, warm and after a 1 MB append, against orjson over every line."""
    path = work / "big.jsonl"
    start = time.perf_counter()
    stats = generate_session_file(path, target_bytes=size, seed=BIG_SEED, window=BIG_WINDOW)
    print(f"generated {path.name}: {stats.bytes / 1e6:.0f} MB, {stats.entries:,} entries, {stats.compactions} "
          f"compactions in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    source = SessionSource(key="big", path=path, format="pi-jsonl")
    floor = _best(lambda: _orjson_every_line(path), 2)

    def cold() -> Any:
        directory = Path(tempfile.mkdtemp(dir=work, prefix="cold-"))
        try:
            return glance_session(source, index=IndexCache(directory))
        finally:
            shutil.rmtree(directory)

    cold_time = _best(cold, 2)
    cache_dir = work / "cache"
    first = glance_session(source, index=IndexCache(cache_dir))
    warm_time = _best(lambda: glance_session(source, index=IndexCache(cache_dir)), 5)
    appended: list[float] = []
    for round_ in range(1 if quick else 3):
        chunk = _chunk(work, 1_000_000, 900 + round_, _leaf(path))
        with path.open("ab") as out:
            out.write(chunk)
        t0 = time.perf_counter()
        after = glance_session(source, index=IndexCache(cache_dir))
        appended.append(time.perf_counter() - t0)
    found = first.compactions_in_file
    ok_count = found == stats.compactions and (size != BIG_BYTES or found == BIG_COMPACTIONS)
    where = f"{stats.bytes / 1e6:.0f} MB session"
    return [
        Row(f"status on a {where}, cold ≤ 0.25× orjson (reports {stats.compactions} compactions)",
            f"{cold_time:.3f} s, {found} compactions", f"orjson every line {floor:.3f} s",
            f"{cold_time / floor:.3f}×", cold_time <= 0.25 * floor and ok_count),
        Row(f"status on a {where}, warm ≤ 0.02×", f"{warm_time * 1000:.1f} ms", f"orjson every line {floor:.3f} s",
            f"{warm_time / floor:.4f}×", warm_time <= 0.02 * floor),
        Row(f"status on a {where} after appending 1 MB ≤ 0.05×",
            f"{min(appended) * 1000:.1f} ms ({after.compactions_in_file} compactions)",
            f"orjson every line {floor:.3f} s", f"{min(appended) / floor:.4f}×", min(appended) <= 0.05 * floor),
    ]


def distinct_corpus(root: Path, count: int) -> Path:
    """:func:`bench.status.make_sessions`, each copy dated in a month of its own (its requests are its own)."""
    make_sessions(root, count)
    for i, path in enumerate(sorted((root / "agents" / "main" / "sessions").iterdir())):
        month = f'"{2026 + i // 12}-{1 + i % 12:02d}-'.encode()
        path.write_bytes(path.read_bytes().replace(b'"2026-03-', month))
    return root


def _timed(argv: list[str], env: dict[str, str]) -> tuple[float, float, bytes]:
    """Wall and CPU seconds of one process, and its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(argv, check=True, stdout=subprocess.PIPE, env=env).stdout
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), out


def _totals_equal(report: dict[str, Any], reference: dict[str, Any]) -> bool:
    fields = ("calls", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "compactions")
    rows = {r["day"]: r for r in report["rows"]}
    if set(rows) != set(reference["rows"]):
        return False
    for key, theirs in [*reference["rows"].items(), ("TOTAL", reference["total"])]:
        ours = report["total"] if key == "TOTAL" else rows[key]
        if any(ours[f] != theirs[f] for f in fields) or abs(ours["cost_usd"] - theirs["cost_usd"]) > 1e-5:
            return False
    return True


def bench_report(root: Path, count: int, work: Path) -> list[Row]:
    """``report`` over ``count`` sessions: cold, warm and after appends to ten, beside the full-parse reference."""
    exe = str(Path(sys.executable).with_name("ctxscope"))
    # Bytecode as an installed ctxscope has it: written once here, before any timed run.
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env = {**base, "XDG_CACHE_HOME": str(work / "report-cache")}
    argv = [exe, "report", str(root), "--json", "--utc"]
    subprocess.run([sys.executable, "-c", "import tui.cli.report_command, engine.index.sqlite_index, "
                    "bench.usage_reference"], check=True, env=base)
    total = sum(p.stat().st_size for p in root.rglob("*.jsonl"))
    where = f"{count:,} sessions ({total / 1e6:,.0f} MB)"
    evict(root)
    cold = _timed(argv, env)
    warm = min((_timed(argv, env) for _ in range(3)), key=lambda r: r[0])
    sessions = sorted((root / "agents" / "main" / "sessions").iterdir())
    rng = random.Random(10)
    appended = []
    for round_ in range(3):
        for path in rng.sample(sessions, 10):
            with path.open("ab") as out:
                out.write(_chunk(work, 6_000, 1000 + round_, _leaf(path)))
        appended.append(_timed(argv, env))
    after = min(appended, key=lambda r: r[0])
    reference_argv = [sys.executable, "-m", "bench.usage_reference", str(root), "--by", "day"]
    full = _timed(reference_argv, base)
    equal = _totals_equal(orjson.loads(appended[-1][2]), orjson.loads(full[2]))  # the files as they are now
    baseline = f"full parse {full[0]:.2f} s (cpu {full[1]:.2f} s)"
    verdict = "totals equal the reference" if equal else "TOTALS DIFFER from the reference"
    return [
        Row(f"report over {where} ≤ 2 s cold", f"{cold[0]:.2f} s (cpu {cold[1]:.2f} s)", baseline,
            f"{full[0] / cold[0]:.1f}× faster", cold[0] <= 2.0),
        Row(f"report over {where} ≤ 0.3 s warm", f"{warm[0]:.2f} s (cpu {warm[1]:.2f} s)", baseline,
            f"{full[0] / warm[0]:.0f}× faster", warm[0] <= 0.3),
        Row(f"report over {where} after appends to 10 sessions ≤ 0.4 s", f"{after[0]:.2f} s (cpu {after[1]:.2f} s)",
            baseline, f"{full[0] / after[0]:.0f}× faster; {verdict}", after[0] <= 0.4 and equal),
    ]


def run(work: Path, *, sessions: int, quick: bool) -> list[Row]:
    (work / "big").mkdir()
    rows = bench_big_status(work / "big", size=20_000_000 if quick else BIG_BYTES, quick=quick)
    shutil.rmtree(work / "big")
    (work / "corpus").mkdir()
    root = distinct_corpus(work / "corpus", sessions)
    return rows + bench_report(root, sessions, work)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.report", description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--quick", action="store_true", help="a 20 MB session and 100 report sessions")
    args = parser.parse_args(argv)
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="ctxscope-bench-report-") as tmp:
        print_table(run(Path(tmp), sessions=100 if args.quick else args.sessions, quick=args.quick))
    return 0


if __name__ == "__main__":
    sys.exit(main())
