"""A merged summary written in the format of the agent that reads it, within a token budget, never cut mid-item.

* ``pi`` — pi's template (``## Goal``, ``## Constraints & Preferences``, ``## Progress`` with ``### Done`` /
  ``### In Progress`` / ``### Blocked``, ``## Key Decisions``, ``## Next Steps``, ``## Critical Context``), then
  ``## Pending User Asks`` and ``## Exact Identifiers`` when there are any;
* ``openclaw`` — OpenClaw's five required sections first and in order (``## Decisions``, ``## Open TODOs``,
  ``## Constraints/Rules``, ``## Pending user asks`` with the latest unresolved ask first, ``## Exact
  identifiers`` verbatim), then the goal, work in progress, blockers and completed work (completed requests
  live there, never under pending asks), critical context.

Both then carry every other section of the earlier summaries under its own heading, the superseded items
(``## Superseded (no longer current)``), notes about items left out for size, pinned messages, pi's split-turn
block and the ``<read-files>``/``<modified-files>`` blocks. Items keep their form (bullets, numbered steps,
checkboxes, table rows under their header, code blocks, ``###`` groups).

When the summary exceeds its budget, whole items are left out — the least valuable kinds first (status,
superseded, done, other sections, context … decisions and constraints last), within a kind the least referenced
and then the oldest — and a note per kind says how many and where they are kept verbatim.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Final

from engine.compaction.identifiers import minimal_identifiers
from engine.compaction.span_text import format_file_operations
from engine.compaction.summary_extract import TurnContext
from engine.compaction.summary_sections import SummaryItem

__all__ = ["FORMATS", "OPENCLAW_HEADINGS", "TURN_CONTEXT", "RenderedSummary", "SummaryParts", "render_summary"]

FORMATS: Final = ("pi", "openclaw")
OPENCLAW_HEADINGS: Final = ("Decisions", "Open TODOs", "Constraints/Rules", "Pending user asks", "Exact identifiers")
"""OpenClaw's required summary sections, each once and in this order (its quality audit checks both)."""
TURN_CONTEXT: Final = "---\n\n**Turn Context (split turn):**"
"""pi's separator before the summary of a split turn's prefix."""
_DROP_RANK: Final = {
    "status": 0, "superseded": 1, "done": 2, "other": 3, "context": 4, "in_progress": 5, "blocked": 5, "goal": 6,
    "identifiers": 6, "todos": 7, "asks": 7, "constraints": 8, "decisions": 8, "omitted": 9,
}
_LABELS: Final = {
    "decisions": "decisions", "constraints": "constraints", "todos": "open TODOs", "asks": "user asks",
    "identifiers": "identifiers", "done": "done items", "superseded": "superseded items", "context": "context items",
    "goal": "goal items", "in_progress": "in-progress items", "blocked": "blockers", "status": "status lines",
}
_PLAIN: Final = frozenset({"bullet", "number", "check", "checked", "para"})


@dataclass(frozen=True, slots=True)
class SummaryParts:
    """Everything a structured summary is made of."""

    head: tuple[str, ...]
    """The header line and the focus line."""
    items: tuple[SummaryItem, ...]
    pinned: tuple[str, ...] = ()
    turn: TurnContext | None = None
    read_files: tuple[str, ...] = ()
    modified_files: tuple[str, ...] = ()
    required: tuple[str, ...] = ()
    """Item texts the size budget never leaves out (what OpenClaw's quality audit checks)."""
    transcript: str = ""
    """The transcript that holds the items' sources verbatim, named in the notes about items left out."""


@dataclass(frozen=True, slots=True)
class RenderedSummary:
    """The summary text and what the budget left out."""

    text: str
    omitted: tuple[SummaryItem, ...] = ()


@dataclass(frozen=True, slots=True)
class _Section:
    heading: str
    items: tuple[SummaryItem, ...]
    style: str = "bullet"
    """``bullet``, ``number``, ``checked``, ``check`` or ``para`` — how plain items are marked."""
    empty: str | None = None
    """What to write when there are no items (``None``: leave the section out)."""
    level: int = 2


