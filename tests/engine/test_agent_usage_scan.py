"""A report's quick pass over a Claude Code or Codex file parses only the lines that can hold a call or a
compaction, and finds exactly what the full reader finds (docs/usage.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.agents.claude_code.reader import ClaudeCodeReader, read_usage
from engine.agents.codex.reader import CodexReader
from sim.agent_corpus import write_claude_code, write_codex
from tests.conftest import FIXTURES
from tests.engine._agent_files import claude_session, codex_session


def _same(path: Path) -> None:
    quick, full = read_usage(path), ClaudeCodeReader(path).read_new()
    assert quick is not None
    assert (quick.session_id, quick.cwd, quick.calls, quick.compactions) == (
        full.session_id, full.cwd, full.calls, full.compactions)


@pytest.mark.parametrize("name", sorted(p.name for p in (FIXTURES / "claude-code").glob("*.jsonl")))
def test_the_quick_pass_equals_the_reader_on_the_fixtures(name: str) -> None:
    _same(FIXTURES / "claude-code" / name)


def test_the_quick_pass_equals_the_reader_on_generated_and_compacted_sessions(tmp_path: Path) -> None:
    for path in write_claude_code(tmp_path, 5, turns=4):
        _same(path)
    _same(claude_session(tmp_path / "compacted.jsonl"))  # a boundary, a summary, a reply split over two records


def test_escaped_keys_and_untyped_replies_are_still_read(tmp_path: Path) -> None:
    # "\\u0074ype" is "type" once parsed; a message with no type is a reply to the reader: both must be seen.
    path = tmp_path / "odd.jsonl"
    path.write_text(
        '{"sessionId": "s", "cwd": "/w", "type": "user", "uuid": "u", "message": {"role": "user", "content": "hi"}}\n'
        '{"\\u0074ype": "assistant", "uuid": "a", "message": {"id": "m1", "model": "claude-sonnet-4-5",'
        ' "usage": {"input_tokens": 5, "output_tokens": 7}}}\n'
        '{"uuid": "b", "message": {"id": "m2", "model": "claude-sonnet-4-5",'
        ' "usage": {"input_tokens": 3, "output_tokens": 2}}}\n'
    )
    _same(path)
    assert [c.input for c in read_usage(path).calls] == [5, 3]  # type: ignore[union-attr]


def test_a_file_with_no_call_and_no_session_id_is_left_to_the_full_reader(tmp_path: Path) -> None:
    path = tmp_path / "junk.jsonl"
    path.write_text('{"x": 1}\n')
    assert read_usage(path) is None


def _same_codex(path: Path) -> None:
    quick, full = CodexReader(path, usage_only=True).read_new(), CodexReader(path).read_new()
    assert quick.records < full.records or full.records <= 3  # it skipped lines (a fixture has only usage lines)
    assert (quick.session_id, quick.cwd, quick.calls, quick.compactions) == (
        full.session_id, full.cwd, full.calls, full.compactions)


def test_the_codex_usage_pass_equals_the_reader(tmp_path: Path) -> None:
    for path in [*sorted((FIXTURES / "codex").glob("*.jsonl")), *write_codex(tmp_path / "gen", 5, turns=4),
                 codex_session(tmp_path / "home", compacted=True)]:
        _same_codex(path)
