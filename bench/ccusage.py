"""``ctxscope report`` beside ccusage 20.0.24, on 1,000 sessions of each agent ccusage reads: pi, OpenClaw, Claude
Code and Codex (ccusage 20.0.24 reads all four: ``ccusage pi|openclaw|claude|codex daily``).

Run: ``python -m bench.ccusage [--sessions 1000] [--repeat 5] [--work DIR]``.

ccusage is installed from npm into the test cache (``tests/realagents/npm_cache.py``; node and npm on PATH). The
corpora are :mod:`sim.agent_corpus`'s, one directory per agent. In one run, for each agent, repeated
``--repeat`` times in turn: ``ccusage <agent> daily --json --offline -z UTC`` (its own pricing data, no network),
``ctxscope report --json --utc`` cold (its index cache removed before the run) and warm (the index written by the
run before). The files stay in the page cache for all three: the ratios compare work, not the disk. Each figure is
the median wall time of a fresh process.

Targets: cold ≤ 0.5× ccusage's time, warm ≤ 0.1×. The totals must be equal to the token (input, output, cache
reads, cache writes; cost to the micro-dollar is shown, not required); a difference is printed with its fields.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from bench.table import Row, print_table
from sim import agent_corpus

VERSION = "20.0.24"
_FIELDS = (("input_tokens", "inputTokens"), ("output_tokens", "outputTokens"),
           ("cache_read_tokens", "cacheReadTokens"), ("cache_write_tokens", "cacheCreationTokens"))


@dataclass(frozen=True)
class Agent:
    name: str
    """ccusage's subcommand."""
    label: str
    home: str
    """Where the corpus goes, under the work directory."""
    root: str
    """The directory ``ctxscope report`` is given, under ``home``."""
    write: Callable[[Path, int], Iterator[Path]]
    env: Callable[[Path], dict[str, str]]
    args: Callable[[Path], list[str]]


AGENTS = (
    Agent("pi", "pi", "pi/.pi/agent", "sessions", agent_corpus.write_pi, lambda h: {},
          lambda h: ["--pi-path", str(h / "sessions")]),
    Agent("openclaw", "OpenClaw", "openclaw/.openclaw", ".", agent_corpus.write_openclaw, lambda h: {},
          lambda h: ["--open-claw-path", str(h)]),
    Agent("claude", "Claude Code", "claude/.claude", "projects", agent_corpus.write_claude_code,
          lambda h: {"CLAUDE_CONFIG_DIR": str(h)}, lambda h: []),
    Agent("codex", "Codex", "codex/.codex", "sessions", agent_corpus.write_codex,
          lambda h: {"CODEX_HOME": str(h)}, lambda h: []),
)


def install_ccusage() -> Path:
    """The ccusage executable, installed once into the test cache."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.realagents.npm_cache import install

    return install("ccusage", VERSION, f"ccusage-{VERSION}") / "node_modules" / ".bin" / "ccusage"


_WRAPPER = "import re, sys\nfrom tui.cli.entry import main\nsys.argv[0] = 'ctxscope'\nsys.exit(main())"
"""What an installer's console-script wrapper ran, for a tree older than ``scripts/ctxscope``."""


def tree_command(tree: Path) -> list[str]:
    """The ``ctxscope`` command of a source tree (run with the tree first on ``PYTHONPATH``): its own
    ``scripts/ctxscope``, or, for a tree from before that script, what its console-script wrapper ran."""
    own = tree / "scripts" / "ctxscope"
    # -P: no working directory in front of the tree on sys.path (the bench runs in a checkout of its own).
    return [sys.executable, str(own)] if own.is_file() else [sys.executable, "-P", "-c", _WRAPPER]


def _timed(argv: list[str], env: dict[str, str]) -> tuple[float, bytes]:
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, env=env, check=False)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr.decode()[-2000:]}")
    return wall, proc.stdout


def _totals_differ(ours: dict[str, Any], theirs: dict[str, Any]) -> list[str]:
    found = [f"{mine} {ours[mine]:,} vs {other} {theirs.get(other, 0):,}" for mine, other in _FIELDS
             if ours[mine] != theirs.get(other, 0)]
    return found


