"""A child process for the index cache tests (run as a script, never imported by the engine).

    _index_child.py write <transcript> <batches>  print "ready", then per line read on stdin append a batch of 100
                                                  lines, some in two writes so that a reader sees partial lines
    _index_child.py index <transcript> <cache>    print "ready", then forever: append one line and index it (so
                                                  every round writes the cache file anew)
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import orjson

from engine.index.cache import IndexCache
from engine.index.transcript_index import index_transcript


def entry(n: int, rng: random.Random) -> bytes:
    """An assistant line with usage, or now and then a compaction, with some padding."""
    stamp = f"2026-03-01T10:{n // 60 % 60:02d}:{n % 60:02d}.000Z"
    if n % 17 == 5:
        obj: dict[str, object] = {"type": "compaction", "id": f"c{n}", "parentId": None, "timestamp": stamp,
                                  "summary": "s" * rng.choice((10, 3000)), "firstKeptEntryId": "x",
                                  "tokensBefore": n}
    else:
        obj = {"type": "message", "id": f"a{n}", "parentId": None, "timestamp": stamp,
               "message": {"role": "assistant", "content": [{"type": "text", "text": "y" * rng.choice((5, 5000))}],
                           "provider": "anthropic", "model": "claude-sonnet-4-5",
                           "usage": {"input": n, "output": 1, "cacheRead": 2 * n, "cacheWrite": 3,
                                     "totalTokens": 3 * n + 4}, "stopReason": "stop"}}
    return orjson.dumps(obj) + b"\n"


def write(path: Path, batches: int) -> None:
    rng = random.Random()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    print("ready", flush=True)
    n = 0
    for _ in range(batches):
        if not sys.stdin.readline():  # the test says go; the batch is written while it reads the file
            break
        for _ in range(100):
            data = entry(n, rng)
            cut = rng.randrange(1, len(data)) if rng.random() < 0.5 else len(data)
            os.write(fd, data[:cut])
            if cut < len(data):
                os.write(fd, data[cut:])
            n += 1
    os.close(fd)
    print("done", flush=True)


def index_forever(path: Path, cache_dir: Path) -> None:
    rng = random.Random()
    cache = IndexCache(cache_dir)
    print("ready", flush=True)
    n = 0
    while True:
        with path.open("ab") as out:
            out.write(entry(n, rng))
        index_transcript(path, cache, calls=n % 2 == 0)
        n += 1


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(Path(sys.argv[2]), int(sys.argv[3]))
    else:
        index_forever(Path(sys.argv[2]), Path(sys.argv[3]))
