"""The checkpoint as the agent reads it: a ``<checkpoint-data …>`` block (docs/checkpoints.md, Rendering).

Sections fill a token budget in selective-loading priority (working, open items, decisions,
thread, resources, learnings): first a few items of each, then the rest, newest first, so a huge list
cannot starve the sections after it. Omitted items are counted in the block. Every value is flattened to
one line, stripped of control characters, and cannot close the block early.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

from engine.accounting.gauge import format_tokens
from engine.accounting.tokens import count_tokens, get_counter
from engine.checkpoints.model import Checkpoint
from engine.checkpoints.yaml_io import replace_lone_surrogates

__all__ = ["DEATH_SPIRAL_THRESHOLD", "RenderedCheckpoint", "render_checkpoint"]

DEATH_SPIRAL_THRESHOLD: Final = 3
"""More compactions than this add a warning line (docs/checkpoints.md, Rendering)."""

_CONTROL: Final = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_TAG: Final = re.compile(r"<(/?)checkpoint-data", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class RenderedCheckpoint:
    """The block to inject, and its size."""

    text: str
    tokens: int
    """Tokens of ``text`` by ``token_method``."""
    token_method: str
    omitted: tuple[str, ...] = ()
    """What did not fit the budget, e.g. ``decisions: 12``."""

    @property
    def trimmed(self) -> bool:
        """Whether anything was left out to fit the budget."""
        return bool(self.omitted)


def _clean(text: str, cap: int) -> str:
    text = _CONTROL.sub("", " ".join(replace_lone_surrogates(text).split()))
    text = _TAG.sub(r"<\1checkpoint_data", text)
    return text if len(text) <= cap else text[: cap - 1].rstrip() + "…"


def _attr(text: str) -> str:
    text = _clean(text, 80)
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")


def _clock(when: str, day: str) -> str:
    try:
        t = datetime.fromisoformat(when)
    except ValueError:
        return ""
    return f" ({t:%H:%M})" if t.date().isoformat() == day else f" ({t:%m-%d %H:%M})"


@dataclass(slots=True)
class _Section:
    """One budgeted part of the block: candidate lines in display order and which of them are shown."""

    name: str
    header: str
    lines: list[str]
    keep_first: int
    """How many to take in the first pass."""
    order: list[int]
    """Indexes of ``lines`` from most to least important."""
    style: str = "bullets"
    """``bullets`` (one ``- item`` each), ``inline`` (joined on the header line) or ``bare`` (lines as is)."""
    chosen: set[int] = field(default_factory=set)

    def render(self) -> list[str]:
        shown = [self.lines[i] for i in sorted(self.chosen)]
        missing = len(self.lines) - len(shown)
        if self.style == "bare":
            return shown
        if not shown:
            return []  # listed in the "Not shown" line instead
        more = f"(+{missing} more)" if missing else ""
        if self.style == "inline":
            return [f"{self.header} {', '.join(shown)} {more}".rstrip()]
        return [self.header, *(f"- {line}" for line in shown), *([f"- … {more}"] if missing else [])]


def _newest_first(n: int) -> list[int]:
    return list(range(n - 1, -1, -1))


def _section(name: str, header: str, lines: list[str], keep_first: int, style: str = "bullets") -> _Section:
    return _Section(name, header, lines, keep_first, _newest_first(len(lines)), style)


def _sections(cp: Checkpoint) -> list[_Section]:
    """The budgeted sections in selective-loading priority."""
    w, res, decisions, day = cp.working, cp.resources, cp.decisions, cp.meta.created_at[:10]
    working = []
    if w.last_tool_call is not None:
        call = w.last_tool_call
        working.append(f"Last tool call: {_clean(call.name, 40)}({_clean(call.params_summary, 120)})")
    if _clean(w.next_action, 2):
        working.append(f"Next action: {_clean(w.next_action, 200)}")
    exchanges = _section(
        "key exchanges", "Key exchanges:", [f"{e.role}: {_clean(e.gist, 130)}" for e in cp.thread.key_exchanges], 2
    )
    if len(exchanges.order) > 2:
        # The last exchanges carry the live state, the first one the original ask.
        exchanges.order.remove(0)
        exchanges.order.insert(2, 0)
    summary = _clean(cp.thread.summary, 250)

    def texts(items: tuple[str, ...], cap: int) -> list[str]:
        return [_clean(x, cap) for x in items]

    return [
        _section("working details", "", working, 2, "bare"),
        _section("open items", "Open items:", texts(cp.open_items, 200), 3),
        _section("decisions", "Decisions made:", [f"{_clean(d.what, 200)}{_clock(d.when, day)}" for d in decisions], 5),
        _section("thread summary", "", [f"Thread: {summary}"] if summary else [], 1, "bare"),
        exchanges,
        _section("files modified", "Files modified:", texts(res.files_modified, 120), 5, "inline"),
        _section("files read", "Files read:", texts(res.files_read, 120), 3, "inline"),
        _section("tools", "Tools used:", texts(res.tools_used, 40), 8, "inline"),
        _section("learnings", "Learnings (consider storing to long-term memory):", texts(cp.learnings, 200), 2),
    ]


def _head(cp: Checkpoint, topic_cap: int) -> list[str]:
    m, w, tu = cp.meta, cp.working, cp.meta.token_usage
    lines = [
        f'<checkpoint-data id="{_attr(m.checkpoint_id)}" session="{_attr(m.session_key)}" '
        f'trigger="{_attr(m.trigger)}" created="{_attr(m.created_at)}">',
        "[Post-compaction checkpoint restore]",
        f"Context at checkpoint: {round(tu.utilization * 100)}% | {format_tokens(tu.input_tokens)}/"
        f"{format_tokens(tu.context_window)} tokens | compactions: {m.compaction_count}",
    ]
    if m.compaction_count > DEATH_SPIRAL_THRESHOLD:
        lines.append(
            f"WARNING: this session has been compacted {m.compaction_count} times; each compaction loses "
            "detail (death-spiral risk). Rely on this checkpoint and consider starting a fresh session."
        )
    lines += ["", f"Working on: {_clean(w.topic, topic_cap) or '(not recorded)'}"]
    lines.append(f"Status: {_clean(w.status, 40)}{' (interrupted mid-turn)' if w.interrupted else ''}")
    return lines


_CLOSE: Final = "</checkpoint-data>"


def _compose(head: list[str], sections: list[_Section]) -> str:
    s = {section.name: section.render() for section in sections}
    out = [*head, *s["working details"]]
    blocks = [
        s["decisions"],
        s["thread summary"] + s["key exchanges"],
        s["open items"],
        s["files modified"] + s["files read"] + s["tools"],
        s["learnings"],
    ]
    for block in blocks:
        if block:
            out += ["", *block]
    hidden = [f"{len(x.lines)} {x.name}" for x in sections if x.lines and not x.chosen]
    if hidden:
        out += ["", f"Not shown (token budget): {', '.join(hidden)}"]
    out.append(_CLOSE)
    return "\n".join(out)


def render_checkpoint(cp: Checkpoint, *, max_tokens: int = 700) -> RenderedCheckpoint:
    """Render ``cp`` for the agent within ``max_tokens`` (the mandatory lines alone may exceed a tiny budget)."""
    sections = _sections(cp)
    topic_cap = 200
    head = _head(cp, topic_cap)
    while count_tokens(_compose(head, sections)) > max_tokens and topic_cap > 20:
        topic_cap //= 2
        head = _head(cp, topic_cap)

    # Greedy fill on per-line estimates, in priority order: a few items of each section, then the rest.
    used = count_tokens("\n".join([*head, _CLOSE])) + 12  # blank separators and section headers
    added: list[tuple[_Section, int]] = []
    for first_pass in (True, False):
        for section in sections:
            for i in section.order[: section.keep_first] if first_pass else section.order:
                if i in section.chosen:
                    continue
                cost = count_tokens(section.lines[i]) + 2
                if used + cost > max_tokens:
                    break
                used += cost
                section.chosen.add(i)
                added.append((section, i))
    text = _compose(head, sections)
    tokens = count_tokens(text)
    # Estimates are close, not exact ("+N more" and "Not shown" lines, merges across lines): fix up exactly.
    while tokens > max_tokens and added:
        section, i = added.pop()
        section.chosen.discard(i)
        text = _compose(head, sections)
        tokens = count_tokens(text)
    for section in sections:
        for i in section.order:
            if i in section.chosen:
                continue
            section.chosen.add(i)
            candidate = _compose(head, sections)
            size = count_tokens(candidate)
            if size > max_tokens:
                section.chosen.discard(i)
                break
            text, tokens = candidate, size
    omitted = tuple(f"{s.name}: {len(s.lines) - len(s.chosen)}" for s in sections if len(s.chosen) < len(s.lines))
    return RenderedCheckpoint(text, tokens, get_counter().method, omitted)
