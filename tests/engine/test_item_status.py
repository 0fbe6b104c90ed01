"""An open item stands until the transcript finishes it or it grows old."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from engine.accounting.context import build_context
from engine.compaction.item_status import completions, stale_reason
from engine.stores.transcript import read_transcript
from tests.engine._transcripts import assistant, user, write

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
WEEK = 7 * 86_400.0


def test_an_item_the_transcript_finishes_later_is_stale_and_says_so(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", [
        user("u1", None, "Please harden the invoice sync"),
        assistant("a1", "u1", "Plan:\nTODO: add a retry test for the timeout path\nTODO: document the backoff", 10),
        user("u2", "a1", "go on"),
        assistant("a2", "u2", "Done: added a retry test for the timeout path.", 20),
    ])
    reader = read_transcript(path)
    view = build_context(reader.entries, reader.by_id, reader.leaf)
    done = completions(view.messages, reader.read_object)
    assert done
    when = "2026-03-01T10:00:00Z"
    reason = stale_reason("add a retry test for the timeout path", when, done, NOW, WEEK)
    assert reason is not None and reason.startswith("done later:")
    assert stale_reason("document the backoff", when, done, NOW, WEEK) is None


def test_an_old_item_is_stale_by_age_and_a_recent_one_is_not() -> None:
    assert stale_reason("migrate the index", "2026-02-01T09:00:00Z", (), NOW, WEEK) == "29 days old"
    assert stale_reason("migrate the index", "2026-03-01T09:00:00Z", (), NOW, WEEK) is None
    assert stale_reason("migrate the index", "", (), NOW, WEEK) is None  # no time: never stale by age
