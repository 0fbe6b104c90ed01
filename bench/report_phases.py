"""CPU time of each phase of a cold ``ctxscope report``, for one or more source trees (docs/usage.md, Speed).

Run: ``python -m bench.ccusage --work DIR`` once (it writes the corpora), then
``python -m bench.report_phases --work DIR --tree OLD --tree NEW [--runs 9] [--agents claude,codex]``.

Each run is a fresh interpreter with ``PYTHONPATH`` set to one tree and an empty cache, timing with
``time.process_time`` the phases a report goes through: the imports of the command line and the engine (the
agents' readers left to the phase that reads), building and parsing the command line, loading the config and
taking the memo's listing, discovery, reading every session (with the index writes), aggregation and the JSON
text. The figure is the median of ``--runs`` per phase. The same tree's bytecode is written first, as an installed
ctxscope has it, whatever ``PYTHONDONTWRITEBYTECODE`` says. Trees of different ages are compared as they are:
a phase a tree does not have (an older ``build_parser`` takes no command) is timed the way that tree does it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.ccusage import AGENTS

_CHILD = r"""
import json, resource, sys, time
root = sys.argv[1]
marks = [time.process_time()]
import tui.cli.entry, tui.cli.report_memo, tui.cli.main as cli, tui.cli.report_command as rc
from engine import aggregate_usage, collect_usage, discover_sessions
from pathlib import Path
from datetime import UTC
marks.append(time.process_time())
argv = ["report", root, "--json", "--utc"]
import inspect
one = "command" in inspect.signature(cli.build_parser).parameters
(cli.build_parser("report") if one else cli.build_parser()).parse_args(argv)
marks.append(time.process_time())
cli.load_config(None)
cache = rc.stderr_cache()
# A tree whose discovery takes the listing's walk is timed that way (as its report runs).
walk = ({}, {}) if "walk" in inspect.signature(tui.cli.report_memo.take_listing).parameters else None
tui.cli.report_memo.take_listing([root], (str(rc._config_file()),), *([walk] if walk is not None else []))
marks.append(time.process_time())
found = discover_sessions([Path(root)], **({"walked": walk} if walk is not None else {}))
marks.append(time.process_time())
split = {"split_at": rc._split_at()} if hasattr(rc, "_split_at") else {}  # as the command line reads
before, wall = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
with cache.batch():
    usages, problems = collect_usage(found, cache, **split)
marks.append(time.process_time())
after, wall = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter() - wall
result = aggregate_usage(usages, "day", tz=UTC)
marks.append(time.process_time())
rc.json_text(result.to_dict())
marks.append(time.process_time())
worker = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
print(json.dumps([b - a for a, b in zip(marks, marks[1:])] + [worker, wall]))
"""
PHASES = ("imports (command line, engine)", "build and parse the command line", "config, cache, memo listing",
          "discovery", "reading (with the index writes)", "aggregation", "JSON text")
EXTRA = ("reading: the worker's CPU", "reading: wall time")
"""Beside the phases (not in their total): the CPU of the worker that reads a share of the sessions in a second
process (docs/usage.md, Speed; 0 for a tree that reads in one), and the reading phase's wall time, which is what
sharing it over two cores saves — when the machine has a second core free."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.report_phases", description=__doc__.split("\n")[0])
    parser.add_argument("--work", type=Path, required=True, help="the corpora written by python -m bench.ccusage")
    parser.add_argument("--tree", type=Path, action="append", required=True, help="a source tree (repeatable)")
    parser.add_argument("--runs", type=int, default=9, help="runs per tree and agent (median; default 9)")
    parser.add_argument("--agents", default="pi,openclaw,claude,codex", help="ccusage names, comma-separated")
    args = parser.parse_args(argv)
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for agent in (a for a in AGENTS if a.name in args.agents.split(",")):
        root = args.work / agent.home / agent.root
        if not root.exists():
            parser.error(f"{root} is missing: run python -m bench.ccusage --work {args.work} first")
        table: dict[str, list[float]] = {}
        for tree in args.tree:
            found: list[list[float]] = []
            for run in range(args.runs + 1):  # the first run writes the tree's bytecode and is not counted
                with tempfile.TemporaryDirectory(prefix="ctxscope-bench-phases-") as tmp:
                    env = {**base, "PYTHONPATH": str(tree.resolve()), "XDG_CACHE_HOME": tmp,
                           "XDG_CONFIG_HOME": str(Path(tmp) / "config")}
                    # Run from the temp dir: ``python -c`` puts the working directory first on the path, and a
                    # checkout there would be imported instead of the tree.
                    out = subprocess.run([sys.executable, "-c", _CHILD, str(root)], env=env, cwd=tmp,
                                         capture_output=True, text=True, check=True).stdout
                if run:
                    found.append(json.loads(out.splitlines()[-1]))
            table[str(tree)] = [statistics.median(r[i] if i < len(r) else 0.0 for r in found) * 1e3
                                for i in range(len(PHASES) + len(EXTRA))]
        print(f"\n{agent.label}: CPU ms per phase of a cold report, median of {args.runs}")
        print(f"{'phase':34s}" + "".join(f"  {Path(t).name[-14:]:>14s}" for t in table))
        for i, phase in enumerate(PHASES):
            print(f"{phase:34s}" + "".join(f"  {row[i]:14.1f}" for row in table.values()))
        print(f"{'total':34s}" + "".join(f"  {sum(row[:len(PHASES)]):14.1f}" for row in table.values()))
        for i, extra in enumerate(EXTRA, len(PHASES)):
            print(f"{extra:34s}" + "".join(f"  {row[i]:14.1f}" for row in table.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
