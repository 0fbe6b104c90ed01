"""A child process playing the agent: appends conversation turns under the lock (run as a script).

    _message_writer.py <transcript> <count> <tag> [<allowance-file>]
        print "ready", append <count> turns (0: forever), print "done <turns>"

With an allowance file the writer is paced by its reader instead of the clock: it appends while it has written
fewer turns than the number in the file, waits when it has caught up, and stops when the file says ``stop``.

Each turn is one batch: a user message, an assistant message with usage and a tool call, its tool result
(a few KB, so batches cross page boundaries) and a closing assistant message, tagged ``<tag>-<n>``.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.fs.jsonl_append import append_entries


def turn(tag: str, n: int, rng: random.Random) -> list[dict[str, Any]]:
    """One conversation turn (ids/parents/timestamps are set by the writer)."""
    usage = {"input": 1000 + n, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1010 + n,
             "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}

    def assistant(text: str, tool: bool) -> dict[str, Any]:
        content: list[dict[str, Any]] = [{"type": "text", "text": text}]
        if tool:
            content.append({"type": "toolCall", "id": f"call-{tag}-{n}", "name": "read",
                            "arguments": {"path": f"src/{tag}/{n}.py"}})
        return {"type": "message", "message": {"role": "assistant", "content": content, "api": "anthropic-messages",
                                               "provider": "anthropic", "model": "claude-sonnet-4-5", "usage": usage,
                                               "stopReason": "toolUse" if tool else "stop", "timestamp": 2}}

    output = " ".join(f"line_{n}_{i}" for i in range(rng.choice((50, 400, 1200))))
    return [
        {"type": "message", "message": {"role": "user", "content": f"{tag}-{n}: next step please", "timestamp": 1}},
        assistant(f"{tag}-{n}: reading", True),
        {"type": "message", "message": {"role": "toolResult", "toolCallId": f"call-{tag}-{n}", "toolName": "read",
                                        "content": [{"type": "text", "text": output}], "isError": False,
                                        "timestamp": 3}},
        assistant(f"{tag}-{n}: done", False),
    ]


def main(argv: list[str]) -> None:
    transcript, count, tag = Path(argv[1]), int(argv[2]), argv[3]
    allowance = Path(argv[4]) if len(argv) > 4 else None
    rng = random.Random()
    print("ready", flush=True)
    n = 0
    while count == 0 or n < count:
        if allowance is not None:
            granted = allowance.read_text().strip()
            if granted == "stop":
                break
            if n >= int(granted):
                time.sleep(0.005)
                continue
        batch = turn(tag, n, rng)
        append_entries(transcript, lambda _leaf, batch=batch: batch, lock_timeout=30.0, recent_write_seconds=0.0)
        n += 1
    print(f"done {n}", flush=True)


if __name__ == "__main__":
    main(sys.argv)
