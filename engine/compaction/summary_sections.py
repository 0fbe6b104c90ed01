"""Earlier compaction summaries read back item by item, whoever wrote them (pi, OpenClaw, ctxscope).

A summary is split at its ``##`` headings; each heading is mapped to a kind (:data:`KINDS`) by its name — pi's
``Goal``, ``Constraints & Preferences``, ``Progress`` (with ``### Done``/``### In Progress``/``### Blocked``),
``Key Decisions``, ``Next Steps``, ``Critical Context`` and the split-turn ``Original Request``/``Early
Progress``/``Context for Suffix``; OpenClaw's ``Decisions``, ``Open TODOs``, ``Constraints/Rules``, ``Pending
user asks``, ``Exact identifiers``; ctxscope's own — and any other heading is kept as an ``other`` section under
its own name. Within a section every bullet, numbered item, checkbox, table row, fenced code block, paragraph
and ``###`` group (the sub-heading with everything under it) is one :class:`SummaryItem`, its text verbatim
(continuation lines included). ``<read-files>``/``<modified-files>`` blocks and pinned messages are returned
apart. Nothing is dropped except placeholders (``None.``) and ctxscope's own status lines, which each new
summary states afresh.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final

__all__ = [
    "CARRIED_KINDS",
    "HEADER_PREFIX",
    "KINDS",
    "ParsedSummary",
    "SummaryItem",
    "heading_kind",
    "item_key",
    "parse_summary",
]

HEADER_PREFIX: Final = "[ctxscope compaction"
KINDS: Final = ("goal", "decisions", "constraints", "todos", "in_progress", "blocked", "done", "asks", "identifiers",
                "context", "superseded", "omitted", "other", "status")
"""What an item is. ``status`` is ctxscope's own "when compacted" state, restated by every summary."""
CARRIED_KINDS: Final = frozenset(KINDS) - {"status"}

_HEADINGS: Final = {
    "goal": "goal", "goals": "goal", "objective": "goal", "primary request and intent": "goal",
    "decisions": "decisions", "key decisions": "decisions", "key decisions made": "decisions",
    "decisions made": "decisions", "design decisions": "decisions",
    "constraints/rules": "constraints", "constraints & preferences": "constraints", "constraints": "constraints",
    "constraints and preferences": "constraints", "constraints & rules": "constraints", "rules": "constraints",
    "user preferences": "constraints", "preferences": "constraints",
    "open todos": "todos", "todos": "todos", "todo": "todos", "next steps": "todos", "open items": "todos",
    "remaining work": "todos", "open questions": "todos",
    "in progress": "in_progress", "current work": "in_progress",
    "blocked": "blocked", "blockers": "blocked",
    "done": "done", "completed": "done", "completed work": "done", "early progress": "done",
    "pending user asks": "asks", "user asks": "asks", "pending asks": "asks", "original request": "context",
    "exact identifiers": "identifiers", "identifiers": "identifiers",
    "critical context": "context", "context for suffix": "context", "key context": "context",
    "superseded": "superseded", "superseded (no longer current)": "superseded",
    "omitted for size": "omitted",
}
_PLACEHOLDERS: Final = frozenset({
    "none", "none.", "(none)", "- none.", "none captured.", "no prior history.", "none recorded", "n/a", "[x] (none)",
    "[ ] (none)",
})
_BOILERPLATE: Final = frozenset({
    "The kept messages continue this turn from the point of the cut.",
    "---", "**Turn Context (split turn):**",
})
_STATUS_PREFIXES: Final = ("Tools used: ", "Last tool call: ", "Status when compacted: ", "Last step before the cut: ",
                            "Latest user message: ", "Values quoted in the last messages ")
_TOOL_CALL_LINE: Final = re.compile(r"^[A-Za-z_][\w.-]*\(.*\)$")
"""A tool call on one line, as pi's split-turn progress lists them (``Read(path="src/a.py")``)."""
_INTENT_LINE: Final = re.compile(
    r"^(?:(?:now|first|next|ok(?:ay)?|great|perfect|good)[,!.]?\s+)*(?:let me|i'll|i will|i need to|i'm going to)\b",
    re.IGNORECASE,
)
"""An agent's announcement of its next step ("Now let me check the provider"): intent, not work done."""
_FILE_BLOCK: Final = re.compile(r"<(read-files|modified-files)>\n?(.*?)\n?</\1>", re.DOTALL)
_BULLET: Final = re.compile(r"^( {0,3})(?:[-*+•]|(\d{1,3})[.)])\s+(.*)$")
_CHECK: Final = re.compile(r"^\[([ xX])\]\s*(.*)$")
_FENCE: Final = re.compile(r"^\s*(`{3,}|~{3,})")
_TABLE_RULE: Final = re.compile(r"^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_PARENTHETICAL: Final = re.compile(r"\s*\([^)]*\)\s*$")


