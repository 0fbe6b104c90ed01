"""The rules of pi 0.73.1 that issue 26 found ctxscope missing, each on the session file that shows it.

The expected figures are the real pi's own (``tests/realagents/pi/oracle.mjs`` over the same files, built by
``tests/realagents/pi/edge_cases.py``); the ``realagents`` suite compares them field by field against pi itself.
These tests hold the rules without node.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from engine.accounting.context import find_cut_point, has_pi_cut, pi_branch
from engine.session.quick_gauge import quick_context_tokens
from engine.stores.entries import entry_from_object
from engine.stores.js_json import js_json_length, js_number
from tests.engine._compaction import age, plan_for, snapshot_of
from tests.realagents.pi import edge_cases


def _build(tmp_path: Path, name: str) -> Path:
    path = edge_cases.EDGE_CASES[name](tmp_path / f"{name}.jsonl")
    age(path)
    return path


def _cut(path: Path, keep: int) -> str | None:
    _, snapshot = snapshot_of(path)
    branch = pi_branch(snapshot.view)
    cut = find_cut_point(branch, keep)
    return branch[cut.first_kept_index].id if has_pi_cut(branch, cut) else None


# --- floats in tool-call arguments, no usage -------------------------------------------------------------------

@pytest.mark.parametrize(
    ("value", "printed"),
    [
        (1.0, "1"), (-0.0, "0"), (2.5, "2.5"), (100.0, "100"), (0.1, "0.1"), (1e21, "1e+21"),
        (1e20, "100000000000000000000"), (1.5e-7, "1.5e-7"), (1e-6, "0.000001"), (0.000001234, "0.000001234"),
        (1e16, "10000000000000000"), (123456789012345678901.0, "123456789012345680000"), (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"), (-2.5e-10, "-2.5e-10"), (float("nan"), "null"),
        (float("inf"), "null"),
    ],
)
def test_numbers_print_as_javascript_prints_them(value: float, printed: str) -> None:
    # The right-hand side is what node prints for JSON.stringify(value).
    assert js_number(value) == printed


def test_tool_call_arguments_are_measured_by_json_stringify() -> None:
    arguments = {"values": [1.0, 2.0], "scale": 1e21, "eps": 1.5e-7, "zero": -0.0, "n": 3, "s": "é\n"}
    printed = '{"values":[1,2],"scale":1e+21,"eps":1.5e-7,"zero":0,"n":3,"s":"é\\n"}'  # JSON.stringify's text
    assert js_json_length(arguments) == len(printed)
    obj = {"type": "message", "id": "a", "parentId": None, "message": {
        "role": "assistant", "content": [{"type": "toolCall", "id": "c", "name": "plot", "arguments": arguments}]}}
    assert entry_from_object(obj, line_no=2, offset=0, length=1).chars == len("plot") + len(printed)


def test_float_arguments_without_usage_give_pis_estimate_and_cut(tmp_path: Path) -> None:
    path = _build(tmp_path, "26-float-arguments-no-usage")
    _, snapshot = snapshot_of(path)
    assert [m.entry.pi_tokens for m in snapshot.view.messages] == [300, 316, 100, 2, 5, 1500]
    assert snapshot.tokens.agent_estimate == 2223
    assert _cut(path, 2000) == "e001"  # printed the orjson way the call is 616 tokens and the cut moves to it


# --- usage records that lack fields ------------------------------------------------------------------------------

def test_usage_lacking_parts_makes_pis_estimate_nan_but_known(tmp_path: Path) -> None:
    path = _build(tmp_path, "26-usage-missing-fields")
    _, snapshot = snapshot_of(path)
    assert snapshot.tokens.agent_estimate is None  # pi: NaN (JSON null), also its tokensBefore
    assert snapshot.tokens.agent_estimate_known
    assert snapshot.tokens.tokens is not None  # ctxscope's own figure counts the absent parts as 0
    quick = quick_context_tokens(path)
    assert (quick.agent_estimate, quick.agent_estimate_known) == (None, True)


def test_empty_usage_after_a_compaction_is_unknown_to_pi(tmp_path: Path) -> None:
    path = _build(tmp_path, "26-usage-missing-after-compaction")
    _, snapshot = snapshot_of(path)
    assert (snapshot.tokens.agent_estimate, snapshot.tokens.agent_estimate_known) == (None, False)
    quick = quick_context_tokens(path)
    assert (quick.agent_estimate, quick.agent_estimate_known) == (None, False)


def test_a_nan_estimate_never_reaches_the_written_tokens_before(tmp_path: Path) -> None:
    path = _build(tmp_path, "26-usage-missing-fields")
    _, plan = plan_for(path, "summarize", tmp_path / "state", keep_recent=2000)
    assert plan.tokens_before_estimate is None
    # pi renders tokensBefore with toLocaleString(); the entry carries ctxscope's count instead of null.
    assert plan.compaction_entry()["tokensBefore"] == plan.context_tokens_before > 0


# --- a last entry without an id ----------------------------------------------------------------------------------

def test_last_entry_without_id_ends_the_context_but_leaves_pi_no_branch(tmp_path: Path) -> None:
    path = _build(tmp_path, "26-last-entry-without-id")
    _, snapshot = snapshot_of(path)
    view = snapshot.view
    assert view.leaf is not None and view.leaf.id is None
    assert snapshot.to_status()["leaf_id"] is None
    assert [m.entry_id for m in view.messages][-2:] == ["e005", "line:7"]
    assert snapshot.tokens.agent_estimate == 3050  # the usage of e005 plus the id-less message
    assert snapshot.tokens.agent_estimate_known
    assert pi_branch(view) == ()
    assert _cut(path, 2000) is None and _cut(path, 20000) is None
    quick = quick_context_tokens(path)
    assert (quick.leaf_id, quick.agent_estimate, quick.agent_estimate_known) == (None, 3050, True)
    _, plan = plan_for(path, "summarize", tmp_path / "state", keep_recent=2000)
    assert plan.first_kept_entry_id is None
    assert any(reason.startswith("nothing to compact: the last entry has no id") for reason in plan.blocked)


def test_a_null_id_on_the_last_entry_leaves_pi_an_empty_context(tmp_path: Path) -> None:
    path = _build(tmp_path, "26-last-entry-null-id")
    _, snapshot = snapshot_of(path)
    assert snapshot.view.leaf is not None and snapshot.view.leaf.null_id
    assert snapshot.view.messages == ()
    assert (snapshot.tokens.agent_estimate, snapshot.tokens.agent_estimate_known) == (0, True)
    assert _cut(path, 2000) is None
    quick = quick_context_tokens(path)
    assert (quick.leaf_id, quick.agent_estimate, quick.agent_estimate_known) == (None, 0, True)


def test_an_entry_appended_after_the_id_less_one_restores_the_leaf(tmp_path: Path) -> None:
    path = _build(tmp_path, "26-last-entry-without-id")
    follower, first = snapshot_of(path)
    assert first.view.leaf is not None and first.view.leaf.id is None
    line = {"type": "message", "id": "e100", "parentId": "e005", "timestamp": "2026-06-01T00:00:00.000Z",
            "message": {"role": "user", "content": [{"type": "text", "text": "next"}], "timestamp": 1}}
    with path.open("a") as f:
        f.write(json.dumps(line, separators=(",", ":")) + "\n")
    later = follower.refresh()
    assert later.view.leaf is not None and later.view.leaf.id == "e100"
    assert [m.entry_id for m in later.view.messages][-2:] == ["e005", "e100"]


# --- a cut before the previous compaction ------------------------------------------------------------------------

def test_plan_never_keeps_the_previous_summary(tmp_path: Path) -> None:
    path = _build(tmp_path, "26-cut-before-previous-compaction")
    follower, plan = plan_for(path, "summarize", tmp_path / "state", keep_recent=2000)
    assert plan.first_kept_entry_id == "e004"
    assert plan.kept_ids == ("e004", "e005", "e006", "e008", "e009")  # pi's context after the compaction
    assert "earlier work" in plan.summary  # the earlier summary is folded into the new one, not lost
    assert plan.messages_summarized + plan.messages_kept == len(follower.snapshot.view.messages)  # type: ignore[union-attr]


def test_js_number_agrees_with_node_when_node_is_here() -> None:
    values = [1.0, 1e21, 1.5e-7, 0.1, 2.0**60, 1e-7, 123.456e5, -0.0]
    try:
        out = subprocess.run(["node", "-e", "process.stdout.write(JSON.stringify(JSON.parse(process.argv[1])"
                              ".map((x) => JSON.stringify(x))))", json.dumps(values)],
                             capture_output=True, text=True, timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        pytest.skip("node is not available")
    assert [js_number(v) for v in values] == json.loads(out)
