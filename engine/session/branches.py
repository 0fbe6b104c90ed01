"""The session's tree as a reader can take it in: linear runs folded into segments, branch points between them.

A pi session is a tree (docs/formats.md, Entry fields): every entry names its parent, and the leaf picks the
path the agent sends. A real session holds thousands of entries on a handful of branches, so one node per entry
is unreadable. :func:`branch_outline` folds every run of entries with one child each into a :class:`Segment`
and keeps the branch points, the current path and the labels visible:

* a segment ends at an entry with no child or several (a branch point), and right after the leaf, so the path
  the agent sends always ends at a segment's end;
* a segment is ``on_path`` when its entries lead to the leaf; children are ordered as pi orders them (oldest first,
  :func:`engine.session.pi_tree.session_tree`);
* labels (pi's ``label`` entries, the latest per target) stay on the segment that holds their target.

Built without recursion: a branch-heavy or hostile file may hold thousands of branch points.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from engine.session.pi_tree import session_tree
from engine.stores.entries import Entry

__all__ = ["Segment", "branch_outline"]


@dataclass(slots=True)
class Segment:
    """A run of entries, each the only child of the one before, and the segments that branch off its end."""

    first_id: str
    last_id: str
    entries: int = 0
    messages: int = 0
    compactions: int = 0
    on_path: bool = False
    """Its entries lead to the current leaf (the context the agent sends)."""
    holds_leaf: bool = False
    labels: tuple[tuple[str, str], ...] = ()
    """``(entry id, label)`` of the labelled entries in the run, in order."""
    last_timestamp: str | None = None
    preview_role: str | None = None
    """The role of the first message in the run (``user`` for a branch the user started)."""
    children: list[Segment] = field(default_factory=list)


def branch_outline(entries: Sequence[Entry], leaf_id: str | None, labels: Mapping[str, str]) -> list[Segment]:
    """The root segments of the session ``entries`` (file order), with ``leaf_id``'s path marked."""
    by_id = {e.id: e for e in entries if e.id is not None and e.type != "session"}
    tree = session_tree(entries)
    children: dict[str, list[str]] = tree["children"]
    on_path: set[str] = set()
    node = leaf_id
    while node is not None and node in by_id and node not in on_path:
        on_path.add(node)
        parent = by_id[node].parent_id
        node = parent if parent != node else None

    roots: list[Segment] = []
    # Each item: the first entry of a segment to build, and the list its segment goes into.
    todo: list[tuple[str, list[Segment]]] = [(root, roots) for root in reversed(tree["roots"])]
    while todo:
        first, into = todo.pop()
        segment = Segment(first, first, on_path=first in on_path)
        into.append(segment)
        found: list[tuple[str, str]] = []
        current = first
        seen: set[str] = set()
        while True:
            seen.add(current)
            entry = by_id[current]
            segment.last_id = current
            segment.entries += 1
            if entry.type == "message":
                segment.messages += 1
                segment.preview_role = segment.preview_role or entry.role
            elif entry.type == "compaction":
                segment.compactions += 1
            segment.last_timestamp = entry.timestamp or segment.last_timestamp
            if current in labels:
                found.append((current, labels[current]))
            kids = [k for k in children.get(current, ()) if k not in seen]
            if current == leaf_id:
                segment.holds_leaf = True
            if len(kids) != 1 or current == leaf_id:
                todo.extend((kid, segment.children) for kid in reversed(kids))
                break
            current = kids[0]
        segment.labels = tuple(found)
    return roots
