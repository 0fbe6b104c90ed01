"""pi's context builder and cut-point rules, over :class:`~engine.stores.entries.Entry` metadata.

:func:`build_context` is pi's ``buildSessionContext`` (docs/context-accounting.md, Context): walk from the leaf
to the root, take the latest compaction on that path, and emit its summary, the kept entries from
``firstKeptEntryId`` up to the compaction, then everything after it. :func:`find_cut_point` is pi's
``findCutPoint`` (docs/compaction.md, Cut point), which decides what a compaction would keep verbatim.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.stores.entries import CONTEXT_ROLES, Entry

__all__ = [
    "DEFAULT_KEEP_RECENT_TOKENS",
    "ContextMessage",
    "ContextView",
    "CutPoint",
    "build_context",
    "context_from_path",
    "cut_after",
    "cut_boundary",
    "find_cut_point",
    "has_pi_cut",
    "path_to",
    "pi_branch",
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
    def sent(self) -> bool:
        """Whether pi sends this message to the model (see :attr:`engine.stores.entries.Entry.sent`)."""
        return self.role in CONTEXT_ROLES and not self.entry.excluded

    @property
    def shown_role(self) -> str:
        """The role views and JSON show: text Claude Code or Codex adds itself (their readers give it the custom type
        ``<agent>-harness`` or ``<agent>-reasoning``; docs/agents.md) by that name rather than pi's ``custom``."""
        kind = (self.entry.custom_type or "").rpartition("-")[2]
        return kind if self.role == "custom" and kind in ("harness", "reasoning") else self.role

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
    """First path index the cut search considers (:func:`cut_boundary`): nothing before it is re-summarized."""


def path_to(entries: Sequence[Entry], by_id: Mapping[str, int], leaf: Entry | None) -> tuple[Entry, ...]:
    """The entries from the root to ``leaf`` following ``parentId``; stops at a missing parent or a cycle.

    A leaf whose id is JSON ``null`` has no path: pi's ``buildSessionContext`` returns an empty context for a null
    leaf id (an absent id makes it walk from the last entry instead; docs/pi.md, Leaf).
    """
    if leaf is None or leaf.null_id:
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
    """The context of an already-walked root→leaf path (see :func:`build_context`).

    OpenClaw's ``reset`` entry (2026.8+, ``sessions.reset``) starts the context afresh: nothing before it is sent
    again, so it reads as history, not context (docs/openclaw.md).
    """
    compaction_index = -1
    compactions = 0
    reset_index = -1
    for i, entry in enumerate(path):
        if entry.type == "compaction":
            compaction_index = i
            compactions += 1
        elif entry.type == "reset":
            reset_index = i
    messages: list[ContextMessage] = []
    kept_found = True
    if reset_index > compaction_index:
        compaction_index = -1
        start = reset_index + 1
    elif compaction_index >= 0:
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


def pi_branch(view: ContextView) -> tuple[Entry, ...]:
    """pi's ``getBranch()``: the context path, or nothing when the last entry has no id.

    pi takes the last entry's id as its leaf id; without one its branch is empty, so ``getContextUsage`` sees no
    compaction and ``prepareCompaction`` has nothing to cut, while ``buildSessionContext`` still walks back from
    that last entry (docs/pi.md, Context accounting).
    """
    if view.leaf is not None and view.leaf.id is None:
        return ()
    return view.path


def has_pi_cut(branch: Sequence[Entry], cut: CutPoint) -> bool:
    """Whether pi's ``prepareCompaction`` prepares anything at ``cut`` on ``branch`` (:func:`pi_branch`): a branch
    that does not end on a compaction ("Already compacted") and a first kept entry with an id."""
    return (bool(branch) and branch[-1].type != "compaction" and cut.first_kept_index < len(branch)
            and branch[cut.first_kept_index].id is not None)


def _is_cut_point(entry: Entry) -> bool:
    if entry.type == "message":
        return entry.role in _CUT_ROLES
    return entry.type in ("branch_summary", "custom_message")


def cut_boundary(path: Sequence[Entry]) -> int:
    """Where pi's next cut search starts: the latest compaction's first kept entry, if it is on the path.

    Otherwise the entry after that compaction, or 0 without one (pi's ``prepareCompaction`` since 0.63.1).
    """
    for i in range(len(path) - 1, -1, -1):
        entry = path[i]
        if entry.type == "compaction":
            kept = entry.first_kept_entry_id
            if kept is not None:
                for j, candidate in enumerate(path):
                    if candidate.id == kept:
                        return j
            return i + 1
    return 0


def find_cut_point(
    path: Sequence[Entry], keep_recent_tokens: int = DEFAULT_KEEP_RECENT_TOKENS, *, boundary_start: int | None = None
) -> CutPoint:
    """pi's ``findCutPoint`` over the path from the previous compaction's kept messages on.

    The search starts at the previous compaction's ``firstKeptEntryId`` when that entry is on the path (pi
    re-summarizes the messages an earlier compaction kept), else just after that compaction, else at the root
    (:func:`cut_boundary`). Walks back from the leaf summing pi's per-message estimates until
    ``keep_recent_tokens`` is reached, then cuts at the first valid cut point at or after that entry (never at a
    tool result) and extends back over settings entries. If the budget is never reached, the cut is the first
    cut point: nothing is summarized.
    """
    if boundary_start is None:
        boundary_start = cut_boundary(path)
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
    return _cut_at(path, cut, boundary_start)


def _previous_boundary(path: Sequence[Entry]) -> int:
    for i in range(len(path) - 1, -1, -1):
        if path[i].type == "compaction":
            return i + 1
    return 0


def cut_after(path: Sequence[Entry], index: int) -> CutPoint | None:
    """The earliest cut that leaves ``path[index]`` and everything before it to the summary, or ``None`` when no
    valid cut point follows it (a tool result is never a cut point).

    Used to compact exactly a chosen set of messages: the cut goes right after the last one, never before the
    previous compaction's boundary (its summary must be carried into the new one).
    """
    boundary_start = _previous_boundary(path)
    cut = next((i for i in range(max(index + 1, boundary_start), len(path)) if _is_cut_point(path[i])), None)
    return None if cut is None else _cut_at(path, cut, boundary_start, floor=index + 1)


def _cut_at(path: Sequence[Entry], cut: int, boundary_start: int, *, floor: int = 0) -> CutPoint:
    """The cut at ``cut`` extended back over settings entries (not below ``floor``), with its turn start."""
    while cut > max(boundary_start, floor):
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