def _plain(item: SummaryItem, style: str, number: int) -> str:
    form = item.form if item.kind == "other" else style
    if form == "para":
        return item.text
    marker = {"number": f"{number}. ", "check": "- [ ] ", "checked": "- [x] "}.get(form, "- ")
    first, *rest = item.text.split("\n")
    # Continuation lines sit under the text, past the marker, so they read back as part of this item.
    return "\n".join([marker + first, *(" " * len(marker) + line if line else "" for line in rest)])


def _section_lines(section: _Section) -> list[str]:
    hashes = "#" * section.level
    if not section.items:
        return [] if section.empty is None else [f"{hashes} {section.heading}", section.empty, ""]
    plain = [i for i in section.items if i.form in _PLAIN and not (i.form == "para" and i.kind == "other")]
    paras = [i for i in section.items if i.form == "para" and i.kind == "other"]
    rows = [i for i in section.items if i.form == "row"]
    blocks = [i for i in section.items if i.form == "code"]
    groups = [i for i in section.items if i.form == "group"]
    out = [f"{hashes} {section.heading}"]
    style = section.style
    if style == "para" and len(plain) > 1:
        style = "bullet"
    out += [_plain(item, style, n) for n, item in enumerate(plain, start=1)]
    for item in paras:
        out += ["", item.text] if out[-1] else [item.text]
    tables: dict[str, list[str]] = {}
    for item in rows:
        tables.setdefault(item.table, []).append(item.text)
    for head, lines in tables.items():
        out += [""] + ([head] if head else []) + lines
    for item in [*blocks, *groups]:
        out += ["", item.text]
    return [*out, ""]


def _ordered(items: Sequence[SummaryItem], kind: str | tuple[str, ...], *, newest_first: bool = False) -> tuple[
        SummaryItem, ...]:
    kinds = (kind,) if isinstance(kind, str) else kind
    chosen = sorted((i for i in items if i.kind in kinds), key=lambda i: i.order, reverse=newest_first)
    return tuple(chosen)


def _others(items: Sequence[SummaryItem]) -> list[_Section]:
    sections: dict[str, list[SummaryItem]] = {}
    for item in sorted((i for i in items if i.kind == "other"), key=lambda i: i.order):
        sections.setdefault(item.section or "Earlier context", []).append(item)
    return [_Section(name, tuple(members)) for name, members in sections.items()]


def _layout(items: Sequence[SummaryItem], identifiers: tuple[SummaryItem, ...], fmt: str) -> list[_Section]:
    if fmt == "pi":
        core = [
            _Section("Goal", _ordered(items, "goal"), "para", "(not recorded)"),
            _Section("Constraints & Preferences", _ordered(items, "constraints"), empty="- (none)"),
            _Section("Progress", (), empty=""),
            _Section("Done", _ordered(items, "done"), "checked", "- (none)", 3),
            _Section("In Progress", _ordered(items, ("in_progress", "status")), "check", "- (none)", 3),
            _Section("Blocked", _ordered(items, "blocked"), empty="- (none)", level=3),
            _Section("Key Decisions", _ordered(items, "decisions"), empty="- (none)"),
            _Section("Next Steps", _ordered(items, "todos"), "number", "- (none)"),
            _Section("Critical Context", _ordered(items, "context"), empty="- (none)"),
            _Section("Pending User Asks", _ordered(items, "asks")),
            _Section("Exact Identifiers", identifiers),
        ]
    else:
        core = [
            _Section("Decisions", _ordered(items, "decisions"), empty="- None."),
            _Section("Open TODOs", _ordered(items, "todos"), empty="- None."),
            _Section("Constraints/Rules", _ordered(items, "constraints"), empty="- None."),
            _Section("Pending user asks", _ordered(items, "asks", newest_first=True), empty="- None."),
            _Section("Exact identifiers", identifiers, empty="- None."),
            _Section("Goal", _ordered(items, "goal"), "para"),
            _Section("In progress", _ordered(items, ("in_progress", "status"))),
            _Section("Blocked", _ordered(items, "blocked")),
            _Section("Done", _ordered(items, "done"), "checked"),
            _Section("Critical context", _ordered(items, "context")),
        ]
    return [*core, *_others(items), _Section("Superseded (no longer current)", _ordered(items, "superseded")),
            _Section("Omitted for size", _ordered(items, "omitted"))]


