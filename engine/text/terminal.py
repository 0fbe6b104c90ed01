"""One rule for every value from a session or an agent config that a terminal will show (docs/hostile-input.md).

A transcript's text, a model name, a working directory or a session key may hold escape sequences: an OSC 52 writes
the clipboard, an OSC 0 the window title, a CSI clears the screen, a C1 ``\\x9b`` is a CSI on its own, a bidi
override makes ``txt.exe`` of ``exe.txt``. :func:`terminal_safe` shows each such character as something printable
(ESC as ``␛``, the other C0 controls as their control pictures, C1 controls and bidi controls as ``\\x9b`` /
``\\u202e``), so the sequence is seen rather than obeyed; where one line is meant, a newline is shown as ``⏎`` so a
value cannot forge a row of a table.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["BIDI_CONTROLS", "LINE_BREAKS", "strip_controls", "terminal_safe", "unsafe_characters"]

BIDI_CONTROLS: Final = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""The Unicode characters that reorder what follows them on screen (embeddings, overrides, isolates and marks)."""
LINE_BREAKS: Final = frozenset("\n\u2028\u2029\x85")
"""Characters a terminal or a viewer may start a new line at (U+0085 NEL is also a C1 control)."""

_PICTURE = {code: chr(0x2400 + code) for code in range(0x20)}  # U+2400..241F: ␀ … ␛ … ␟
_PICTURE[0x1B] = "␛"
_PICTURE[0x7F] = "␡"

_MULTI: Final[dict[int, str]] = {
    **{code: picture for code, picture in _PICTURE.items() if code not in (0x09, 0x0A)},
    **{code: f"\\x{code:02x}" for code in range(0x80, 0xA0)},
    **{ord(ch): f"\\u{ord(ch):04x}" for ch in BIDI_CONTROLS},
    0x2028: "\\u2028",
    0x2029: "\\u2029",
}
"""Text of several lines: tab and newline stay, every other control is made visible."""
_ONE: Final[dict[int, str]] = {**_MULTI, 0x09: " ", 0x0A: "⏎", 0x2028: "⏎", 0x2029: "⏎", 0x85: "⏎"}
"""One line (a cell, a title, a name): a newline is shown as ⏎, so it cannot start a row of its own."""



def _any_of(table: dict[int, str]) -> re.Pattern[str]:
    return re.compile("[" + "".join(re.escape(chr(code)) for code in sorted(table)) + "]")


_FOUND_ONE, _FOUND_MULTI = _any_of(_ONE), _any_of(_MULTI)


def terminal_safe(text: str, *, one_line: bool = True) -> str:
    """``text`` with every control character shown instead of obeyed.

    Args:
        text: a value from session data or an agent config (or a message that quotes one).
        one_line: the value sits where one line is meant (a table cell, a title, a name): newlines become ``⏎``
            and tabs spaces; otherwise tab and newline are kept.

    Returns:
        The same text when it holds nothing to show differently (the common case, and no copy is made).
    """
    if (_FOUND_ONE if one_line else _FOUND_MULTI).search(text) is None:
        return text
    return text.translate(_ONE if one_line else _MULTI)


_REMOVED: Final[dict[int, None]] = dict.fromkeys(_ONE)


def strip_controls(text: str) -> str:
    """``text`` without the characters :func:`terminal_safe` would show: for text already laid out cell by cell
    (an editor's line), where a terminal gives each of them no width and a visible stand-in would shift the line."""
    if _FOUND_ONE.search(text) is None:
        return text
    return text.translate(_REMOVED)


def unsafe_characters(text: str, *, one_line: bool = True) -> list[str]:
    """The characters of ``text`` that :func:`terminal_safe` would change (what a test asserts is gone)."""
    table = _ONE if one_line else _MULTI
    return [ch for ch in text if ord(ch) in table and table[ord(ch)] != ch]
