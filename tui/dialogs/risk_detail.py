"""The degradation assessment whole: the Risk card's rows, wrapped instead of cut, in a scrollable dialog.

The session view's cards do not wrap (at 80 columns the advice and its commands are cut); ``r`` or a click on the
card opens this. It renders the same :class:`~tui.widgets.cards.RiskCard` from the same engine values, so the two
can never disagree.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen

from engine import SessionInsight, SessionSnapshot
from tui.dialogs.notice_keys import NOTICE_KEYS
from tui.shown import shown
from tui.widgets.cards import RiskCard

__all__ = ["RiskDetail"]


class RiskDetail(ModalScreen[None]):
    """Shows the Risk card of ``snapshot`` and ``insight`` with every line whole; escape or q closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close"), Binding("q", "close", "Close"),
                                             *NOTICE_KEYS]
    def __init__(self, snapshot: SessionSnapshot, insight: SessionInsight | None) -> None:
        super().__init__(id="risk-detail")
        self._snapshot = snapshot
        self._insight = insight

    def compose(self) -> ComposeResult:
        with VerticalScroll() as box:
            box.border_title = shown(f"Degradation risk · {self._snapshot.key}")
            box.border_subtitle = "escape to close"
            card = RiskCard(whole=True)
            card.border_title = ""
            card.snapshot, card.insight = self._snapshot, self._insight
            yield card

    def action_close(self) -> None:
        self.dismiss(None)
