"""Checkpoint diffs: the structured view and the raw unified YAML diff."""

from __future__ import annotations

import dataclasses

from engine.checkpoints.diff import ListChange, TextChange, diff_checkpoints, raw_diff
from engine.checkpoints.model import Checkpoint, Decision, TokenUsage
from engine.checkpoints.yaml_io import dump_checkpoint
from tests.engine._checkpoints import sample_checkpoint


def _next(a: Checkpoint) -> Checkpoint:
    """What the following checkpoint of the sample session looks like after a compaction."""
    return dataclasses.replace(
        a,
        meta=dataclasses.replace(
            a.meta,
            checkpoint_id="cp_004",
            previous_checkpoint="cp_003",
            trigger="compaction",
            compaction_count=3,
            token_usage=TokenUsage(41_200, 200_000, 0.206),
        ),
        working=dataclasses.replace(
            a.working, topic="Fix the refund timeout in the sandbox", status="waiting_for_user"
        ),
        decisions=(
            *a.decisions,
            Decision("d7", "Raise the refund read timeout to 90 s behind a setting", "2026-02-24T16:10:00Z"),
        ),
        resources=dataclasses.replace(
            a.resources,
            files_modified=(*a.resources.files_modified, "src/billing/settings.py"),
            tools_used=tuple(t for t in a.resources.tools_used if t != "web_search"),
        ),
        open_items=a.open_items[1:],
        learnings=(*a.learnings, "Sandbox refunds take 70 s on average"),
    )


def test_structured_diff_of_consecutive_checkpoints() -> None:
    a = sample_checkpoint()
    d = diff_checkpoints(a, _next(a))
    assert (d.old_id, d.new_id) == ("cp_003", "cp_004")
    assert d.trigger == TextChange("auto-80pct", "compaction")
    assert d.topic.changed and d.topic.new == "Fix the refund timeout in the sandbox"
    assert d.status == TextChange("in_progress", "waiting_for_user")
    assert d.token_delta == 41_200 - 162_431
    assert round(d.utilization_delta, 3) == round(0.206 - 0.81, 3)
    assert d.compaction_delta == 1
    assert d.decisions == ListChange(added=("Raise the refund read timeout to 90 s behind a setting",))
    assert d.open_items == ListChange(removed=(a.open_items[0],))
    assert d.learnings == ListChange(added=("Sandbox refunds take 70 s on average",))
    assert d.files_modified == ListChange(added=("src/billing/settings.py",))
    assert d.files_read == ListChange()
    assert d.tools == ListChange(removed=("web_search",))
    assert not d.is_empty
    assert [name for name, change in d.lists if change.changed] == [
        "decisions",
        "open items",
        "learnings",
        "files modified",
        "tools",
    ]


def test_identical_checkpoints_have_an_empty_diff() -> None:
    a = sample_checkpoint()
    d = diff_checkpoints(a, a)
    assert d.is_empty
    assert (d.token_delta, d.compaction_delta, d.utilization_delta) == (0, 0, 0)
    assert raw_diff(dump_checkpoint(a), dump_checkpoint(a)) == ""


def test_whitespace_differences_are_not_changes() -> None:
    a = sample_checkpoint()
    b = dataclasses.replace(
        a,
        working=dataclasses.replace(a.working, topic="  " + a.working.topic.replace(" ", "\n  ") + "\n"),
        open_items=tuple(f"{item}\n" for item in a.open_items),
        decisions=tuple(dataclasses.replace(d, id=f"x{d.id}", what=d.what.replace(" ", "\t")) for d in a.decisions),
    )
    d = diff_checkpoints(a, b)
    assert not d.topic.changed
    assert d.open_items == ListChange() and d.decisions == ListChange()
    assert d.is_empty


def test_list_changes_keep_order_and_ignore_duplicates_and_blanks() -> None:
    a = dataclasses.replace(sample_checkpoint(), learnings=("one", "two", "two", " "))
    b = dataclasses.replace(a, learnings=("zero", "two", "three", "zero", ""))
    assert diff_checkpoints(a, b).learnings == ListChange(added=("zero", "three"), removed=("one",))


def test_decisions_compare_by_text_not_id() -> None:
    a = sample_checkpoint()
    renumbered = tuple(dataclasses.replace(d, id=f"d{i + 10}") for i, d in enumerate(a.decisions))
    assert diff_checkpoints(a, dataclasses.replace(a, decisions=renumbered)).decisions == ListChange()


def test_raw_diff_is_a_unified_yaml_diff() -> None:
    a = sample_checkpoint()
    out = raw_diff(dump_checkpoint(a), dump_checkpoint(_next(a)), a_name="cp_003.yaml", b_name="cp_004.yaml")
    lines = out.splitlines()
    assert lines[:2] == ["--- cp_003.yaml", "+++ cp_004.yaml"]
    assert '-  trigger: "auto-80pct"' in lines
    assert '+  trigger: "compaction"' in lines
    assert '+- "Sandbox refunds take 70 s on average"' in lines
    assert '-  - "web_search"' in lines
    assert out.endswith("\n")


def test_raw_diff_splits_on_newlines_only() -> None:
    out = raw_diff("a: x\u2028y\nb: 1\n", "a: x\u2028y\nb: 2\n")
    assert "\n a: x\u2028y\n-b: 1\n+b: 2\n" in out
    assert raw_diff("k: 1", "k: 2").endswith("-k: 1\n+k: 2\n")
