"""A child process playing a writer that ignores OpenClaw's lock (run as a script).

    _unlocked_writer.py <transcript> <mode> <stop-file> <count-file>

``split``: each line is written in two ``write()`` calls with a pause between (a writer mid-line most of the
time). ``big``: each line is one ``write()`` of about 1.2 MB every 0.3–1 s, 24 lines in all, then nothing (megabytes
land between a read of the leaf and a slow write). Every line chains to the last entry in the file. It stops when the
stop file appears and writes how many lines it wrote.
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path

import orjson

_BIG_LINES = 24


def _last_id(fd: int) -> str | None:
    size = os.fstat(fd).st_size
    tail = os.pread(fd, min(size, 4 << 20), max(0, size - (4 << 20)))
    for raw in reversed(tail.split(b"\n")[1:] if size > len(tail) else tail.split(b"\n")):
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(obj, dict) and isinstance(obj.get("id"), str) and obj.get("type") != "session":
            return str(obj["id"])
    return None


def main(argv: list[str]) -> None:
    transcript, mode, stop, count_file = Path(argv[1]), argv[2], Path(argv[3]), Path(argv[4])
    rng = random.Random(7)
    fd = os.open(transcript, os.O_RDWR | os.O_APPEND)
    print("ready", flush=True)
    n = 0
    while not stop.exists():
        if mode == "big" and n >= _BIG_LINES:
            time.sleep(0.05)
            continue
        # One run of 1.2 MB for ``big`` (counted by the chars/4 rule, so planning stays quick), prose for ``split``.
        text = f"writer line {n}: " + ("x" * 1_200_000 if mode == "big" else "tool output " * 40)
        entry = {"type": "message", "id": f"w{n:07d}", "parentId": _last_id(fd),
                 "timestamp": "2026-03-01T10:00:00.000Z", "message": {"role": "user", "content": text, "timestamp": 1}}
        data = orjson.dumps(entry) + b"\n"
        if mode == "split":
            cut = rng.randrange(1, len(data) - 1)
            os.write(fd, data[:cut])
            time.sleep(rng.uniform(0.002, 0.02))
            os.write(fd, data[cut:])
            time.sleep(rng.uniform(0.0, 0.01))
        else:
            os.write(fd, data)
            time.sleep(rng.uniform(0.3, 1.0))
        n += 1
    os.close(fd)
    count_file.write_text(str(n))


if __name__ == "__main__":
    main(sys.argv)
