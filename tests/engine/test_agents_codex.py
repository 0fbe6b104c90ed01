"""Codex's context rule, tokens, window, compaction line and usage as ctxscope reads them (docs/codex.md)."""

from __future__ import annotations

import os
from pathlib import Path

from engine.agents.codex import ADAPTER
from engine.agents.codex.reader import CodexReader
from tests.conftest import FIXTURES
from tests.engine._agent_files import codex_session


def test_context_before_a_compaction_is_every_item_after_the_base_instructions(tmp_path: Path) -> None:
    reading = CodexReader(codex_session(tmp_path / ".codex", compacted=False), {}).read_new()
    assert [(i.id, i.role) for i in reading.context] == [
        (None, "harness"), ("d1", "harness"), ("e1", "harness"), ("p1", "user"), ("m1", "assistant"),
        ("p2", "user"), ("m2", "assistant")]
    assert reading.context_tokens.tokens == 123
    assert reading.window.tokens == 258_400


def test_context_after_compacted_is_its_replacement_history_then_what_followed(tmp_path: Path) -> None:
    reading = CodexReader(codex_session(tmp_path / ".codex", compacted=True), {}).read_new()
    assert [(i.id, i.role) for i in reading.context] == [
        (None, "harness"), ("p1", "user"), ("p2", "user"), ("s1", "summary"), ("p3", "user"), ("m3", "assistant")]
    assert reading.context_tokens.tokens == 73
    assert [(c.tokens_before, c.source) for c in reading.compactions] == [(123, "codex compacted")]


def test_the_compaction_line_comes_from_the_config_of_the_rollouts_own_codex_home(tmp_path: Path) -> None:
    reading = CodexReader(codex_session(tmp_path / "elsewhere", compacted=False), {"CODEX_HOME": "/nonexistent"}
                          ).read_new()
    assert reading.compaction_line.tokens == 200_000
    assert "model_auto_compact_token_limit" in reading.compaction_line.source


def test_calls_are_one_per_response_with_cached_input_apart(tmp_path: Path) -> None:
    reading = CodexReader(codex_session(tmp_path / ".codex", compacted=True), {}).read_new()
    assert [(c.key, c.input, c.cache_read, c.output) for c in reading.calls] == [
        ("codex:resp_1", 60, 40, 3), ("codex:resp_2", 60, 60, 3), ("codex:resp_3", 70, 0, 3)]


def test_older_rollouts_count_a_call_per_changed_token_count() -> None:
    reading = CodexReader(FIXTURES / "codex" / "ryoppippi__ccusage__codex-session-alpha.jsonl", {}).read_new()
    assert len(reading.calls) == 2
    assert reading.model == "gpt-5.2-codex"


def test_reading_is_incremental_and_read_only(tmp_path: Path) -> None:
    path = codex_session(tmp_path / ".codex", compacted=True)
    whole = path.read_bytes()
    growing = tmp_path / "growing.jsonl"
    growing.write_bytes(b"")
    reader = CodexReader(growing, {})
    for cut in range(0, len(whole), 61):
        with growing.open("ab") as handle:
            handle.write(whole[cut:cut + 61])
        last = reader.read_new()
    mtime = os.stat(path).st_mtime_ns
    full = ADAPTER.reader(path, {}).read_new()
    assert path.read_bytes() == whole and os.stat(path).st_mtime_ns == mtime
    assert (last.context, last.context_tokens, last.compactions, last.calls) == (
        full.context, full.context_tokens, full.compactions, full.calls)
