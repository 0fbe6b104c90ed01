"""The compact dialog's editable summary: a :class:`~tui.shown.ShownTextArea` whose Ctrl+Home/Ctrl+End reach the
start and the end of the whole text.

Textual's ``TextArea`` binds Home/End to the line's ends and nothing to Ctrl+Home/Ctrl+End, so those reached the
dialog and did nothing: a long summary could only be walked to its end a page at a time.
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType

from tui.shown import ShownTextArea

__all__ = ["SummaryEditor"]


class SummaryEditor(ShownTextArea):
    """Ctrl+Home/Ctrl+End move to the start/end of the text; with Shift they extend the selection."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+home", "text_edge(False)", "Start of the text", show=False),
        Binding("ctrl+end", "text_edge(True)", "End of the text", show=False),
        Binding("ctrl+shift+home", "text_edge(False, True)", "Select to the start", show=False),
        Binding("ctrl+shift+end", "text_edge(True, True)", "Select to the end", show=False),
    ]

    def action_text_edge(self, end: bool, select: bool = False) -> None:
        """Put the cursor at the start or the end of the text (scrolled into view)."""
        self.move_cursor(self.document.end if end else self.document.start, select=select)