@dataclass(frozen=True, slots=True)
class SummaryItem:
    """One item of a summary: its verbatim text, what it is, and where it is kept verbatim."""

    text: str
    """Without its list marker; continuation lines kept (several lines for code, groups and long bullets)."""
    kind: str
    section: str = ""
    """The heading it was found under (an ``other`` item is shown under it again)."""
    form: str = "bullet"
    """``bullet``, ``number``, ``check`` (open box), ``checked``, ``row``, ``code``, ``para`` or ``group``."""
    table: str = ""
    """For a table row: the table's header and rule lines."""
    source: str = ""
    """Where the item is kept verbatim (``compaction entry X``, ``entry Y``), for notes about omitted items."""
    order: int = 0
    """Age: a lower order is older."""
    refs: int = 0
    """How many messages of the summarized span mention it."""


@dataclass(frozen=True, slots=True)
class ParsedSummary:
    """An earlier summary, item by item."""

    items: tuple[SummaryItem, ...] = ()
    pinned: tuple[str, ...] = ()
    """The lines of a ``Pinned messages`` section, verbatim."""
    read_files: tuple[str, ...] = ()
    modified_files: tuple[str, ...] = ()
    headings: tuple[str, ...] = field(default=())
    """Every ``##`` heading met, in order."""


def item_key(text: str) -> str:
    """The comparison form of an item's text: whitespace collapsed."""
    return " ".join(text.split())


def heading_kind(title: str) -> str:
    """The kind of the section a heading opens (``other`` for a heading no writer's template names)."""
    name = title.strip().strip("#*").strip().rstrip(":").strip().lower()
    if name in _HEADINGS:
        return _HEADINGS[name]
    bare = _PARENTHETICAL.sub("", name).strip()
    if bare in _HEADINGS:
        return _HEADINGS[bare]
    if bare.startswith(("completed ", "done ")):
        return "done"
    if bare.startswith(("key decisions", "decisions ")):
        return "decisions"
    if bare.startswith("next steps"):
        return "todos"
    if bare.startswith("superseded"):
        return "superseded"
    if bare.startswith("omitted"):
        return "omitted"
    return "other"


@dataclass(slots=True)
class _Block:
    """Lines of one item being collected."""

    lines: list[str]
    form: str
    indent: int = 0
    checked: bool | None = None
    table: str = ""
    column: int = 0
    """Where the text after the list marker starts: continuation lines are kept relative to it."""


def _blocks(lines: list[str]) -> Iterator[_Block]:
    """The items of one section's lines (``###`` groups are handled by the caller)."""
    current: _Block | None = None
    table_head = ""
    i = 0
    while i < len(lines):
        raw = lines[i]
        stripped = raw.strip()
        if not stripped:
            if current is not None and current.form in ("bullet", "number", "check"):
                following = next((ln for ln in lines[i + 1 :] if ln.strip()), "")
                if following.startswith("  ") and not _BULLET.match(following):
                    current.lines.append("")
                    i += 1
                    continue
            if current is not None:
                yield current
            current, table_head = None, ""
            i += 1
            continue
        fence = _FENCE.match(raw)
        if fence:
            if current is not None:
                yield current
            block = [raw]
            i += 1
            while i < len(lines):
                block.append(lines[i])
                if lines[i].strip().startswith(fence.group(1)) and set(lines[i].strip()) == {fence.group(1)[0]}:
                    break
                i += 1
            yield _Block(block, "code")
            current = None
            i += 1
            continue
        if stripped.startswith("|"):
            if current is not None and current.form != "row":
                yield current
                current = None
            if i + 1 < len(lines) and _TABLE_RULE.match(lines[i + 1].strip()) and not table_head:
                table_head = stripped + "\n" + lines[i + 1].strip()
                i += 2
                continue
            if current is not None:
                yield current
            current = _Block([stripped], "row", table=table_head)
            yield current
            current = None
            i += 1
            continue
        bullet = _BULLET.match(raw)
        indent = len(raw) - len(raw.lstrip(" "))
        if bullet and (current is None or current.form in ("para", "row") or indent <= current.indent + 1):
            if current is not None:
                yield current
            text = bullet.group(3)
            check = _CHECK.match(text)
            column = bullet.start(3)
            if check:
                current = _Block([check.group(2)], "check", indent, checked=check.group(1) in "xX",
                                 column=column + check.start(2))
            else:
                current = _Block([text], "number" if bullet.group(2) else "bullet", indent, column=column)
            i += 1
            continue
        if current is not None and current.form in ("bullet", "number", "check"):
            base = current.column
            current.lines.append(raw[base:] if raw[:base].strip() == "" else raw.strip())
        elif current is not None and current.form == "para":
            current.lines.append(stripped)
        else:
            if current is not None:
                yield current
            current = _Block([stripped], "para")
        i += 1
    if current is not None:
        yield current


