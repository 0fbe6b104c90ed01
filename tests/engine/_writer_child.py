"""A child process for the lock and append tests (run as a script, never imported by the engine).

    _writer_child.py hold <transcript>                  take the lock, print "ready", sleep until killed
    _writer_child.py append <transcript> <count> <tag>  print "ready", then append <count> batches (0: forever)

Each batch has 1-3 entries tagged ``{"writer": tag, "seq": n}``; some carry several KB of padding so that
batches cross page boundaries, where a SIGKILL can interrupt a ``write()``.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.fs.jsonl_append import append_entries
from engine.fs.session_lock import acquire_lock


def batch(tag: str, seq: int, rng: random.Random) -> list[dict[str, object]]:
    """Entries for one append: custom entries the tests can attribute to a writer."""
    size = rng.randint(1, 3)
    pad = "x" * rng.choice((0, 0, 40, 3000, 9000))
    return [
        {"type": "custom", "customType": "ctxscope.test", "data": {"writer": tag, "seq": seq, "part": part,
                                                                    "pad": pad}}
        for part in range(size)
    ]


def constant(entries: list[dict[str, object]]) -> Callable[[str | None], list[dict[str, object]]]:
    """A ``build`` callable that ignores the leaf and returns ``entries``."""
    return lambda _leaf: entries


def append_loop(transcript: Path, count: int, tag: str) -> None:
    """Append ``count`` batches as fast as the lock allows (forever when ``count`` is 0)."""
    rng = random.Random()
    seq = 0
    print("ready", flush=True)
    while count == 0 or seq < count:
        append_entries(transcript, constant(batch(tag, seq, rng)), lock_timeout=30.0, recent_write_seconds=0.0)
        seq += 1
    print("done", flush=True)


def hold(transcript: Path) -> None:
    """Hold the transcript's lock until killed."""
    with acquire_lock(transcript, timeout=5.0):
        print("ready", flush=True)
        while True:
            time.sleep(60)


def main(argv: list[str]) -> None:
    mode, transcript = argv[1], Path(argv[2])
    if mode == "hold":
        hold(transcript)
    elif mode == "append":
        append_loop(transcript, int(argv[3]), argv[4])
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main(sys.argv)
