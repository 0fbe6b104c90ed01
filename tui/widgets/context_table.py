"""The messages in context, one row each: entry id, role, tokens, and whether a compaction would keep it.

The rows are the engine's (:func:`engine.queries.context_rows.measure_rows`, the same as ``ctxscope inspect``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import DataTable

from engine import ContextRow
from tui.shown import shown_text
from tui.widgets.movement import movement_keys

__all__ = ["ContextTable"]


class ContextTable(DataTable[Text]):
    """Call :meth:`show` with measured rows; the cursor stays on the same entry across updates."""

    # DataTable's own enter is described as "Select", which is what the help listed for it.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Open message", show=False,
                tooltip="Show the whole message (redacted) with its tokens and entry id"),
        *movement_keys(up="cursor_up", down="cursor_down", first="scroll_top", last="scroll_bottom"),
    ]

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.zebra_stripes = True
        self.add_column("Entry", key="entry")
        self.add_column("Role", key="role")
        self.add_column(Text("Tokens", justify="right"), key="tokens")
        self.add_column("Kept", key="kept")
        self.add_column("Tools", key="tools")

    def show(self, rows: Sequence[ContextRow]) -> None:
        """Replace the rows."""
        selected = None
        if self.row_count:
            selected = self.coordinate_to_cell_key(self.cursor_coordinate)[0].value
        self.clear()
        muted = self.app.theme_variables.get("foreground-muted", "")
        accent = self.app.theme_variables.get("text-accent", "")
        seen: set[str] = set()
        for index, row in enumerate(rows):
            key = row.entry_id if row.entry_id not in seen else f"{row.entry_id}#{index}"
            seen.add(key)
            self.add_row(
                shown_text(row.entry_id, overflow="ellipsis"),
                shown_text(row.role, style=accent if row.role == "compactionSummary" else ""),
                Text(f"{row.tokens:,}", justify="right"),
                Text("kept" if row.protected else "compactable", style="" if row.protected else muted),
                shown_text(", ".join(row.tools), overflow="ellipsis"),
                key=key,
            )
        if selected is not None and selected in self.rows:
            self.move_cursor(row=self.get_row_index(selected), animate=False)
        elif rows:
            self.move_cursor(row=len(rows) - 1, animate=False)
