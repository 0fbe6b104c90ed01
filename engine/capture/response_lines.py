"""The lines of an agent response as a reader sees them: paragraphs, list items, headings, code-fence context.

Code fences are skipped (an unclosed fence runs to the end); a line right after a fence is marked, because
agents often state a new decision just below the code that held the old one. Nothing here decides anything:
:mod:`engine.capture.decision_features` reads these lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engine.capture.dedup import fold
from engine.capture.language.phrases import words

__all__ = ["Line", "clean", "parse", "sentences"]

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_BULLET = re.compile(r"^(?:[-*+•])\s+")
_NUMBERED = re.compile(r"^(?P<n>\d{1,2})[.)]\s+")
_HEADING = re.compile(r"^#{1,6}\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？])")
_NOT_A_STOP = re.compile(r"(?:\d|\b\w)[.]$")
_BOLD_LINE = re.compile(r"^\*\*[^*]+\*\*:?$")
_MAX_LINES = 400


@dataclass(slots=True)
class Line:
    """One line of a response outside code fences."""

    raw: str
    """The line as written, stripped."""
    text: str
    """The line without list markers, bold or heading hashes (:func:`clean`)."""
    para: int
    """Paragraph number; a code fence starts a new paragraph."""
    kind: str
    """One of: text, item, heading, bold, quote, table."""
    number: int = 0
    """The number of a numbered list item (0 for other lines)."""
    after_fence: bool = False
    group: int = -1
    """Index of the list group of an item (-1 for other lines)."""
    key: str = ""
    """Folded ``text``."""
    tokens: list[str] = field(default_factory=list)
    """Words of ``key``."""


def clean(line: str) -> str:
    """A line without list markers, emphasis markers or heading hashes, whitespace collapsed."""
    line = _NUMBERED.sub("", _BULLET.sub("", _HEADING.sub("", line.strip())))
    return " ".join(line.replace("**", "").replace("__", "").split())


def sentences(line: str) -> list[str]:
    """``line`` split into sentences; a piece starting in lower case, or after "7." or "d.o.o.", continues."""
    pieces = _SENTENCE_END.split(line)
    out = [pieces[0]]
    for piece in pieces[1:]:
        if not piece:
            continue  # a line ending in "。" leaves an empty piece after the split
        if piece[0].islower() or _NOT_A_STOP.search(out[-1]):
            out[-1] += " " + piece
        else:
            out.append(piece)
    return out


def _kind(stripped: str) -> tuple[str, int]:
    if stripped.startswith(">"):
        return "quote", 0
    if stripped.startswith("|"):
        return "table", 0
    if _HEADING.match(stripped):
        return "heading", 0
    numbered = _NUMBERED.match(stripped)
    if numbered:
        return "item", int(numbered.group("n"))
    if _BULLET.match(stripped):
        return "item", 0
    return ("bold" if _BOLD_LINE.match(stripped) else "text"), 0


def parse(text: str) -> list[Line]:
    """Lines of ``text`` outside code fences with their paragraph, kind, list number and fence context."""
    lines: list[Line] = []
    fence, para, fence_closed, blank = "", 0, False, True
    for raw in text.splitlines()[:_MAX_LINES]:
        opener = _FENCE.match(raw)
        if fence:
            stripped = raw.strip()
            if opener and set(stripped) == {fence[0]} and len(stripped) >= len(fence):
                fence, fence_closed = "", True
            continue
        if opener:
            fence, para = opener.group(1), para + 1
            continue
        stripped = raw.strip()
        if not stripped:
            para += 0 if blank else 1
            blank = True
            continue
        blank = False
        kind, number = _kind(stripped)
        text_ = clean(stripped)
        key = fold(text_)
        lines.append(Line(stripped, text_, para, kind, number, fence_closed, -1, key, words(key)))
        fence_closed = False
    group, previous = -1, ""
    for line in lines:
        if line.kind == "item":
            group += previous != "item"
            line.group = group
        previous = line.kind
    return lines
