"""A child process for the SIGKILL trials (run as a script, killed at random points).

    _compaction_child.py compact <transcript> <state_dir>   print "ready", then forever: append an agent turn,
                                                             compact (summarize and drop-only in turn), print
                                                             "compacted" after each applied compaction
    _compaction_child.py archive <file> <record>...          print "ready", then forever: append the given
                                                             pre-rendered records (files) in turn
"""

from __future__ import annotations

import contextlib
import itertools
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.agents.discovery import discover_sessions
from engine.compaction.archive import ArchivedMessage, append_archive_record, render_archive_record
from engine.compaction.controllers import CompactionRefusedError, apply_compaction
from engine.compaction.planner import plan_compaction
from engine.fs.jsonl_append import append_entries
from engine.session.snapshot import SessionFollower
from tests.engine._message_writer import turn


def archive_record(n: int, rng: random.Random) -> bytes:
    """A record of up to 6 MB, so its single write spans a thousand pages and takes milliseconds."""
    messages = [
        ArchivedMessage("toolResult", f"e{n}-{i}", None, f"record {n} part {i} " + "z" * rng.randint(1, 3 << 19))
        for i in range(rng.randint(1, 4))
    ]
    return render_archive_record(f"rec-{n}", messages, session_key="k", created_at="2026-03-01T00:00:00Z",
                                 first_kept_entry_id=None)


def compact_forever(transcript: Path, state_dir: Path) -> None:
    source = discover_sessions([transcript]).sessions[0]
    follower = SessionFollower(source)
    rng = random.Random()
    print("ready", flush=True)
    for n in itertools.count():
        append_entries(transcript, lambda _leaf, n=n: turn("kid", n, rng), recent_write_seconds=0.0)
        snapshot = follower.refresh()
        layer = "drop-only" if n % 2 else "summarize"
        plan = plan_compaction(snapshot, layer, keep_recent=200, load=follower.reader.read_object,
                               state_dir=state_dir, token_cache=follower.token_cache)
        if plan.applicable:
            with contextlib.suppress(CompactionRefusedError):
                apply_compaction(plan, follower=follower, state_dir=state_dir, lock_timeout=30.0)
                print("compacted", flush=True)


def archive_forever(path: Path, sources: list[Path]) -> None:
    records = [source.read_bytes() for source in sources]  # rendered by the test: the loop is all writing
    print("ready", flush=True)
    for record in itertools.cycle(records):
        append_archive_record(path, record)


if __name__ == "__main__":
    if sys.argv[1] == "compact":
        compact_forever(Path(sys.argv[2]), Path(sys.argv[3]))
    elif sys.argv[1] == "archive":
        archive_forever(Path(sys.argv[2]), [Path(arg) for arg in sys.argv[3:]])
    else:
        raise SystemExit(f"unknown mode {sys.argv[1]!r}")
