"""Material the user pasted into a message, found by its shape (docs/capture.md, Pasted material).

Users paste web pages, articles, documentation, terminal output and stack traces into their turn. The rules and
orders inside that text are the page's or the program's, not the user's: "You must be signed in", "Always use the
Files API when …", "warning, text too long". The shapes are language-independent -- log lines (timestamps, level
prefixes, tracebacks, progress bars, shell prompts), a page's link lists and headings, a line ending in a URL with
the page's text under it, and the typography of a rendered document (curly quotes, bullets, the object-replacement
character) over a long run of paragraphs. The user's own sentence that introduces or follows the paste stays the
user's: only the lines in the paste are returned.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["pasted_lines"]

_LOG: Final = re.compile(
    r"\b\d{4}-\d\d-\d\d[ T]\d\d:\d\d"  # a timestamp
    r"|^\s*\[?\d\d:\d\d:\d\d\b"
    r"|[█▏▎▍▌▋▊▉░▒▓]{3}|\b\d{1,3}%\|"  # a progress bar
    r"|^\s*Traceback \(|^\s*File \"[^\"]+\", line \d+|^\s*[\^~]{3,}\s*$"
    r"|^\s*at [\w$.<>]+ \(\S+:\d+(?::\d+)?\)"
    r"|^\s*\[?(?:warning|warn|error|err|info|debug|fatal|trace|critical|notice)\]?[:,\]] "
    # A level after the tool's mark or name: "🦋  warn You are in prerelease mode", "npm notice", "npm error code 1".
    r"|^\s*(?:[^\w\s*+#>|`'\"(\[-]{1,3}|npm|npx|yarn|pnpm|bun)\s+(?:warning|warn|error|err!|info|notice)\b"
    r"|^\s*(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Warning)\b"
    r"|^\s*(?:[A-Za-z]:)?[/\\]?(?:[\w.~-]+[/\\])+[\w.-]+\.\w+:\d+"  # a path with a line number, first on the line
    r"|^\s*(?:\$|❯|➜|PS [A-Z]:\\|[\w.-]+@[\w.-]+:\S*[$#])\s"  # a shell prompt
    r"|^\s*[A-Z]:\\[^>\n]*>\S"  # Windows' prompt before its command ("C:\\Users\\me\\app>npx tailwindcss init")
    r"|^\s*[✔✖✗]\s"  # a CLI's status mark
    # Claude Code's own screen copied back into it: a step's mark, a result under it, a tool call as it shows one
    # ("● Read(/home/…/tdd-test-writer.md)", "  ⎿  Read 15 lines", claude-zibe d104; "⏺ You renamed …", duet d79).
    r"|^\s*[⏺●⎿]\s"
    r"|^\s*(?:Read|Write|Edit|Update|MultiEdit|Bash|Grep|Glob|Search|Task|WebFetch|WebSearch|TodoWrite)\([^)\n]*\)\s*$"
    r"|^\s*\[[\w@/.:-]{2,40}\]\s",  # a tool's tag before its line ("[nodemon] starting", "[my-script] Converted")
    re.I,
)
"""A line a program printed. Level prefixes and exception names are matched at the start of the line only."""
_LINK: Final = re.compile(r"\[[^\]\n]*\]\([^)\s]+\)")
_WEB: Final = re.compile(r"^\s*(?:#{1,6} |-\s+\[|>\s)")
"""A page's heading, link-list item or quoted block, as a page converted to markdown has them."""
_ENDS_IN_URL: Final = re.compile(r"(?:^|\s)<?https?://[^\s\"'<>()\[\]]+>?[.,:;!?]?\s*$")
"""A bare URL that ends a line, not one quoted in code or JSON (``"url": "http://…",``)."""
_RENDERED: Final = re.compile(r"[’‘“”•￼⸻]")
"""Typography a browser or word processor renders and a chat box does not produce: curly quotes, bullets, the
object-replacement character that copied images leave."""
_FENCE: Final = ("```", "~~~")

DOCUMENT_CHARS: Final = 2000
"""A rendered-typography run counts as a pasted document only in a message this long: a typed sentence may carry
a curly apostrophe ("I’d like"), a pasted article carries dozens."""

DOCUMENT_MARKS: Final = 3
"""Paragraphs that must be pasted or carry that typography: a typed prompt drafted in a word processor has a pair
of curly quotes and a line of attachments (ubi-course d11), a pasted article or page has them all through."""


def _paragraphs(lines: list[str]) -> list[list[int]]:
    """Indices of the lines of each paragraph (runs of non-blank lines)."""
    out: list[list[int]] = []
    run: list[int] = []
    for index, line in enumerate(lines):
        if line.strip():
            run.append(index)
        elif run:
            out.append(run)
            run = []
    if run:
        out.append(run)
    return out


def _machine(line: str) -> bool:
    """A line printed by a program or taken from a page, not typed."""
    links = _LINK.findall(line)
    return bool(_LOG.search(line) or _WEB.match(line) or (links and sum(map(len, links)) * 2 >= len(line.strip())))


def pasted_lines(text: str) -> frozenset[int]:
    """The indices (in ``text.splitlines()``) of the lines of ``text`` that were pasted, not typed.

    A paragraph whose lines after its introduction (a first line ending in ``:``) are mostly machine-shaped is
    pasted; so is every line after a line that ends in a bare URL, when at least two follow (the page's text); and
    in a long message, every paragraph from the first to the last one that is pasted or carries a rendered
    document's typography.
    """
    if "\n" not in text:
        return frozenset()
    lines = text.splitlines()
    pasted: set[int] = set()
    paragraphs = _paragraphs(lines)
    for para in paragraphs:
        # SpecStory escapes a line break typed after the colon as a trailing backslash ("… got this error:\\").
        intro = lines[para[0]].rstrip().rstrip("\\").rstrip()
        body = para[1:] if intro.endswith((":", "：")) and len(para) > 1 else para
        machine = [i for i in body if _machine(lines[i])]
        if machine and (len(machine) * 5 >= len(body) * 2 or len(body) == 1):
            # From its first printed line to its last: the user's "fix this build error" above a log and "please
            # fix" typed right under it stay the user's.
            pasted.update(range(machine[0], machine[-1] + 1))
    # A URL at the end of a line with the page's text under it: "did you read this? https://…" and two lines of it.
    nonblank = [i for i, line in enumerate(lines) if line.strip()]
    for position, index in enumerate(nonblank[:-2]):
        if _ENDS_IN_URL.search(lines[index]) and not _ENDS_IN_URL.search(lines[nonblank[position + 1]]):
            pasted.update(nonblank[position + 1:])
            break
    if len(text) >= DOCUMENT_CHARS:
        # The prose between two pasted blocks is the same page's (an article's text between its commands, a
        # README's between its link lists); a rendered document's typography marks its paragraphs too.
        marked = [[i for i in para if i in pasted or _RENDERED.search(lines[i])] for para in paragraphs]
        marked = [m for m in marked if m]
        if len(marked) >= DOCUMENT_MARKS:
            # From the first marked line to the last: the user's words above and below the document stay theirs.
            pasted.update(i for i in range(marked[0][0], marked[-1][-1] + 1) if lines[i].strip())
    # Fence lines stay as they are, so the fenced code the caller skips is still fenced.
    return frozenset(i for i in pasted if not lines[i].lstrip().startswith(_FENCE))
