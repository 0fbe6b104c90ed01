"""CPU time of a cold and a warm ``ctxscope report`` for two source trees, interleaved in the same minutes, on the
corpora :mod:`bench.ccusage` writes (docs/usage.md, Speed).

Run: ``python -m bench.ccusage --work DIR`` once (it writes the corpora), then
``python -m bench.report_cpu --work DIR --before /path/to/older/checkout [--after .] [--runs 9]``.

Each run starts the tree's own ``scripts/ctxscope`` (what the install puts on ``PATH``) with ``PYTHONPATH`` set to
that tree, so its ``tui`` and ``engine`` are the ones imported; a tree older than that script runs as the console-
script wrapper an installer wrote for it (``import re``, then the entry point). Both trees' bytecode is written
before any timed run, as an installed ctxscope has it (a pycache prefix instead slowed every start-up here). The
figure is the child's user + system time (``getrusage``), median of ``--runs``: on a machine shared with other work a
process's CPU time moves much less than its wall time. The ratio is after / before. The floor every run pays comes
first: Python's start-up (``python -S -c pass``, ``python -c pass``) and ``import re``, which a console-script
wrapper does before ctxscope's code runs (the installed command has not been one since 2026-11-28).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.ccusage import AGENTS, tree_command
from bench.table import Row, print_table

_IMPORTS = ("import tui.cli.main, tui.cli.report_command, engine.agents.discovery, engine.usage.collect, "
            "engine.usage.agent_usage, engine.usage.aggregate, engine.agents.claude_code.reader, "
            "engine.agents.codex.reader, engine.index.transcript_index, engine.stores.transcript")
"""What a report imports, readers included (each is imported only when a file of its agent is read)."""


def _run(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.report_cpu", description=__doc__.split("\n")[0])
    parser.add_argument("--work", type=Path, required=True, help="the corpora written by python -m bench.ccusage")
    parser.add_argument("--before", type=Path, required=True, help="the older source tree")
    parser.add_argument("--after", type=Path, default=Path(__file__).resolve().parents[1], help="the newer one")
    parser.add_argument("--runs", type=int, default=9, help="runs of each (median; default 9)")
    parser.add_argument("--agents", default="pi,openclaw,claude,codex", help="ccusage names, comma-separated")
    args = parser.parse_args(argv)
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    # Bytecode written as an installed ctxscope has it, whatever this shell says: with PYTHONDONTWRITEBYTECODE
    # set, a tree without __pycache__ compiled every module on every run (+35 ms of CPU, seen here).
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for tree in trees.values():
        subprocess.run([sys.executable, "-c", _IMPORTS], env={**base, "PYTHONPATH": str(tree)}, check=True)
    # The bytecode just written changed the code's directories: a report whose listing changed in the last two
    # seconds keeps no invocation record (tui/cli/report_memo.py), and every warm run would miss it.
    time.sleep(2.5)
    floors = {"python -S -c pass": ["-S", "-c", "pass"], "python -c pass": ["-c", "pass"],
              "python -c 'import re' (a console-script wrapper's first line)": ["-c", "import re"]}
    rows: list[Row] = []
    for label, flags in floors.items():
        spent = statistics.median(_run([sys.executable, *flags], dict(base))[1] for _ in range(args.runs * 2))
        rows.append(Row(f"floor: {label}, CPU", f"{spent * 1e3:.1f} ms", "-", "-", None))
    with tempfile.TemporaryDirectory(prefix="ctxscope-bench-cpu-") as tmp:
        for agent in (a for a in AGENTS if a.name in args.agents.split(",")):
            root = args.work / agent.home / agent.root
            if not root.exists():
                parser.error(f"{root} is missing: run python -m bench.ccusage --work {args.work} first")
            found: dict[tuple[str, str], list[float]] = {}
            for _ in range(args.runs):
                for arm, tree in trees.items():
                    cache = Path(tmp) / f"cache-{arm}-{agent.name}"
                    env = {**base, "PYTHONPATH": str(tree), "XDG_CACHE_HOME": str(cache)}
                    command = [*tree_command(tree), "report", str(root), "--json", "--utc"]
                    shutil.rmtree(cache, ignore_errors=True)
                    found.setdefault((arm, "cold"), []).append(_run(command, env)[1])
                    found.setdefault((arm, "warm"), []).append(_run(command, env)[1])
            for kind in ("cold", "warm"):
                before, after = (statistics.median(found[(arm, kind)]) for arm in trees)
                rows.append(Row(f"{agent.label}: {kind} report, CPU", f"{after * 1e3:.1f} ms",
                                f"before {before * 1e3:.1f} ms", f"{after / before:.2f}×", None))
    print(f"before: {trees['before']}\nafter:  {trees['after']}", file=sys.stderr)
    print_table(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
