"""The engine's lazy accounting agrees with pi's algorithm run plainly over fully parsed JSON."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import pi_reference
from engine.accounting.context import build_context
from engine.accounting.measure import measure_context
from engine.stores.transcript import read_transcript
from tests.conftest import ENDS_ON_COMPACTION, MAIN_SESSION, OPENCLAW

TRANSCRIPTS = sorted(
    p for p in OPENCLAW.iterdir() if ".jsonl" in p.name and not p.name.endswith((".lock", "sessions.json"))
)


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: p.name[:60])
def test_engine_matches_pi_reference(path: Path) -> None:
    reference = pi_reference.context_usage(path)
    reader = read_transcript(path)
    view = build_context(reader.entries, reader.by_id, reader.leaf)
    measured = measure_context(view, reader)

    assert len(reader.entries) == reference["entries"]
    assert measured.agent_estimate == reference["estimate"]
    assert (measured.tokens is None) == (reference["tokens"] is None)
    assert measured.agent_estimate_known == (reference["tokens"] is not None)
    if reader.parser.version >= 3:
        assert [m.entry_id for m in view.messages] == reference["message_ids"]
        assert (reader.leaf.id if reader.leaf else None) == reference["leaf"]
    else:
        assert len(view.messages) == len(reference["message_ids"])


def test_worked_example_from_formats_reference() -> None:
    # docs/context-accounting.md, Worked example: 119 entries, latest compaction 48392785 (firstKept 5093b100,
    # tokensBefore 14509), estimate 21,582 = the last usage.
    reader = read_transcript(MAIN_SESSION)
    view = build_context(reader.entries, reader.by_id, reader.leaf)
    measured = measure_context(view, reader)
    assert len([e for e in reader.entries if e.type != "session"]) == 119
    assert view.compaction is not None
    assert view.compaction.id == "48392785"
    assert view.compaction.first_kept_entry_id == "5093b100"
    assert view.compaction.tokens_before == 14509
    assert measured.tokens == 21_582
    assert measured.source == "usage"
    assert measured.agent_estimate == 21_582


def test_trailing_compaction_reports_unknown() -> None:
    reader = read_transcript(ENDS_ON_COMPACTION)
    view = build_context(reader.entries, reader.by_id, reader.leaf)
    measured = measure_context(view, reader)
    assert reader.leaf is not None and reader.leaf.type == "compaction"
    assert measured.tokens is None
    assert measured.source == "unknown-after-compaction"
    assert not measured.agent_estimate_known
