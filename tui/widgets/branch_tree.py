"""The Tree tab: the session's branches as folded segments, the path the agent sends highlighted, labels shown.

The segments are the engine's (:func:`engine.queries.tree.read_outline`); this widget only draws them. A
segment on the current path is drawn in the accent colour and expanded; the others are muted and collapsed, so a
session rewound many times still opens on the branch that matters. The cursor stays on the same segment across
refreshes, unless it was on the leaf's segment: then it follows the leaf.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.binding import BindingType
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from engine import Segment
from tui.shown import shown_text
from tui.widgets.movement import movement_keys

__all__ = ["BranchTree", "segment_label"]


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'s' if n != 1 else ''}"


def segment_label(segment: Segment, *, accent: str = "", muted: str = "") -> Text:
    """One line for a segment: its size, its ids, its labels, and whether it holds the leaf."""
    style = accent if segment.on_path else muted
    text = Text("● " if segment.on_path else "○ ", style=style)
    parts = [_plural(segment.messages, "message")]
    if segment.entries != segment.messages:
        parts.append(_plural(segment.entries, "entry").replace("entrys", "entries"))
    if segment.compactions:
        parts.append(_plural(segment.compactions, "compaction"))
    text.append(", ".join(parts), style=style)
    ids = segment.first_id if segment.first_id == segment.last_id else f"{segment.first_id} … {segment.last_id}"
    text.append_text(shown_text(f"  {ids}", muted))  # entry ids and labels are the session's own text
    for _, label in segment.labels:
        text.append_text(shown_text(f"  [{label}]", "bold"))
    if segment.holds_leaf:
        text.append("  ◀ leaf: the context the agent sends ends here", style=f"bold {accent}".strip())
    return text


class BranchTree(Tree[str]):
    """Call :meth:`show` with the outline; nodes are keyed by their segment's first entry id."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *movement_keys(up="cursor_up", down="cursor_down", first="scroll_home", last="scroll_end"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("Reading…", id=id)
        self.show_root = False
        self.guide_depth = 2
        self._leaf: str | None = None
        """The first entry id of the segment that held the leaf when last drawn."""

    def show(self, roots: Sequence[Segment] | None, problem: str | None = None) -> None:
        """Draw ``roots``; ``problem`` replaces the tree with an error line."""
        # The cursor stays on the segment the user chose; left on the leaf (or never moved), it follows the leaf.
        cursor = self.cursor_node
        selected = None if cursor is None or cursor.data is None or cursor.data == self._leaf else cursor.data
        self.clear()
        if problem is not None or roots is None:
            self.root.add_leaf(shown_text(problem or "The tree is not available.", "red", one_line=False))
            return
        if not roots:
            self.root.add_leaf(Text("No entries yet.", style="dim"))
            return
        accent = self.app.theme_variables.get("text-accent", "")
        muted = self.app.theme_variables.get("foreground-muted", "")
        branch_points = 0
        keep: TreeNode[str] | None = None
        todo: list[tuple[Segment, TreeNode[str]]] = [(s, self.root) for s in reversed(roots)]
        while todo:  # no recursion: thousands of branch points are possible
            segment, parent = todo.pop()
            label = segment_label(segment, accent=accent, muted=muted)
            node = parent.add(label, data=segment.first_id, expand=segment.on_path, allow_expand=bool(segment.children))
            branch_points += len(segment.children) > 1
            if segment.holds_leaf:
                self._leaf = segment.first_id
            if segment.first_id == selected or (selected is None and segment.holds_leaf):
                keep = node
            todo.extend((child, node) for child in reversed(segment.children))
        self.root.expand()
        self.border_subtitle = shown_text(_plural(branch_points, "branch point"))
        if keep is not None:
            self.call_after_refresh(self.move_cursor, keep)