def bench_agent(agent: Agent, work: Path, ccusage: Path, count: int, repeat: int,
                before: Path | None = None) -> list[Row]:
    home = work / agent.home
    if not home.exists():
        start = time.perf_counter()
        written = sum(1 for _ in agent.write(home, count))
        print(f"{agent.label}: wrote {written:,} sessions in {time.perf_counter() - start:.1f} s", file=sys.stderr)
        # A report does not keep its warm answer while a directory under its roots changed in the last 2 s (the
        # memo's racy-clean rule, docs/usage.md): timing right after writing measured warm runs that could not hit.
        time.sleep(2.1)
    size = sum(p.stat().st_size for p in home.rglob("*.jsonl"))
    sessions = sum(1 for _ in home.rglob("*.jsonl"))
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    cc_env = {**base, "HOME": str(home.parent), **agent.env(home), "NO_COLOR": "1"}
    cc_argv = [str(ccusage), agent.name, "daily", "--json", "--offline", "-z", "UTC", *agent.args(home)]
    report = ["report", str(home / agent.root), "--json", "--utc"]
    # This environment's ctxscope, and the tree given as --before (first on PYTHONPATH), in turn in each round.
    trees: list[tuple[str, dict[str, str], Path, list[str]]] = [
        ("", {**base, "XDG_CACHE_HOME": str(work / f"cache-{agent.name}")}, work / f"cache-{agent.name}",
         [str(Path(sys.executable).with_name("ctxscope")), *report])]
    if before is not None:
        cache = work / f"cache-{agent.name}-before"
        trees.insert(0, ("before: ", {**base, "XDG_CACHE_HOME": str(cache), "PYTHONPATH": str(before.resolve())},
                         cache, [*tree_command(before), *report]))
    theirs_t: list[float] = []
    ours_t: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name, _, _, _ in trees}
    theirs_out = ours_out = b""
    for _ in range(repeat):
        wall, theirs_out = _timed(cc_argv, cc_env)
        theirs_t.append(wall)
        for name, our_env, cache, our_argv in trees:
            shutil.rmtree(cache, ignore_errors=True)
            wall, ours_out = _timed(our_argv, our_env)
            ours_t[name][0].append(wall)
            wall, ours_out = _timed(our_argv, our_env)
            ours_t[name][1].append(wall)
    theirs_m = statistics.median(theirs_t)
    ours = orjson.loads(ours_out)
    theirs = orjson.loads(theirs_out)["totals"]
    differ = _totals_differ(ours["total"], theirs)
    cost_theirs = theirs.get("totalCost", theirs.get("costUSD", 0.0))
    where = f"{agent.label}, {sessions:,} sessions ({size / 1e6:,.0f} MB)"
    baseline = f"ccusage {theirs_m:.3f} s"
    tokens = (f"{ours['total']['calls']:,} calls, {ours['total']['total_tokens']:,} tokens, "
              f"cost ${ours['total']['cost_usd']:.6f} vs ${cost_theirs:.6f}")
    rows = []
    for name, (cold_t, warm_t) in ours_t.items():
        cold_m, warm_m = statistics.median(cold_t), statistics.median(warm_t)
        rows += [
            Row(f"{name}{where}: cold ≤ 0.5× ccusage", f"{cold_m:.3f} s", baseline, f"{cold_m / theirs_m:.2f}×",
                cold_m <= 0.5 * theirs_m),
            Row(f"{name}{where}: warm ≤ 0.1× ccusage", f"{warm_m:.3f} s", baseline, f"{warm_m / theirs_m:.3f}×",
                warm_m <= 0.1 * theirs_m),
        ]
    rows.append(Row(f"{where}: totals equal to the token", "equal" if not differ else "; ".join(differ), tokens,
                    "-", not differ))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ccusage", description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=1000, help="sessions per agent (default 1000)")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each command (median; default 5)")
    parser.add_argument("--agents", default="pi,openclaw,claude,codex", help="ccusage names, comma-separated")
    parser.add_argument("--work", type=Path, help="keep the corpora here and reuse them (default: a temp dir)")
    parser.add_argument("--before", type=Path, help="also time this source tree's report, in turn in each round "
                        "(first on PYTHONPATH: an older checkout, for a same-run before and after)")
    args = parser.parse_args(argv)
    ccusage = install_ccusage()
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, ccusage {VERSION}", file=sys.stderr)
    chosen = [a for a in AGENTS if a.name in args.agents.split(",")]
    # Bytecode as an installed ctxscope has it: written once here, before any timed run.
    for tree in ([args.before] if args.before is not None else []) + [None]:
        env = ({**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
                "PYTHONPATH": str(tree.resolve())} if tree is not None else None)
        subprocess.run([sys.executable, "-c", "import tui.cli.report_command, engine.usage.agent_usage"], check=True,
                       env=env, cwd=tree)
    with tempfile.TemporaryDirectory(prefix="ctxscope-bench-ccusage-") as tmp:
        work = args.work or Path(tmp)
        rows = [row for agent in chosen
                for row in bench_agent(agent, work, ccusage, args.sessions, args.repeat, args.before)]
    print_table(rows)
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