def _split_sections(text: str) -> Iterator[tuple[str, str, list[str]]]:
    """``(heading, sub-heading, lines)`` runs; the text before any heading has the heading ``""``."""
    heading, sub, lines = "", "", []
    fence = ""
    for raw in text.splitlines():
        line = raw.rstrip()
        opener = _FENCE.match(line)
        if opener and not fence:
            fence = opener.group(1)
        elif fence and line.strip().startswith(fence) and set(line.strip()) == {fence[0]}:
            fence = ""
        if fence or (opener and not fence):
            lines.append(line)
        elif line.startswith("## "):
            yield heading, sub, lines
            heading, sub, lines = line[3:].strip(), "", []
        elif line.startswith("### ") and heading.strip().lower() == "progress":
            yield heading, sub, lines
            sub, lines = line[4:].strip(), []
        else:
            lines.append(line)
    yield heading, sub, lines


def _groups(lines: list[str]) -> Iterator[tuple[str | None, list[str]]]:
    """Lines before the first ``###`` (``None``), then each ``###`` title with the lines under it."""
    title: str | None = None
    body: list[str] = []
    fence = ""
    for line in lines:
        opener = _FENCE.match(line)
        if opener and not fence:
            fence = opener.group(1)
        elif fence and line.strip().startswith(fence) and set(line.strip()) == {fence[0]}:
            fence = ""
        elif not fence and line.startswith("### "):
            yield title, body
            title, body = line[4:].strip(), []
            continue
        body.append(line)
    yield title, body


def _section_kind(heading: str, sub: str) -> str:
    if heading.strip().lower() == "progress":
        return heading_kind(sub) if sub else "in_progress"
    if not heading:
        return "other"
    return heading_kind(heading)


def parse_summary(text: str, *, source: str = "", newest_first: frozenset[str] = frozenset({"asks"})) -> ParsedSummary:
    """``text`` (a compaction summary) item by item; ``source`` says where it is kept verbatim.

    Items get ``order`` by position (older first), except in kinds listed in ``newest_first`` (OpenClaw lists
    pending asks latest first), whose positions are reversed.
    """
    read: list[str] = []
    modified: list[str] = []
    for match in _FILE_BLOCK.finditer(text):
        names = [ln.strip() for ln in match.group(2).splitlines() if ln.strip()]
        (read if match.group(1) == "read-files" else modified).extend(names)
    body = _FILE_BLOCK.sub("", text)
    lines = [ln for ln in body.splitlines() if not ln.startswith(HEADER_PREFIX)]
    if lines and lines[0].startswith("Focus: "):
        lines = lines[1:]
    items: list[SummaryItem] = []
    pinned: list[str] = []
    headings: list[str] = []
    for heading, sub, section_lines in _split_sections("\n".join(lines)):
        if heading and (not headings or headings[-1] != heading):
            headings.append(heading)
        if heading.strip().lower() == "pinned messages":
            pinned += section_lines
            continue
        kind = _section_kind(heading, sub)
        section = heading or "Earlier context"
        run: list[SummaryItem] = []
        for title, group_lines in _groups(section_lines):
            if title is not None:
                group = "\n".join([f"### {title}", *group_lines]).rstrip()
                run.append(SummaryItem(group, kind, section, "group", source=source))
                continue
            for block in _blocks(group_lines):
                item = _item(block, kind, section, source)
                if item is not None:
                    run.append(item)
        if kind in newest_first:
            run.reverse()
        items += run
    numbered = tuple(_with_order(item, i) for i, item in enumerate(items))
    return ParsedSummary(numbered, tuple(pinned), tuple(dict.fromkeys(read)), tuple(dict.fromkeys(modified)),
                         tuple(headings))


def _with_order(item: SummaryItem, order: int) -> SummaryItem:
    return SummaryItem(item.text, item.kind, item.section, item.form, item.table, item.source, order, item.refs)


def _item(block: _Block, kind: str, section: str, source: str) -> SummaryItem | None:
    text = "\n".join(block.lines).strip("\n")
    if block.form == "code":
        text = "\n".join(block.lines)
    flat = item_key(text)
    if not flat or flat.lower() in _PLACEHOLDERS or flat in _BOILERPLATE:
        return None
    if kind in ("in_progress", "other") and any(flat.startswith(p) for p in _STATUS_PREFIXES):
        return SummaryItem(text, "status", section, block.form, source=source)
    if section.lower() == "early progress" and (_TOOL_CALL_LINE.match(flat) or _INTENT_LINE.match(flat)):
        # A split turn's tool calls say how the turn went, not what was done: the next summary restates its own
        # split turn, and the paths they name are carried as identifiers (docs/compaction.md).
        return SummaryItem(text, "status", section, block.form, source=source)
    form = "checked" if block.form == "check" and block.checked else block.form
    if form == "checked" and kind in ("todos", "in_progress", "blocked", "asks"):
        kind = "done"
    return SummaryItem(text, kind, section, form, block.table, source)
