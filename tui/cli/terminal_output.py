"""What the command line writes passes through one rule: nothing from a session drives the terminal
(docs/hostile-input.md).

Every text command runs inside :func:`guarded_output`: whatever reaches stdout has its control characters shown
(:func:`engine.text.terminal.terminal_safe`, newlines and tabs kept), and each message on stderr is one line. Values
printed where one line is meant (a table cell, a key, a tool name) also go through :func:`cell`, so a newline in a
session key cannot forge a row. JSON keeps every value exact: :func:`json_text` escapes the characters JSON lets
through raw (C1 controls, bidi controls, line separators) as ``\\uXXXX``, which parse back to the same string.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

import orjson

from engine import terminal_safe
from engine.text.terminal import BIDI_CONTROLS

__all__ = ["cell", "guarded_buffers", "guarded_output", "json_text", "spreadsheet_cell"]


def cell(value: object) -> str:
    """``value`` as one line fit for a terminal: a table cell, a name, a key."""
    return terminal_safe(str(value))


_JSON_RAW = {code: f"\\u{code:04x}" for code in [0x7F, *range(0x80, 0xA0), 0x2028, 0x2029,
                                                  *(ord(ch) for ch in BIDI_CONTROLS)]}


def json_text(value: Any, option: int = orjson.OPT_INDENT_2) -> str:
    """``value`` as JSON text whose strings hold no raw control character (orjson escapes C0 only)."""
    return orjson.dumps(value, option=option).decode().translate(_JSON_RAW)


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_cell(value: object) -> object:
    """A CSV cell a spreadsheet will not run: text starting like a formula gets a leading ``'`` (OWASP's CSV
    injection advice); numbers stay numbers, so a negative figure is not quoted."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


class _Guarded:
    """A text stream whose writes have their control characters shown (``one_line``: each write is one line)."""

    def __init__(self, stream: TextIO, *, one_line: bool) -> None:
        self._stream = stream
        self._one_line = one_line

    def write(self, text: str) -> int:
        if self._one_line:
            # print() writes the message and its end separately; a message written with its newline keeps it.
            body, end = (text[:-1], "\n") if text.endswith("\n") else (text, "")
            self._stream.write(terminal_safe(body) + end)
        else:
            self._stream.write(terminal_safe(text, one_line=False))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def guarded_buffers() -> tuple[io.StringIO, io.StringIO, TextIO, TextIO]:
    """Two buffers and the guarded streams that write into them (stdout's, then stderr's): text kept as it is
    shown, to be shown again later."""
    out, err = io.StringIO(), io.StringIO()
    return out, err, _Guarded(out, one_line=False), _Guarded(err, one_line=True)  # type: ignore[return-value]


@contextmanager
def guarded_output() -> Iterator[None]:
    """Within: stdout shows control characters instead of sending them, stderr takes one line per message."""
    out, err = sys.stdout, sys.stderr
    sys.stdout = _Guarded(out, one_line=False)
    sys.stderr = _Guarded(err, one_line=True)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