def _assemble(parts: SummaryParts, items: Sequence[SummaryItem], identifiers: tuple[SummaryItem, ...],
              fmt: str) -> str:
    out = [*parts.head, ""]
    for section in _layout(items, identifiers, fmt):
        out += ["## Progress"] if section.heading == "Progress" and fmt == "pi" else _section_lines(section)
    if parts.pinned:
        out += ["## Pinned messages", *parts.pinned, ""]
    if parts.turn is not None:
        out += [TURN_CONTEXT, "", "## Original Request", parts.turn.request or "(none)", "", "## Early Progress",
                *([f"- {line}" for line in parts.turn.progress] or ["- (none)"]), "", "## Context for Suffix",
                "- The kept messages continue this turn from the point of the cut.", ""]
    return "\n".join(out).rstrip() + format_file_operations(parts.read_files, parts.modified_files)


def _compose(parts: SummaryParts, items: Sequence[SummaryItem], fmt: str) -> str:
    """The summary text; identifiers that the rest of it already holds verbatim are not listed twice. The split
    turn's block does not count: the next summary restates it without its tool calls, so an identifier only
    there would be lost."""
    identifiers = sorted((i for i in items if i.kind == "identifiers"), key=lambda i: i.order)
    rest = [i for i in items if i.kind != "identifiers"]
    draft = _assemble(replace(parts, turn=None), rest, (), fmt)
    kept = set(minimal_identifiers([i.text for i in identifiers], draft))
    return _assemble(parts, rest, tuple(i for i in identifiers if i.text in kept), fmt)


def _note(kind: str, dropped: Sequence[SummaryItem], transcript: str) -> SummaryItem:
    label = _LABELS.get(kind) or (f"items of “{dropped[0].section}”" if dropped else "items")
    sources = list(dict.fromkeys(i.source for i in dropped if i.source))
    where = "; ".join(sources[:3]) + (f" and {len(sources) - 3} more" if len(sources) > 3 else "")
    if where and transcript:
        where += f" of {transcript}"
    text = f"+{len(dropped)} {label} not shown (size budget)" + (f": verbatim in {where}" if where else "")
    order = max(i.order for i in dropped)
    return SummaryItem(text, "omitted", order=order)


def render_summary(
    parts: SummaryParts, fmt: str, *, max_tokens: int | None = None, count: Callable[[str], int] | None = None
) -> RenderedSummary:
    """``parts`` as text in ``fmt`` (``pi`` or ``openclaw``), leaving whole items out to fit ``max_tokens``.

    Raises:
        ValueError: unknown ``fmt``, or a budget without ``count``.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown summary format {fmt!r}; choose one of {', '.join(FORMATS)}")
    items = list(parts.items)
    text = _compose(parts, items, fmt)
    if max_tokens is None:
        return RenderedSummary(text)
    if count is None:
        raise ValueError("a token budget needs a token counter")
    size = count(text)
    if size <= max_tokens:
        return RenderedSummary(text)
    keep = set(parts.required)
    candidates = sorted((i for i in items if i.kind != "omitted" and i.text not in keep),
                        key=lambda i: (_DROP_RANK.get(i.kind, 3), i.refs, i.order))
    costs = [count(i.text) + 3 for i in candidates]
    dropped: list[SummaryItem] = []
    excess = size - max_tokens
    position = 0
    while position < len(candidates):
        budget_needed = excess + 40 * len({i.kind for i in dropped} | {candidates[position].kind})
        freed = 0
        while position < len(candidates) and freed < budget_needed:
            dropped.append(candidates[position])
            freed += costs[position]
            position += 1
        remaining = [i for i in items if all(i is not d for d in dropped)]
        by_kind: dict[str, list[SummaryItem]] = {}
        for item in dropped:
            by_kind.setdefault(item.kind if item.kind != "other" else f"other:{item.section}", []).append(item)
        notes = [_note(kind.split(":", 1)[0], group, parts.transcript) for kind, group in by_kind.items()]
        text = _compose(parts, [*remaining, *notes], fmt)
        size = count(text)
        if size <= max_tokens:
            break
        excess = size - max_tokens
    return RenderedSummary(text, tuple(dropped))
