"""pi's context builder and cut-point rules, over :class:`~engine.stores.entries.Entry` metadata.

:func:`build_context` is pi's ``buildSessionContext`` (docs/context-accounting.md, Context): walk from the leaf
to the root, take the latest compaction on that path, and emit its summary, the kept entries from
``firstKeptEntryId`` up to the compaction, then everything after it. :func:`find_cut_point` is pi's
``findCutPoint`` (docs/compaction.md, Cut point), which decides what a compaction would keep verbatim.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.stores.entries import Entry

__all__ = [
    "DEFAULT_KEEP_RECENT_TOKENS",
    "ContextMessage",
    "ContextView",
    "CutPoint",
    "build_context",
    "context_from_path",
    "find_cut_point",
    "path_to",
]

DEFAULT_KEEP_RECENT_TOKENS = 20_000
"""pi's and OpenClaw's ``keepRecentTokens`` default."""

_CUT_ROLES = frozenset({"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"})


@dataclass(frozen=True, slots=True)
class ContextMessage:
    """One message the agent would send next, in context order."""

    entry: Entry
    role: str
    """``compactionSummary`` for the summary of the latest compaction, else the entry's context role."""
    path_index: int
    """Index of the entry on the leaf→root path (root first); the compaction's index for its summary."""

    @property
    def entry_id(self) -> str:
        """Stable id for display and JSON: ``compaction:<id>`` / ``branch_summary:<id>`` for summaries."""
        if self.role == "compactionSummary":
            return f"compaction:{self.entry.id}"
        if self.entry.type == "branch_summary":
            return f"branch_summary:{self.entry.id}"
        return self.entry.id or f"line:{self.entry.line_no}"


@dataclass(frozen=True, slots=True)
class ContextView:
    """The context path and the messages on it, as pi would build them."""

    leaf: Entry | None
    path: tuple[Entry, ...]
    """Entries from the root to the leaf (root first)."""
    messages: tuple[ContextMessage, ...]
    compaction: Entry | None
    """The latest compaction on the path, if any."""
    compaction_index: int
    """Index of :attr:`compaction` in :attr:`path`, or -1."""
    compactions_on_path: int
    kept_entry_found: bool
    """False when the compaction's ``firstKeptEntryId`` is not on the path (pi then keeps nothing before it)."""


@dataclass(frozen=True, slots=True)
class CutPoint:
    """Where a compaction would cut the path (indices into :attr:`ContextView.path`)."""

    first_kept_index: int
    turn_start_index: int
    """Start of the turn the cut splits, or -1."""
    is_split_turn: bool
    boundary_start: int
    """First path index after the previous compaction: nothing before it is re-summarized."""


def path_to(entries: Sequence[Entry], by_id: Mapping[str, int], leaf: Entry | None) -> tuple[Entry, ...]:
    """The entries from the root to ``leaf`` following ``parentId``; stops at a missing parent or a cycle."""
    if leaf is None:
        return ()
    chain: list[Entry] = []
    seen: set[str] = set()
    current: Entry | None = leaf
    while current is not None:
        if current.id is not None:
            if current.id in seen:
                break
            seen.add(current.id)
        chain.append(current)
        parent = current.parent_id
        if parent is None:
            break
        index = by_id.get(parent)
        current = entries[index] if index is not None else None
    chain.reverse()
    return tuple(chain)


def build_context(entries: Sequence[Entry], by_id: Mapping[str, int], leaf: Entry | None) -> ContextView:
    """pi's ``buildSessionContext`` for the given leaf (usually the last entry in file order)."""
    return context_from_path(path_to(entries, by_id, leaf), leaf)


def context_from_path(path: tuple[Entry, ...], leaf: Entry | None) -> ContextView:
    """The context of an already-walked root→leaf path (see :func:`build_context`)."""
    compaction_index = -1
    compactions = 0
    for i, entry in enumerate(path):
        if entry.type == "compaction":
            compaction_index = i
            compactions += 1
    messages: list[ContextMessage] = []
    kept_found = True
    if compaction_index >= 0:
        compaction = path[compaction_index]
        messages.append(ContextMessage(compaction, "compactionSummary", compaction_index))
        kept_found = False
        for i in range(compaction_index):
            entry = path[i]
            if not kept_found and entry.id is not None and entry.id == compaction.first_kept_entry_id:
                kept_found = True
            if kept_found and entry.in_context:
                messages.append(ContextMessage(entry, entry.role or "", i))
        start = compaction_index + 1
    else:
        start = 0
    for i in range(start, len(path)):
        entry = path[i]
        if entry.in_context:
            messages.append(ContextMessage(entry, entry.role or "", i))
    return ContextView(
        leaf=leaf,
        path=path,
        messages=tuple(messages),
        compaction=path[compaction_index] if compaction_index >= 0 else None,
        compaction_index=compaction_index,
        compactions_on_path=compactions,
        kept_entry_found=kept_found,
    )


def _is_cut_point(entry: Entry) -> bool:
    if entry.type == "message":
        return entry.role in _CUT_ROLES
    return entry.type in ("branch_summary", "custom_message")


def find_cut_point(
    path: Sequence[Entry], keep_recent_tokens: int = DEFAULT_KEEP_RECENT_TOKENS, *, boundary_start: int | None = None
) -> CutPoint:
    """pi's ``findCutPoint`` over the path after the previous compaction.

    Walks back from the leaf summing pi's per-message estimates until ``keep_recent_tokens`` is reached, then
    cuts at the first valid cut point at or after that entry (never at a tool result) and extends back over
    settings entries. If the budget is never reached, the cut is the first cut point: nothing is summarized.
    """
    if boundary_start is None:
        boundary_start = 0
        for i in range(len(path) - 1, -1, -1):
            if path[i].type == "compaction":
                boundary_start = i + 1
                break
    end = len(path)
    cut_points = [i for i in range(boundary_start, end) if _is_cut_point(path[i])]
    if not cut_points:
        return CutPoint(boundary_start, -1, False, boundary_start)
    cut = cut_points[0]
    accumulated = 0
    for i in range(end - 1, boundary_start - 1, -1):
        entry = path[i]
        if entry.type != "message":
            continue
        accumulated += entry.pi_tokens
        if accumulated >= keep_recent_tokens:
            cut = next((c for c in cut_points if c >= i), cut)
            break
    while cut > boundary_start:
        previous = path[cut - 1]
        if previous.type in ("compaction", "message"):
            break
        cut -= 1
    first = path[cut]
    is_user = first.type == "message" and first.role == "user"
    turn_start = -1
    if not is_user:
        for i in range(cut, boundary_start - 1, -1):
            entry = path[i]
            if entry.type in ("branch_summary", "custom_message") or (
                entry.type == "message" and entry.role in ("user", "bashExecution")
            ):
                turn_start = i
                break
    return CutPoint(cut, turn_start, not is_user and turn_start != -1, boundary_start)
