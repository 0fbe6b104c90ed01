"""``ctxscope status`` over many sessions, cold and warm (target: 1,000 sessions ≤ 3 s cold, ≤ 0.3 s warm).

Run: ``python -m bench.status [--sessions 1000]``.

The sessions are one generated OpenClaw-style transcript (~0.4 MB: 417 MB over 1,000 sessions) copied under
distinct names into an ``agents/main/sessions`` tree; the table names the total. "Cold" evicts every file
from the page cache first with ``posix_fadvise(DONTNEED)`` (no root needed) and starts without the persistent index
(a private ``XDG_CACHE_HOME``, emptied); "warm" runs again right after, with the index the cold run stored.
Each run is a fresh ``ctxscope status --json`` process, so interpreter start-up and imports are included, as a
user sees them. Baseline in the same run: ``status --full``, which indexes every line of every session (what tools that
re-parse transcripts on every refresh pay).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.table import Row, print_table
from sim.session_generator import generate_session_file


def make_sessions(root: Path, count: int) -> Path:
    """``count`` sessions under ``root/agents/main/sessions``; returns ``root``."""
    sessions = root / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    template = root / "template.jsonl"
    generate_session_file(template, target_bytes=200_000, seed=11)
    for i in range(count):
        shutil.copyfile(template, sessions / f"{i:08x}-0000-4000-8000-000000000000.jsonl")
    template.unlink()
    return root


def evict(root: Path) -> None:
    """Drop ``root``'s files from the page cache."""
    for directory, _, files in os.walk(root):
        for name in files:
            fd = os.open(os.path.join(directory, name), os.O_RDONLY)
            try:
                os.fsync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def _env(root: Path) -> dict[str, str]:
    # Bytecode as an installed ctxscope has it, and an index cache of this run's own.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "XDG_CACHE_HOME": str(root.parent / f"{root.name}-cache")}


def run_status(root: Path, *extra: str) -> float:
    """Seconds for one ``ctxscope status --json`` process."""
    exe = Path(sys.executable).with_name("ctxscope")
    start = time.perf_counter()
    subprocess.run([str(exe), "status", str(root), "--json", *extra], check=True, stdout=subprocess.DEVNULL,
                   env=_env(root))
    return time.perf_counter() - start


def bench_status(root: Path, count: int) -> list[Row]:
    """Cold and warm timings of the fast path and of the full-index baseline."""
    total = sum(p.stat().st_size for p in root.rglob("*.jsonl"))
    where = f"{count:,} sessions ({total / 1e6:,.0f} MB)"
    subprocess.run([sys.executable, "-c", "import tui.cli.read_commands, engine.session.glance"], check=True,
                   env=_env(root))
    shutil.rmtree(_env(root)["XDG_CACHE_HOME"], ignore_errors=True)
    evict(root)
    cold = run_status(root)
    warm = min(run_status(root) for _ in range(3))
    evict(root)
    cold_full = run_status(root, "--full")
    warm_full = min(run_status(root, "--full") for _ in range(2))
    return [
        Row(f"status over {where} ≤ 3 s cold", f"{cold:.2f} s", f"--full {cold_full:.2f} s",
            f"{cold_full / cold:.1f}× faster", cold <= 3.0),
        Row(f"status over {where} ≤ 0.3 s warm", f"{warm:.2f} s", f"--full {warm_full:.2f} s",
            f"{warm_full / warm:.1f}× faster", warm <= 0.3),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.status", description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=1000)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ctxscope-bench-status-") as tmp:
        root = make_sessions(Path(tmp), args.sessions)
        print_table(bench_status(root, args.sessions))
    return 0


if __name__ == "__main__":
    sys.exit(main())
