"""One session in detail: the large gauge, then tabs for the plot and cards, context, transcript and history."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Header, TabbedContent, TabPane
from textual.worker import get_current_worker

from engine.config import Config
from engine.session import SessionFollower, SessionSnapshot
from engine.timeline import Timeline, utilization_timeline
from tui.controls import Controls, HistoryItem
from tui.widgets.cards import Card, ContextCard, RiskCard, SessionCard
from tui.widgets.context_table import ContextTable, measure_rows
from tui.widgets.gauge import GaugeBar
from tui.widgets.history import HistoryPane
from tui.widgets.labels import session_label
from tui.widgets.plot import UtilizationPlot
from tui.widgets.transcript import TranscriptTail, read_tail

__all__ = ["HISTORY_PANES", "SessionScreen", "WithFollower"]

WithFollower = Callable[[Callable[[SessionFollower], Any]], Any]
"""Runs a function on the session's engine follower while no refresh of it runs (blocking)."""

HISTORY_PANES: dict[str, tuple[str, str]] = {
    "checkpoints": (
        "No checkpoints yet. Press c to write one now; `ctxscope watch` writes them on its own at 80% "
        "of the window and before the agent compacts.",
        "Checkpoint history is not available: this install has no checkpoint store.",
    ),
    "decisions": (
        "No decisions, open items or learnings captured yet. They appear as the session runs.",
        "Decisions are not available: this install has no state capture.",
    ),
    "audit": (
        "No ctxscope actions on this session yet. Every checkpoint, compaction and prune is logged here.",
        "The audit log is not available in this install.",
    ),
}
"""Pane id → (text when empty, text when nothing is wired to read it)."""

TAIL_MESSAGES = 30


class SessionScreen(Screen[None]):
    """Set :attr:`snapshot` with each new snapshot of the session; the heavier panes refresh in workers."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen", "Back")]

    snapshot: reactive[SessionSnapshot | None] = reactive(None, init=False)

    def __init__(
        self,
        snapshot: SessionSnapshot,
        *,
        with_follower: WithFollower,
        controls: Controls,
        config: Config,
        clock: Callable[[], datetime],
    ) -> None:
        super().__init__(classes="session-view")
        self.key = snapshot.key
        self._with_follower = with_follower
        self._controls = controls
        self._config = config
        self._clock = clock
        self._mounted = False
        self.set_reactive(SessionScreen.snapshot, snapshot)

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="gauge-box") as box:
            box.border_title = "Context window"
            yield GaugeBar()
        with TabbedContent(id="tabs"):
            with TabPane("Overview", id="overview"):
                with Horizontal(id="cards"):
                    yield ContextCard()
                    yield RiskCard()
                    yield SessionCard(clock=self._clock)
                yield UtilizationPlot()
            with TabPane("Context", id="context"):
                yield ContextTable()
            with TabPane("Transcript", id="transcript"):
                yield TranscriptTail()
            for pane, (empty, unwired) in HISTORY_PANES.items():
                with TabPane(pane.title(), id=pane):
                    yield HistoryPane(empty=empty, unwired=unwired, id=f"{pane}-pane")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.sub_title = session_label(self.snapshot.source, 60) if self.snapshot else self.key
        self._mounted = True
        self._show(self.snapshot)

    def watch_snapshot(self, snapshot: SessionSnapshot | None) -> None:
        if self._mounted:
            self._show(snapshot)

    def show_tab(self, tab: str) -> None:
        """Switch to ``tab`` (``overview``, ``context``, ``transcript``, ``checkpoints``, …)."""
        self.query_one(TabbedContent).active = tab

    def _show(self, snapshot: SessionSnapshot | None) -> None:
        if snapshot is None:
            return
        self.query_one(GaugeBar).snapshot = snapshot
        for card in self.query(Card):
            card.snapshot = snapshot
        line = next((m.fraction for m in snapshot.gauge.markers if m.name == "compaction"), None)
        self.query_one(UtilizationPlot).compaction_line = line
        self.measure_timeline(snapshot)
        self.measure_context(snapshot)
        self.read_transcript_tail(snapshot)
        self.load_history(snapshot)

    def _set_timeline(self, timeline: Timeline) -> None:
        self.query_one(UtilizationPlot).timeline = timeline

    def _show_history(self, pane: str, items: tuple[HistoryItem, ...] | None, problem: str | None) -> None:
        self.query_one(f"#{pane}-pane", HistoryPane).show(items, problem)

    @work(thread=True, exclusive=True, group="measure_timeline", exit_on_error=False)
    def measure_timeline(self, snapshot: SessionSnapshot) -> None:
        """Compute the utilization series off the UI thread."""
        timeline = utilization_timeline(snapshot.view.path, snapshot.window.tokens)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._set_timeline, timeline)

    @work(thread=True, exclusive=True, group="measure_context", exit_on_error=False)
    def measure_context(self, snapshot: SessionSnapshot) -> None:
        """Count every context message's tokens with the engine (cached per entry by the follower)."""
        keep = self._config.keep_recent_tokens
        rows = self._with_follower(lambda follower: measure_rows(snapshot, follower, keep))
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(lambda: self.query_one(ContextTable).show(rows))

    @work(thread=True, exclusive=True, group="read_transcript_tail", exit_on_error=False)
    def read_transcript_tail(self, snapshot: SessionSnapshot) -> None:
        """Re-read the text of the last messages from the transcript."""
        tail = self._with_follower(lambda follower: read_tail(snapshot, follower, TAIL_MESSAGES))
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(lambda: self.query_one(TranscriptTail).show(tail))

    @work(thread=True, exclusive=True, group="load_history", exit_on_error=False)
    def load_history(self, snapshot: SessionSnapshot) -> None:
        """Read checkpoints, decisions and the audit log through whatever loaders are wired."""
        for pane in HISTORY_PANES:
            loader = self._controls.loader(pane)
            items: tuple[HistoryItem, ...] | None = None
            problem: str | None = None
            try:
                items = loader(snapshot, self._config) if loader else None
            except Exception as exc:  # noqa: BLE001 - one unreadable pane must not blank the others
                problem = f"Could not read {pane}: {exc}"
            if get_current_worker().is_cancelled:
                return
            self.app.call_from_thread(self._show_history, pane, items, problem)
