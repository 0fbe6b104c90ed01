"""The movement keys every list and table shares: vim's ``j``/``g``/``G`` beside the arrows, Home and End.

``k`` stays the Compact key on the screens (docs/keys.md says why); only inside a dialog, where Compact cannot run,
does ``k`` move up. Each widget names its own actions for the four moves: Textual's DataTable, Tree and OptionList
spell them differently, and a row table's own Home/End scroll sideways instead of reaching the first/last row.
"""

from __future__ import annotations

from textual.binding import Binding

__all__ = ["movement_keys"]


def movement_keys(*, up: str, down: str, first: str, last: str, in_dialog: bool = False) -> list[Binding]:
    """Bindings that move a list's cursor by one (↑/↓, ``j``, and ``k`` in a dialog) and to its ends (Home/``g``,
    End/``G``); none is shown in the footer, all are listed by ``?``."""
    keys = [
        Binding("up", up, "Move up", show=False),
        Binding("down", down, "Move down", show=False),
        Binding("j", down, "Move down", show=False),
        Binding("home", first, "Go to the top", show=False),
        Binding("g", first, "Go to the top", show=False),
        Binding("end", last, "Go to the bottom", show=False),
        Binding("G", last, "Go to the bottom", show=False),
    ]
    if in_dialog:
        keys.insert(3, Binding("k", up, "Move up", show=False))
    return keys
