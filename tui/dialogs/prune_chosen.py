"""Choose among the largest context messages; the prune dialog then previews a prune of exactly those.

Returns the chosen entry ids, or ``None`` when cancelled. Nothing is written here: the compaction dialog that
follows shows the plan (what is cleared, tokens before → after, the cache cost) and asks again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, SelectionList, Static
from textual.widgets.selection_list import Selection

from engine import Consumer
from tui.dialogs.notice_keys import NOTICE_KEYS
from tui.shown import shown
from tui.widgets.toggles import StateSelectionList
from tui.widgets.top_consumers import consumer_line

__all__ = ["ChooseConsumersDialog"]


class ChooseConsumersDialog(ModalScreen[tuple[str, ...] | None]):
    """Space marks a message, enter (or the button) previews the prune of the marked ones, escape cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("enter", "preview", "Preview prune", priority=True),
        *NOTICE_KEYS,
    ]

    def __init__(self, consumers: Sequence[Consumer], *, title: str) -> None:
        super().__init__(id="choose-consumers")
        self._consumers = [c for c in consumers if c.prunable]
        self._title = title

    def compose(self) -> ComposeResult:
        with Vertical(id="choose-box") as box:
            box.border_title = shown(self._title)
            yield Static("Mark the messages to prune (space), then preview (enter). Tool outputs are cleared, other "
                         "messages trimmed to head and tail; everything else stays as it is.", id="choose-help")
            yield StateSelectionList(
                *(Selection(consumer_line(c, what_width=26), c.entry_id, False) for c in self._consumers),
                id="choose-list",
            )
            with Horizontal(id="choose-buttons"):
                yield Static(id="choose-status")
                yield Button("Cancel", id="choose-cancel", compact=True)
                yield Button("Preview prune", id="choose-preview", variant="warning", compact=True, disabled=True)

    def on_mount(self) -> None:
        self._update()

    @property
    def chosen(self) -> tuple[str, ...]:
        """The marked entry ids, largest first."""
        marked = set(self.query_one(SelectionList).selected)
        return tuple(c.entry_id for c in self._consumers if c.entry_id in marked)

    @on(SelectionList.SelectedChanged)
    def _update(self) -> None:
        chosen = [c for c in self._consumers if c.entry_id in set(self.chosen)]
        tokens = sum(c.tokens for c in chosen)
        self.query_one("#choose-status", Static).update(
            shown(f"{len(chosen)} marked · {tokens:,} tokens") if chosen else "nothing marked")
        self.query_one("#choose-preview", Button).disabled = not chosen

    @on(Button.Pressed, "#choose-preview")
    def action_preview(self) -> None:
        """Close with the marked ids (the prune preview opens next)."""
        if self.chosen:
            self.dismiss(self.chosen)

    @on(Button.Pressed, "#choose-cancel")
    def action_cancel(self) -> None:
        """Close without choosing."""
        self.dismiss(None)
