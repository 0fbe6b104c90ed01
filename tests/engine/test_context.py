"""pi's context builder, cut points and token accounting on built and real transcripts."""

from __future__ import annotations

import math
from pathlib import Path

from engine.accounting.context import build_context, find_cut_point
from engine.accounting.gauge import read_gauge
from engine.accounting.measure import measure_context
from engine.accounting.tokens import count_tokens, get_counter
from engine.accounting.windows import ContextWindow, resolve_context_window
from engine.stores.transcript import read_transcript
from tests.engine._transcripts import assistant, compaction, tool_result, user, write


def _measure(path: Path):
    reader = read_transcript(path)
    view = build_context(reader.entries, reader.by_id, reader.leaf)
    return reader, view, measure_context(view, reader)


def test_branch_leaf_is_last_line_not_longest_path(tmp_path: Path) -> None:
    # u1 → a1 → u2 → a2 → u3 is the long branch; the user went back to a1 and appended b1 (the new leaf).
    entries = [
        user("u1", None, "start"), assistant("a1", "u1", "ok", 100),
        user("u2", "a1", "long branch"), assistant("a2", "u2", "more", 5000), user("u3", "a2", "even more"),
        user("b1", "a1", "short branch"),
    ]
    reader, view, measured = _measure(write(tmp_path / "b.jsonl", entries))
    assert reader.leaf is not None and reader.leaf.id == "b1"
    assert [e.id for e in view.path] == ["u1", "a1", "b1"]
    assert measured.usage_entry_id == "a1"
    assert measured.tokens == 100 + count_tokens("short branch")
    assert measured.agent_estimate == 100 + math.ceil(len("short branch") / 4)


def test_compaction_keeps_entries_from_first_kept_id(tmp_path: Path) -> None:
    entries = [
        user("u1", None, "old question"), assistant("a1", "u1", "old answer", 900),
        user("u2", "a1", "kept question"), assistant("a2", "u2", "kept answer", 1200),
        compaction("k1", "a2", "u2"),
        user("u3", "k1", "after"), assistant("a3", "u3", "fresh", 700),
    ]
    _, view, measured = _measure(write(tmp_path / "c.jsonl", entries))
    assert [m.entry_id for m in view.messages] == ["compaction:k1", "u2", "a2", "u3", "a3"]
    assert measured.tokens == 700 and measured.source == "usage"


def test_missing_first_kept_id_keeps_nothing_before_the_compaction(tmp_path: Path) -> None:
    entries = [user("u1", None, "q"), assistant("a1", "u1", "a", 50), compaction("k1", "a1", "nope")]
    _, view, measured = _measure(write(tmp_path / "m.jsonl", entries))
    assert [m.entry_id for m in view.messages] == ["compaction:k1"]
    assert not view.kept_entry_found
    assert measured.tokens is None


def test_usage_before_latest_compaction_is_unknown_even_with_later_messages(tmp_path: Path) -> None:
    entries = [
        user("u1", None, "q"), assistant("a1", "u1", "a", 5000), compaction("k1", "a1", "u1"),
        user("u2", "k1", "next question"),
    ]
    _, _, measured = _measure(write(tmp_path / "u.jsonl", entries))
    assert measured.tokens is None and measured.source == "unknown-after-compaction"


def test_invalid_usages_are_skipped_for_the_authoritative_count(tmp_path: Path) -> None:
    entries = [
        user("u1", None, "q"), assistant("a1", "u1", "real", 4000),
        user("u2", "a1", "again"), assistant("a2", "u2", "failed", 0, stop="error"),
        assistant("a3", "a2", "aborted", 9999, stop="aborted"),
        assistant("a4", "a3", "mirror", 0, provider="openclaw"),
    ]
    _, view, measured = _measure(write(tmp_path / "i.jsonl", entries))
    assert measured.usage_entry_id == "a1"
    trailing = [m for m in view.messages if m.entry.line_no > 3]
    assert measured.trailing_messages == len(trailing) == 4
    assert measured.source == f"usage+{get_counter().method}"
    # pi itself takes the zero-usage mirror as its last usage (docs/context-accounting.md): estimate = 0 + nothing.
    assert measured.agent_estimate == 0


