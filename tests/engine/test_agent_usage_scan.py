"""A report's quick pass over a Claude Code or Codex file parses only the lines that can hold a call or a
compaction, and finds exactly what the full reader finds (docs/usage.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.agents import marked_lines
from engine.agents.claude_code import reader as claude_reader
from engine.agents.claude_code.reader import ClaudeCodeReader, note_usage, read_usage
from engine.agents.codex.reader import CodexReader
from sim.agent_corpus import write_claude_code, write_codex
from tests.conftest import FIXTURES
from tests.engine._agent_files import SID, claude_session, codex_session, cx, cx_count, cx_message


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


def _rollout(path: Path, records: list[dict[str, object]], tail: bytes = b"") -> Path:
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in records) + tail)
    return path


def _usage_of(reader: CodexReader) -> tuple[object, ...]:
    reading = reader.read_new()
    return reading.session_id, reading.cwd, reading.calls, reading.compactions, reader.last_count


def _codex_records(*, with_records: bool) -> list[dict[str, object]]:
    usage = {"input_tokens": 100, "cached_input_tokens": 40, "output_tokens": 3}
    turns: list[dict[str, object]] = [
        cx("session_meta", {"id": SID, "cwd": "/w", "cli_version": "0.169.0"}, 0),
        cx("turn_context", {"model": "gpt-5.2-codex"}, 1),
        cx("response_item", cx_message("user", 'my "token_count" is "usage", see \\u0041', "p1"), 2),
    ]
    for n in range(3):
        if with_records:
            turns.append(cx("token_usage_record", {"response_id": f"resp_{n}", "usage": usage}, 10 + n))
        turns.append(cx("event_msg", cx_count(1_000 * (n + 1), 5_000 * (n + 1)), 20 + n))
    turns += [
        # Holds the word as a key, yet is no token_count: the compaction's size before is the count above.
        cx("response_item", {"type": "message", "role": "user", "token_count": 7, "content": []}, 30),
        cx("event_msg", {"type": "token_count", "info": None}, 31),  # no info: not a count either
        cx("compacted", {"message": "summary"}, 32),
        cx("turn_context", {"model": "gpt-5.3-codex"}, 33),
        cx("event_msg", cx_count(700, 9_000), 34),
    ]
    if with_records:
        turns.append(cx("token_usage_record", {"response_id": "resp_9", "usage": usage}, 35))
    return [*turns, cx("event_msg", cx_count(800, 9_900), 36)]


@pytest.mark.parametrize("with_records", [True, False], ids=["token_usage_record", "token_count only"])
def test_the_codex_usage_pass_reads_only_the_counts_it_needs_and_equals_the_reader(tmp_path: Path,
                                                                                   with_records: bool) -> None:
    # A torn last record and a line of non-UTF-8 bytes holding a marker: neither is a count to either reader.
    path = _rollout(tmp_path / "rollout.jsonl", _codex_records(with_records=with_records),
                    b'{"type": "event_msg", "payload": {"type": "token_count", "info": \xff}}\n'
                    b'{"type": "event_msg", "payload": {"type": "token_count"')
    reader = CodexReader(path, usage_only=True)
    quick, full = _usage_of(reader), _usage_of(CodexReader(path))
    assert quick == full
    assert full[3][0].tokens_before == 3_000  # type: ignore[index]  # the last real count before the compaction
    assert len(full[2]) == (4 if with_records else 5)  # type: ignore[arg-type]
    # Records taken in: with token_usage_records, none of the seven lines naming token_count (they are looked at
    # only for the compaction's size and the last count); without, every one of them.
    assert reader.records == (9 if with_records else 12)


@pytest.mark.parametrize("with_records", [True, False], ids=["token_usage_record", "token_count only"])
def test_a_codex_usage_pass_resumed_at_any_line_equals_one_read_of_the_whole(tmp_path: Path,
                                                                             with_records: bool) -> None:
    path = _rollout(tmp_path / "rollout.jsonl", _codex_records(with_records=with_records))
    whole = path.read_bytes()
    expected = _usage_of(CodexReader(path))
    grown = tmp_path / "grown.jsonl"
    for cut in [i + 1 for i, b in enumerate(whole) if b == 0x0A]:
        grown.write_bytes(whole[:cut])
        first = CodexReader(grown, usage_only=True)
        first.read_new()
        grown.write_bytes(whole)
        assert _usage_of(CodexReader.resume(grown, first.usage_state())) == expected, cut


def test_claude_code_lines_are_chosen_by_their_usage_once_the_session_is_known(tmp_path: Path,
                                                                                monkeypatch: pytest.MonkeyPatch
                                                                                ) -> None:
    # After the first lines: a reply with an escaped "usage" key, a user's text quoting the word, a reply with no
    # usage, a boundary, a text with a non-ASCII escape (no key can hide in one); lines with no marker are not
    # parsed, and the calls and line numbers stay the full reader's.
    parsed: list[int] = []

    def counted(obj, line_no, calls, compactions):  # type: ignore[no-untyped-def]
        parsed.append(line_no)
        return note_usage(obj, line_no, calls, compactions)

    path = tmp_path / "s.jsonl"
    path.write_text(
        '{"sessionId": "s", "type": "queue-operation"}\n'
        '{"sessionId": "s", "cwd": "/w", "type": "user", "uuid": "u", "message": {"role": "user", "content": "hi"}}\n'
        '{"type": "assistant", "uuid": "a", "message": {"id": "m1", "model": "claude-sonnet-4-5",'
        ' "\\u0075sage": {"input_tokens": 5, "output_tokens": 7}}}\n'
        '{"type": "user", "uuid": "v", "message": {"role": "user", "content": "what is \\"usage\\"?"}}\n'
        '{"type": "assistant", "uuid": "t", "message": {"id": "m0", "content": []}}\n'
        '{"type": "system", "subtype": "compact_boundary", "uuid": "b", "compactMetadata": {"preTokens": 9}}\n'
        '{"type": "assistant", "uuid": "c", "message": {"id": "m2", "model": "claude-sonnet-4-5",'
        ' "usage": {"input_tokens": 3, "output_tokens": 2}}}\n'
        '{"type": "user", "uuid": "w", "message": {"role": "user", "content": "it\\u2019s done"}}\n'
    )
    _same(path)
    monkeypatch.setattr(claude_reader, "note_usage", counted)
    quick = read_usage(path)
    assert quick is not None and [(c.line, c.input) for c in quick.calls] == [(3, 5), (7, 3)]
    assert [c.line_no for c in quick.compactions] == [6]
    assert parsed == [1, 2, 3, 6, 7]


def test_a_claude_code_usage_pass_resumed_at_any_line_equals_one_read_of_the_whole(tmp_path: Path) -> None:
    path = claude_session(tmp_path / "whole.jsonl")
    whole = path.read_bytes()
    expected = read_usage(path)
    grown = tmp_path / "grown.jsonl"
    for cut in [i + 1 for i, b in enumerate(whole) if b == 0x0A]:
        grown.write_bytes(whole[:cut])
        first = read_usage(grown)
        grown.write_bytes(whole)
        again = read_usage(grown, first) if first is not None else read_usage(grown)
        assert again is not None and expected is not None
        assert again[:4] == expected[:4] and again.offset == len(whole), cut


@pytest.mark.parametrize("with_records", [True, False], ids=["token_usage_record", "token_count only"])
def test_files_too_large_to_read_at_once_give_the_same_usage_through_the_cursor(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, with_records: bool) -> None:
    rollout = _rollout(tmp_path / "rollout.jsonl", _codex_records(with_records=with_records))
    claude = claude_session(tmp_path / "claude.jsonl")
    whole = _usage_of(CodexReader(rollout, usage_only=True)), read_usage(claude)
    monkeypatch.setattr(marked_lines, "WHOLE_FILE_BYTES", 10)  # every file is "too large" now
    cursor = _usage_of(CodexReader(rollout, usage_only=True)), read_usage(claude)
    assert cursor[0] == whole[0] and cursor[1] is not None and whole[1] is not None
    assert cursor[1][:6] == whole[1][:6] and cursor[1].whole is None


def test_odd_values_give_the_full_readers_calls_and_compactions(tmp_path: Path) -> None:
    # The quick pass takes calls and compactions from each object without a record (note_usage): every odd value
    # a record reads as absent must read so there too.
    reply = {"type": "assistant", "requestId": "r", "timestamp": "2026-01-01T00:00:00Z",
             "message": {"id": "m", "model": "claude-sonnet-4-5", "usage": {"input_tokens": 4, "output_tokens": 1}}}

    def variant(n: int, **change: object) -> dict[str, object]:
        obj = json.loads(json.dumps(reply))
        obj["message"]["id"] = f"m{n}"
        for key, value in change.items():
            if key.startswith("m_"):
                obj["message"][key[2:]] = value
            else:
                obj[key] = value
        return obj

    lines: list[object] = [
        {"sessionId": "", "cwd": 7, "type": "user", "message": {"content": "hi"}},  # an empty id, a numeric cwd
        variant(1, type=123), variant(2, type=""), variant(3, type=None, message=[1]), variant(4, m_model=5),
        variant(5, timestamp=12), variant(6, m_usage={"input_tokens": -3, "output_tokens": True}),
        variant(7, m_usage={"input_tokens": 1.5, "cache_read_input_tokens": 2}), variant(8, m_usage={}),
        variant(9, m_usage=[1, 2]), variant(10, m_id="", uuid="u10"), variant(11, m_id="", uuid=None),
        variant(12, requestId=5), variant(13, m_id=None, requestId="r13", uuid=""),
        variant(14, costUSD="1.5"), variant(15, costUSD=-2.0), variant(16, costUSD=1e300), variant(17, costUSD=0.25),
        variant(1, m_usage={"input_tokens": 99}),  # the same key again: the first is kept
        {"sessionId": "s", "cwd": "/w", "type": "user", "message": {"content": "later ids"}},
        {"type": "system", "subtype": "compact_boundary", "uuid": "b1", "isSidechain": True},
        {"type": "system", "subtype": "compact_boundary", "uuid": 3, "timestamp": 4, "isSidechain": "yes",
         "compactMetadata": {"trigger": 1, "preTokens": -1, "postTokens": 2.0, "preservedSegment": []}},
        {"type": "system", "subtype": "compact_boundary", "compactMetadata": [], "usage": {"x": 1}},
        {"type": "system", "subtype": "other", "usage": {"input_tokens": 3}},
        {"message": {"id": "m20", "usage": {"output_tokens": 2}}, "requestId": "r"},  # untyped: a reply
        {"type": "user", "message": {"id": "m21", "usage": {"output_tokens": 2}}},  # a user's usage counts not
    ]
    path = tmp_path / "odd.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    _same(path)
    quick = read_usage(path)
    assert quick is not None and quick.session_id == "s" and quick.cwd == "/w"
    assert len(quick.calls) > 10 and len(quick.compactions) == 2
