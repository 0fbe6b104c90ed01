"""The utilization-over-turns series (engine/accounting/timeline.py) on real transcripts and on hand-built entries."""

from __future__ import annotations

from itertools import pairwise

from engine.accounting.timeline import Timeline, TimelineSample, plot_columns, utilization_timeline
from engine.agents.discovery import discover_sessions
from engine.session.snapshot import snapshot_session
from engine.stores.entries import Entry, Usage
from tests.conftest import ENDS_ON_COMPACTION, MAIN_SESSION


def _entry(i: int, kind: str = "message", *, role: str | None = None, usage: int | None = None,
           stop: str | None = None, provider: str | None = None, before: int | None = None) -> Entry:
    return Entry(
        line_no=i, offset=i * 100, length=99, type=kind, id=f"e{i}", parent_id=f"e{i - 1}" if i else None,
        timestamp=f"2026-01-01T00:00:{i:02d}Z", role=role,
        usage=Usage(usage, 0, 0, 0, 0) if usage is not None else None, stop_reason=stop, provider=provider,
        tokens_before=before,
    )


def test_one_sample_per_valid_usage_and_compaction_in_path_order() -> None:
    path = (
        _entry(0, role="user"),
        _entry(1, role="assistant", usage=1000),
        _entry(2, role="assistant", usage=0),  # all-zero: not authoritative
        _entry(3, role="assistant", usage=5000, stop="aborted"),
        _entry(4, role="assistant", usage=7000, provider="openclaw"),  # synthetic mirror
        _entry(5, "compaction", before=1500),
        _entry(6, role="assistant", usage=400),
    )
    timeline = utilization_timeline(path, 2000)
    assert [(s.kind, s.entry_id, s.tokens) for s in timeline.samples] == [
        ("usage", "e1", 1000), ("compaction", "e5", 1500), ("usage", "e6", 400),
    ]
    assert [s.utilization for s in timeline.samples] == [0.5, 0.75, 0.2]
    assert (timeline.turns, timeline.compactions, timeline.peak) == (2, 1, 0.5)


def test_unknown_tokens_before_and_zero_window_give_no_fraction() -> None:
    timeline = utilization_timeline((_entry(0, "compaction"), _entry(1, role="assistant", usage=10)), 0)
    assert [s.utilization for s in timeline.samples] == [None, None]
    assert timeline.peak is None


def test_real_session_with_compactions_matches_its_snapshot() -> None:
    snapshot = snapshot_session(discover_sessions([MAIN_SESSION]).sessions[0])
    timeline = utilization_timeline(snapshot.view.path, snapshot.window.tokens)
    assert timeline.compactions == snapshot.view.compactions_on_path == 3
    last_usage = [s for s in timeline.samples if s.kind == "usage"][-1]
    assert last_usage.entry_id == snapshot.tokens.usage_entry_id
    assert last_usage.tokens == snapshot.tokens.usage_tokens


def test_session_ending_on_compaction_ends_with_a_compaction_sample() -> None:
    snapshot = snapshot_session(discover_sessions([ENDS_ON_COMPACTION]).sessions[0])
    timeline = utilization_timeline(snapshot.view.path, snapshot.window.tokens)
    assert snapshot.tokens.tokens is None
    assert timeline.samples[-1].kind == "compaction"


def _timeline(*values: float | None) -> Timeline:
    samples = tuple(
        TimelineSample("compaction", None, None, None, None) if v is None
        else TimelineSample("usage", None, round(v * 100), v, None)
        for v in values
    )
    return Timeline(samples, 100)


def test_columns_are_samples_when_they_fit() -> None:
    columns = plot_columns(_timeline(0.1, None, 0.3), 10)
    assert [(c.utilization, c.compaction, c.first, c.last) for c in columns] == [
        (0.1, False, 0, 0), (None, True, 1, 1), (0.3, False, 2, 2),
    ]


def test_columns_keep_peaks_and_every_compaction_when_squeezed() -> None:
    values = [0.1, 0.9, 0.2, None, 0.3, 0.4, 0.5, None, 0.6]
    columns = plot_columns(_timeline(*values), 4)
    assert len(columns) == 4
    assert columns[0].first == 0 and columns[-1].last == len(values) - 1
    assert all(b.first == a.last + 1 for a, b in pairwise(columns))
    assert max(c.utilization or 0 for c in columns) == 0.9
    assert sum(c.compaction for c in columns) == 2


def test_no_columns_for_empty_timeline_or_width() -> None:
    assert plot_columns(_timeline(), 10) == ()
    assert plot_columns(_timeline(0.5), 0) == ()