def test_no_usage_at_all_counts_every_message(tmp_path: Path) -> None:
    entries = [user("u1", None, "hello there"), tool_result("r1", "u1", "file contents " * 20)]
    _, _, measured = _measure(write(tmp_path / "n.jsonl", entries))
    assert measured.usage_tokens is None
    assert measured.tokens == count_tokens("hello there") + count_tokens("file contents " * 20)
    assert measured.source == get_counter().method


def test_pi_estimate_counts_utf16_units_and_compact_json(tmp_path: Path) -> None:
    text = "🙂é"  # one astral character (2 UTF-16 units) and one BMP character
    entries = [user("u1", None, text), assistant("a1", "u1", "", 0, tool=("edit", {"path": "ü.py", "n": 1}))]
    _reader, view, _ = _measure(write(tmp_path / "e.jsonl", entries))
    assert view.messages[0].entry.chars == 3
    assert view.messages[1].entry.chars == len("edit") + len('{"path":"ü.py","n":1}')


def test_cut_point_never_lands_on_a_tool_result_and_flags_split_turns(tmp_path: Path) -> None:
    big = "x" * 40_000  # 10k pi tokens each
    entries = [
        user("u1", None, "first"), assistant("a1", "u1", big, 1),
        user("u2", "a1", "second"), assistant("a2", "u2", "calling", 1, tool=("read", {"path": "a"})),
        tool_result("r2", "a2", big), assistant("a3", "r2", big, 1), tool_result("r3", "a3", big),
    ]
    reader = read_transcript(write(tmp_path / "cut.jsonl", entries))
    view = build_context(reader.entries, reader.by_id, reader.leaf)
    cut = find_cut_point(view.path, 20_000)
    kept = view.path[cut.first_kept_index]
    assert kept.role != "toolResult"
    assert kept.id == "a3"
    assert cut.is_split_turn and view.path[cut.turn_start_index].id == "u2"


def test_cut_point_when_budget_is_never_reached_summarizes_nothing(tmp_path: Path) -> None:
    entries = [user("u1", None, "hi"), assistant("a1", "u1", "hello", 10)]
    reader = read_transcript(write(tmp_path / "small.jsonl", entries))
    view = build_context(reader.entries, reader.by_id, reader.leaf)
    cut = find_cut_point(view.path, 20_000)
    assert cut.first_kept_index == cut.boundary_start == 0


def test_window_resolution_is_labelled() -> None:
    assert resolve_context_window(store_context_tokens=32768, model="qwen3-max") == ContextWindow(32768, "store")
    assert resolve_context_window(model="claude-sonnet-4-5").source == "catalog"
    assert resolve_context_window(model="claude-sonnet-4-5[1m]").tokens == 1_000_000
    assert resolve_context_window(model="x", overrides={"X": 64000}) == ContextWindow(64000, "config")
    assert resolve_context_window(model="mystery") == ContextWindow(200_000, "default")
    assert resolve_context_window(store_context_tokens=True).source == "default"


def test_gauge_lines_thresholds_and_openclaw_floor() -> None:
    window = ContextWindow(200_000, "default")
    gauge = read_gauge(162_000, window, reserve_floor=20_000)
    assert gauge.line("Checkpoint saved") == "[Context: 81% | 162k/200k tokens | Checkpoint saved]"
    assert gauge.compaction_line == 180_000
    assert gauge.level == "checkpoint"
    small = read_gauge(13_000, ContextWindow(32_768, "store"), reserve_floor=20_000)
    assert small.compaction_line == 12_768 and small.level == "over-compaction"
    assert read_gauge(13_000, ContextWindow(32_768, "store")).compaction_line == 32_768 - 16_384
    unknown = read_gauge(None, window)
    assert unknown.level == "unknown" and unknown.utilization is None
    assert unknown.line() == "[Context: unknown after compaction | ?/200k tokens]"
    names = {m.name for m in gauge.markers}
    assert {"gauge", "checkpoint", "flush-50", "flush-75", "flush-90", "compaction", "pre-compaction"} <= names
