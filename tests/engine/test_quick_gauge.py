"""The tail-first gauge agrees with the full read on every fixture and on built files."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.accounting.context import build_context
from engine.accounting.measure import measure_context
from engine.session.quick_gauge import quick_context_tokens
from engine.stores.transcript import read_transcript
from tests.engine._transcripts import assistant, compaction, tool_result, user, write
from tests.engine.test_pi_agreement import TRANSCRIPTS


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: p.name[:60])
def test_quick_gauge_equals_full_read(path: Path) -> None:
    reader = read_transcript(path)
    view = build_context(reader.entries, reader.by_id, reader.leaf)
    full = measure_context(view, reader)
    quick = quick_context_tokens(path)
    assert quick.tokens == full.tokens
    if reader.parser.version >= 3:  # v1 ids are line-based in the full read; the tail scan cannot know lines
        assert quick.usage_entry_id == full.usage_entry_id
    assert quick.trailing_messages == full.trailing_messages


def test_quick_gauge_follows_the_branch_and_reads_only_the_tail(tmp_path: Path) -> None:
    history = [user("u0", None, "start"), assistant("a0", "u0", "ok", 10)]
    parent = "a0"
    for i in range(200):
        history += [user(f"u{i + 1}", parent, "more"), tool_result(f"r{i + 1}", f"u{i + 1}", "x" * 5000)]
        parent = f"r{i + 1}"
    history += [
        assistant("long", parent, "long branch", 99_000),
        assistant("a-short", "a0", "the branch the user came back to", 777),  # leaf is not on the longest path
        user("tail", "a-short", "trailing question"),
    ]
    path = write(tmp_path / "b.jsonl", history)
    quick = quick_context_tokens(path)
    assert quick.leaf_id == "tail" and quick.usage_entry_id == "a-short"
    assert quick.tokens is not None and quick.tokens > 777
    assert quick.bytes_scanned < 2_000  # stopped at the usage two lines from the end


def test_quick_gauge_unknown_after_compaction(tmp_path: Path) -> None:
    path = write(tmp_path / "c.jsonl", [user("u1", None, "q"), assistant("a1", "u1", "a", 500),
                                         compaction("k1", "a1", "u1"), user("u2", "k1", "after")])
    quick = quick_context_tokens(path)
    assert quick.tokens is None and quick.source == "unknown-after-compaction"


def test_partial_last_line_is_ignored(tmp_path: Path) -> None:
    path = write(tmp_path / "p.jsonl", [user("u1", None, "q"), assistant("a1", "u1", "a", 500)])
    with path.open("ab") as handle:
        handle.write(b'{"type":"message","id":"half')
    assert quick_context_tokens(path).tokens == 500
