"""A history pane (the audit log): a list of items, or a sentence saying why there is none."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from engine import HistoryItem
from tui.shown import shown

__all__ = ["HistoryPane"]


class HistoryPane(VerticalScroll):
    """Shows :class:`~engine.queries.audit.HistoryItem` lines, or ``empty`` when there are none."""

    def __init__(self, *, empty: str, id: str | None = None) -> None:
        super().__init__(id=id, classes="history")
        self.empty = empty

    def compose(self) -> ComposeResult:
        yield Static(Content.styled("Reading…", "$text-muted"), classes="history-body")

    def show(self, items: Sequence[HistoryItem], problem: str | None = None) -> None:
        """Display ``items``; ``problem`` replaces everything with an error."""
        body: Content
        if problem is not None:
            body = shown(problem, "$text-error", one_line=False)
        elif not items:
            body = Content.styled(self.empty, "$text-muted")
        else:
            body = Content("\n").join(
                Content.assemble(
                    (f"{item.time[:19].replace('T', ' ')}  " if item.time else "", "$text-muted"),
                    shown(item.title, "bold"),
                    shown(f"  {item.detail}" if item.detail else ""),
                )
                for item in items
            )
        self.query_one(".history-body", Static).update(body)
