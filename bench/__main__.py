"""Every performance target (docs/architecture.md, Targets) in one table: ``python -m bench [--quick]``.

Each row is measured in this run next to a baseline measured in the same run (see each module's docstring):

* ``bench.index``: full index vs orjson-every-line; first gauge vs full index; RSS vs keeping every line;
* ``bench.tui_latency``: append → engine snapshot and append → screen vs a full re-parse per refresh; idle CPU
  watching 50 sessions vs a 2-second re-read poll loop;
* ``bench.tui_actions``: open a session, open the compact dialog, re-plan, quit vs a fresh follower's read, the
  engine's plan cold and warm, a bare Textual app quitting;
* ``bench.checkpoints``: checkpoint write vs ``json.dump`` + fsync + rename;
* ``bench.compaction``: a deterministic plan for a 200k-token context vs pi's plain algorithm;
* ``bench.status``: ``status`` over 1,000 sessions vs ``status --full``;
* ``bench.metrics``: a ``watch --metrics`` scrape of 1,000 sessions vs a plain formatter; the exporter's CPU on an
  idle ``watch`` of 50 sessions vs the same ``watch`` without it.
* ``bench.report``: the persistent index — ``status`` on a 234 MB session vs orjson over every line, ``report``
  over 1,000 sessions vs the full-parse reference.

``--quick`` shrinks the sizes (20 MB / 0.1 GB sessions, 200 status and metrics sessions, fewer trials) for a smoke
run.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import sys
import tempfile
from pathlib import Path

from bench import checkpoints, compaction, index, metrics, report, status, tui_actions, tui_latency
from bench.table import Row, print_table


def _checkpoint_row(work: Path, runs: int) -> Row:
    median, p95, baseline = checkpoints.write_times(work, runs)
    return Row("checkpoint write ≤ 5 ms", f"median {median:.2f} ms, p95 {p95:.2f} ms",
               f"json.dump + fsync + rename {baseline:.2f} ms", f"{median / baseline:.1f}× the baseline",
               median <= 5.0)


def _compaction_row(work: Path, runs: int) -> Row:
    times = compaction.plan_times(work, runs)
    cold = times["cold_plan_ms"]
    return Row(f"compaction plan for a {times['tokens'] // 1000}k-token context ≤ 300 ms",
               f"{cold:.0f} ms cold, {times['warm_plan_ms']:.0f} ms with cached token counts",
               f"pi plain {times['pi_plain_ms']:.0f} ms; + tiktoken of every message {times['pi_counted_ms']:.0f} ms",
               f"{cold / times['pi_counted_ms']:.2f}× the counted baseline", cold <= 300)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes and fewer trials")
    parser.add_argument("--skip", action="append", default=[], choices=("index", "tui", "status", "checkpoints",
                                                                           "compaction", "metrics", "report"))
    args = parser.parse_args(argv)
    quick = args.quick
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
          f"Python {platform.python_version()}", file=sys.stderr)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="ctxscope-bench-all-") as tmp:
        work = Path(tmp)
        if "index" not in args.skip:
            (work / "index").mkdir()
            rows += index.run(20 if quick else 100, 0.1 if quick else 1.0, work / "index")
        if "tui" not in args.skip:
            (work / "tui").mkdir()
            rows += tui_latency.run(work / "tui", trials=10 if quick else 40, session_mb=2.0 if quick else 20.0,
                                    sessions=50, idle_seconds=5.0 if quick else 20.0,
                                    use_tmux=shutil.which("tmux") is not None)
            (work / "tui-actions").mkdir()
            rows += tui_actions.run(work / "tui-actions", trials=5 if quick else 15, session_mb=5.0 if quick else 20.0)
        if "checkpoints" not in args.skip:
            (work / "cp").mkdir()
            rows.append(_checkpoint_row(work / "cp", 50 if quick else 200))
        if "compaction" not in args.skip:
            (work / "compaction").mkdir()
            rows.append(_compaction_row(work / "compaction", 3 if quick else 9))
        if "status" not in args.skip:
            count = 200 if quick else 1000
            rows += status.bench_status(status.make_sessions(work / "status", count), count)
        if "metrics" not in args.skip:
            (work / "metrics").mkdir()
            rows += metrics.bench_scrape(work / "metrics", 200 if quick else 1000, 7 if quick else 21)
            rows.append(metrics.bench_idle(work / "metrics", 50, 15.0 if quick else 60.0, 15.0))
        if "report" not in args.skip:
            (work / "report").mkdir()
            rows += report.run(work / "report", sessions=200 if quick else 1000, quick=quick)
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
