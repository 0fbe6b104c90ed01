"""Checkpoint benchmarks: rendered size on every fixture, and the cost of writing one (docs/checkpoints.md).

Run: ``python -m bench.checkpoints``.

* For every real transcript in ``tests/fixtures/openclaw``: capture, build and write a checkpoint, then render it
  for the agent; print the ``<checkpoint-data>`` token count (the budget: about 600–700) next to the
  size of the context it replaces.
* Write time: :func:`engine.checkpoints.store.write_checkpoint` (redaction, validation, YAML, two atomic
  renames, audit line) vs a baseline in the same run — ``json.dumps`` of the same checkpoint to a file with
  one atomic replace — and against the 5 ms target (docs/architecture.md, Targets).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from engine.agents.discovery import discover_sessions
from engine.checkpoints.render import render_checkpoint
from engine.checkpoints.store import latest_checkpoint, write_checkpoint
from engine.config.loader import Config
from engine.sidecar import ContextManager

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "openclaw"


def rendered_sizes(state_dir: Path) -> list[tuple[str, int | None, int, int]]:
    """``(fixture, context tokens, rendered tokens, decisions)`` for every live transcript fixture."""
    rows = []
    paths = sorted(p for p in FIXTURES.iterdir() if ".jsonl" in p.name and not p.name.endswith(".lock"))
    for path in paths:
        sources = discover_sessions([path]).sessions
        if not sources:
            continue
        manager = ContextManager(Config(state_dir=state_dir), auto_checkpoints=False)
        session = manager.add(sources[0])
        manager.step(session.key)
        event = manager.write(session.key, "manual")
        loaded = latest_checkpoint(state_dir, session.key)
        assert event.kind == "checkpoint" and loaded is not None, event.message
        rendered = render_checkpoint(loaded.checkpoint)
        snapshot = session.snapshot
        tokens = snapshot.tokens.tokens if snapshot else None
        rows.append((path.name[:64], tokens, rendered.tokens, len(loaded.checkpoint.decisions)))
    return rows


def write_times(state_dir: Path, runs: int = 200) -> tuple[float, float, float]:
    """Median ms of ``write_checkpoint``, its p95, and the median ms of the json baseline."""
    source = discover_sessions([FIXTURES / "badlogic__pi-mono__large-session.v1-legacy.jsonl"]).sessions[0]
    manager = ContextManager(Config(state_dir=state_dir / "prep"), auto_checkpoints=False)
    manager.add(source)
    manager.write(source.key, "manual")
    loaded = latest_checkpoint(state_dir / "prep", source.key)
    assert loaded is not None
    checkpoint = loaded.checkpoint
    engine_ms = []
    for _ in range(runs):
        start = time.perf_counter()
        write_checkpoint(state_dir / "bench", source.key, checkpoint)
        engine_ms.append((time.perf_counter() - start) * 1000)
    baseline_ms = []
    target = state_dir / "baseline.json"
    for i in range(runs):
        start = time.perf_counter()
        tmp = target.with_name(f".baseline.{i}.tmp")
        with tmp.open("w", encoding="utf-8") as handle:
            json.dump(checkpoint.to_dict(), handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
        baseline_ms.append((time.perf_counter() - start) * 1000)
    engine_ms.sort()
    return statistics.median(engine_ms), engine_ms[int(len(engine_ms) * 0.95)], statistics.median(baseline_ms)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="ctxscope-bench-cp-") as tmp:
        state_dir = Path(tmp)
        print("rendered checkpoint per fixture (target ≈600–700 tokens)")
        print(f"  {'fixture':<66}{'context':>10}{'rendered':>10}{'decisions':>11}")
        for name, context, rendered, decisions in rendered_sizes(state_dir / "sizes"):
            shown = "unknown" if context is None else f"{context:,}"
            print(f"  {name:<66}{shown:>10}{rendered:>10}{decisions:>11}")
        median, p95, baseline = write_times(state_dir)
        print(f"\ncheckpoint write: median {median:.2f} ms, p95 {p95:.2f} ms (target ≤ 5 ms); "
              f"baseline json.dump + fsync + rename {baseline:.2f} ms → {median / baseline:.1f}× the baseline")
    return 0


if __name__ == "__main__":
    sys.exit(main())
