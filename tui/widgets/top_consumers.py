"""The Top consumers card: the largest messages in the current context, with tokens and their share.

The list is the engine's (:func:`engine.accounting.consumers.top_consumers`); ``t`` opens the chooser that starts a
prune of exactly the messages picked (:mod:`tui.dialogs.prune_chosen`).
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.reactive import reactive

from engine import Consumer, SessionSnapshot
from tui.shown import shown
from tui.widgets.cards import Card
from tui.widgets.labels import shorten

__all__ = ["SHOWN", "TopConsumersCard", "consumer_line"]

SHOWN = 3
"""Rows on the card: three keep the plot below it readable at 36 rows (the chooser offers more)."""


def consumer_line(consumer: Consumer, *, what_width: int = 22) -> Content:
    """``12,345 tok  9.8%  toolResult read  entry r12`` with the share in the warning colour past 10%."""
    share_style = "$text-warning" if consumer.share >= 0.10 else ""
    return Content.assemble(
        (f"{consumer.tokens:>8,} tok ", ""),
        (f"{consumer.share:>4.0%}", share_style),
        shown(f"  {shorten(consumer.what, what_width):<{what_width}} ", "$text-secondary"),
        shown(shorten(consumer.entry_id, 28), "$text-muted"),
    )


class TopConsumersCard(Card):
    """Set :attr:`consumers` once they are measured (``None`` while counting)."""

    TITLE = "Top consumers · % of the context's messages"
    """The share is of the messages' tokens (engine/accounting/consumers.py), the system prompt aside: say so."""

    consumers: reactive[tuple[Consumer, ...] | None] = reactive(None, repaint=False)

    def watch_consumers(self) -> None:
        self.refit()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_subtitle = "t: choose and prune"

    def describe(self, snapshot: SessionSnapshot) -> Content:
        consumers: Sequence[Consumer] | None = self.consumers
        # Always SHOWN rows: the card keeps its height when the count arrives, so the screen needs no new layout.
        if consumers is None:
            return _padded([Content.styled("counting…", "$text-muted")])
        if not consumers:
            return _padded([Content.styled("no messages in the context", "$text-muted")])
        return _padded([consumer_line(c) for c in consumers[:SHOWN]])


def _padded(lines: list[Content]) -> Content:
    return Content("\n").join(lines + [Content("")] * (SHOWN - len(lines)))
