"""Claude Code's context rule, tokens, compactions and harness text as ctxscope reads them (docs/claude-code.md)."""

from __future__ import annotations

import os
from pathlib import Path

from engine.agents.claude_code import ADAPTER
from engine.agents.claude_code.reader import ClaudeCodeReader
from tests.conftest import FIXTURES
from tests.engine._agent_files import (
    SID,
    cc_assistant,
    cc_attachment,
    cc_boundary,
    cc_user,
    claude_session,
    write_jsonl,
)


def test_context_after_a_boundary_is_summary_then_preserved_segment_then_what_followed(tmp_path: Path) -> None:
    reading = ClaudeCodeReader(claude_session(tmp_path / "s.jsonl")).read_new()
    assert [(i.id, i.role) for i in reading.context] == [
        ("s1", "summary"), ("r2", "assistant"), ("c1", "harness"), ("c2", "harness"), ("u3", "user"),
        ("r3", "assistant"), ("r3b", "assistant")]
    assert reading.leaf_id == "r3b"
    assert reading.session_id == SID


def test_tokens_are_the_last_usage_and_a_reply_written_as_two_records_is_one_call(tmp_path: Path) -> None:
    reading = ClaudeCodeReader(claude_session(tmp_path / "s.jsonl")).read_new()
    assert reading.context_tokens.tokens == 7 + 40 + 100 + 3
    assert reading.context_tokens.source == "claude-code: last usage"
    assert [c.key for c in reading.calls] == ["claude:msg_1", "claude:msg_2", "claude:msg_3"]


def test_messages_after_the_last_usage_add_the_rough_estimate(tmp_path: Path) -> None:
    # The auto-compaction case of the real agent: usage 994,352 then an 11-character prompt gave preTokens 994,355.
    path = write_jsonl(tmp_path / "s.jsonl", [cc_user("u1", None, "hello"),
                                              cc_assistant("r1", "u1", "x", (3, 0, 994_346, 3), "m1"),
                                              cc_user("u2", "r1", "second turn")])
    reading = ClaudeCodeReader(path).read_new()
    assert reading.context_tokens.tokens == 994_355


def test_right_after_a_compaction_the_tokens_are_its_post_tokens(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [
        cc_user("u1", None, "hello"), cc_assistant("r1", "u1", "x", (1, 2, 3, 4), "m1"),
        cc_boundary("b1", "r1", "auto", 10, 7, None), cc_user("s1", "b1", "summary", isCompactSummary=True)])
    reading = ClaudeCodeReader(path).read_new()
    assert reading.context_tokens.tokens == 7
    assert [(c.trigger, c.tokens_before, c.tokens_after) for c in reading.compactions] == [("auto", 10, 7)]
    assert [i.role for i in reading.context] == ["summary"]


def test_harness_text_is_never_the_users(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [
        cc_user("u1", None, "<system-reminder>today is …</system-reminder>"),
        cc_attachment("a1", "u1"),
        cc_user("u2", "a1", "<local-command-stdout>Compacted</local-command-stdout>"),
        cc_user("u3", "u2", [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]),  # type: ignore[arg-type]
        cc_user("u4", "u3", "please fix the bug"),
    ])
    roles = [i.role for i in ClaudeCodeReader(path).read_new().context]
    assert roles == ["harness", "harness", "harness", "tool", "user"]


def test_reading_is_incremental_and_equal_to_one_full_read(tmp_path: Path) -> None:
    whole = claude_session(tmp_path / "whole.jsonl").read_bytes()
    growing = tmp_path / "growing.jsonl"
    growing.write_bytes(b"")
    reader = ClaudeCodeReader(growing)
    for cut in range(0, len(whole), 97):  # cuts fall inside lines: a partial line waits for its newline
        with growing.open("ab") as handle:
            handle.write(whole[cut:cut + 97])
        last = reader.read_new()
    full = ClaudeCodeReader(tmp_path / "whole.jsonl").read_new()
    assert (last.context, last.context_tokens, last.compactions, last.leaf_id, last.calls) == (
        full.context, full.context_tokens, full.compactions, full.leaf_id, full.calls)


def test_reading_leaves_the_file_byte_identical(tmp_path: Path) -> None:
    path = claude_session(tmp_path / "s.jsonl")
    before, stat = path.read_bytes(), os.stat(path)
    ADAPTER.reader(path).read_new()
    assert path.read_bytes() == before
    assert os.stat(path).st_mtime_ns == stat.st_mtime_ns
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl"]


def test_a_sub_agent_file_is_marked_sidechain(tmp_path: Path) -> None:
    first = {**cc_user("x1", None, "task for the sub-agent"), "isSidechain": True}
    second = {**cc_assistant("x2", "x1", "done", (1, 1, 1, 1), "m9"), "isSidechain": True}
    reading = ClaudeCodeReader(write_jsonl(tmp_path / "subagents" / "agent-a1.jsonl", [first, second])).read_new()
    assert reading.sidechain and reading.leaf_id == "x2"


def test_the_published_compact_after_rewind_fixture() -> None:
    reading = ClaudeCodeReader(FIXTURES / "claude-code" / "daaain__claude-code-log__dag_compact_after_rewind.jsonl"
                               ).read_new()
    assert [c.trigger for c in reading.compactions] == ["auto"]
    assert reading.context[0].role == "summary"
    assert not reading.problems
