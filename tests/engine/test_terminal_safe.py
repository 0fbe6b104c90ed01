"""The one rule for showing session data on a terminal (engine/text/terminal.py, docs/hostile-input.md)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.text.terminal import strip_controls, terminal_safe, unsafe_characters


def test_escape_sequences_are_shown_not_sent() -> None:
    assert terminal_safe("a\x1b]52;c;SGVsbG8=\x07b") == "a␛]52;c;SGVsbG8=␇b"
    assert terminal_safe("\x1b]0;title\x1b\\") == "␛]0;title␛\\"
    assert terminal_safe("\x9b31m\x7f") == "\\x9b31m␡"
    assert terminal_safe("\u202eexe.txt\u2066") == "\\u202eexe.txt\\u2066"


def test_newlines_are_kept_only_where_several_lines_are_meant() -> None:
    assert terminal_safe("key\nforged\trow\r") == "key⏎forged row␍"
    assert terminal_safe("line one\n\tline two\r", one_line=False) == "line one\n\tline two␍"


def test_controls_can_be_left_out_where_text_is_laid_out_by_cells() -> None:
    assert strip_controls("a\x1b]52;c;SGVsbG8=\x1b\\b\x9b\u202e") == "a]52;c;SGVsbG8=\\b"


def test_plain_text_is_returned_as_is() -> None:
    text = "claude-sonnet-4-5 · café [WIP] ✓ 漢字"
    assert terminal_safe(text) is text


@given(st.text())
def test_nothing_unsafe_survives(text: str) -> None:
    assert unsafe_characters(terminal_safe(text)) == []
    assert unsafe_characters(terminal_safe(text, one_line=False), one_line=False) == []
    assert "\n" not in terminal_safe(text)
