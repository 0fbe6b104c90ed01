"""One session in detail: the large gauge, then tabs for the overview, context, transcript, checkpoints,
decisions, the branch tree and the audit log."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container, Grid, Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import AwaitMount, Widget
from textual.widgets import DataTable
from textual.worker import get_current_worker

from engine import (
    CapturedState,
    Config,
    Consumer,
    ContextRow,
    DecisionsDigest,
    HistoryItem,
    MessageText,
    Segment,
    SessionFollower,
    SessionInsight,
    SessionSnapshot,
    StoredCheckpoint,
    TailMessage,
    Timeline,
    audit_history,
    keep_recent_budget,
    measure_rows,
    pins_of,
    read_checkpoints,
    read_decisions,
    read_message,
    read_outline,
    read_tail,
    read_top_consumers,
    removed_by_retention,
    session_cost,
    set_pins,
    utilization_timeline,
)
from tui.breakpoints import preset_breakpoints
from tui.controls import session_state_dir
from tui.dialog_stack import push_once
from tui.dialogs.message_view import MessageView
from tui.dialogs.prune_chosen import ChooseConsumersDialog
from tui.dialogs.risk_detail import RiskDetail
from tui.messages import PruneChosen
from tui.screens.lazy_tabs import LazyTabs
from tui.shown import shown
from tui.widgets.branch_tree import BranchTree
from tui.widgets.cards import ContextCard, CostCard, RiskCard, SessionCard
from tui.widgets.checkpoints import CheckpointsView
from tui.widgets.context_table import ContextTable
from tui.widgets.decisions import DecisionsView
from tui.widgets.footer import KeyFooter
from tui.widgets.gauge import GaugeBar
from tui.widgets.history import HistoryPane
from tui.widgets.labels import session_label
from tui.widgets.notice_line import NoticeLine
from tui.widgets.plot import UtilizationPlot
from tui.widgets.tab_bar import TabBar
from tui.widgets.title_bar import TitleBar
from tui.widgets.top_consumers import TopConsumersCard
from tui.widgets.transcript import TranscriptTail

W = TypeVar("W", bound=Widget)

__all__ = ["HISTORY_PANES", "TABS", "SessionScreen", "WithFollower"]

WithFollower = Callable[[Callable[[SessionFollower], Any]], Any]
"""Runs a function on the session's engine follower while no refresh of it runs (blocking)."""

HISTORY_PANES: dict[str, str] = {
    "audit": "No ctxscope actions on this session yet. Every checkpoint, compaction and prune is logged here.",
}
"""Pane id → text when the pane is empty."""

TABS = ("overview", "context", "transcript", "checkpoints", "decisions", "tree", "audit")

TAIL_MESSAGES = 30
OPEN_MEASURE_MAX_ENTRIES = 20_000
"""Paths longer than this are measured by workers after the first frame (the timeline takes ~1 ms per 1,000)."""
REPRICE_SECONDS = 10
"""How often the cost card is re-priced while nothing is written (the cache turns cold with time alone). The app's
one-second tick calls :meth:`SessionScreen.reprice_now`: a timer of the screen's own left a cancelled 10-second
sleep in the event loop, which held the closed screen until it came due."""


class SessionScreen(Screen[None]):
    """Set :attr:`snapshot` with each new snapshot and :attr:`insight` with each assessment; heavy panes use workers."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back"),
        # Not in the footer: the Top consumers card says "t: choose and prune", and at 80 columns the place keeps
        # ? Help in (docs/keys.md).
        Binding("t", "top_consumers", "Top consumers", show=False,
                tooltip="Choose among the largest messages and prune them"),
        Binding("r", "risk_detail", "Risk details", show=False,
                tooltip="The degradation assessment and its advice whole (the card cuts long lines)"),
        Binding("x", "toggle_stale", "Stale items", show=False,
                tooltip="Decisions tab: show or hide open items finished later or older than open_items_max_age"),
        *(Binding(str(n), f"show_tab('{tab}')", f"{tab.title()} tab", show=False)
          for n, tab in enumerate(TABS, start=1)),
    ]

    snapshot: reactive[SessionSnapshot | None] = reactive(None, init=False)
    insight: reactive[SessionInsight | None] = reactive(None, init=False)
    compaction_line: reactive[float | None] = reactive(None, init=False)
    """The agent's compaction line as a fraction of the window (the plot draws it)."""
    timeline: reactive[Timeline | None] = reactive(None, init=False)

    def __init__(
        self,
        snapshot: SessionSnapshot,
        *,
        with_follower: WithFollower,
        config: Config,
        clock: Callable[[], datetime],
        captured_state: Callable[[], CapturedState | None] | None = None,
        state_dir: Path | None = None,
        insight: SessionInsight | None = None,
        follower_now: WithFollower | None = None,
    ) -> None:
        super().__init__(classes="session-view")
        preset_breakpoints(self)
        self.key = snapshot.key
        self._with_follower = with_follower
        self._config = config
        self._clock = clock
        self._captured_state = captured_state or (lambda: None)
        self._state_dir = state_dir or session_state_dir(snapshot.source, config)
        self._stored: tuple[StoredCheckpoint, ...] = ()
        self._active_tab = "overview"
        self._tabs = LazyTabs(self, self._tab_view, shown="overview")
        self._show_stale = False
        self._mounted = False
        self.consumers: tuple[Consumer, ...] = ()
        """The largest context messages, once measured."""
        self.set_reactive(SessionScreen.snapshot, snapshot)
        self.set_reactive(SessionScreen.insight, insight)
        self.set_reactive(SessionScreen.compaction_line, _compaction_line(snapshot))
        # Set before mounting: a sub_title set in on_mount reaches the Header's watcher while the screen may
        # still be composing (or already closing), which raised NoMatches for HeaderTitle under load.
        self.set_reactive(Screen.sub_title, session_label(snapshot.source, 60))
        self._measure_at_open(snapshot, follower_now)

    def _measure_at_open(self, snapshot: SessionSnapshot, follower_now: WithFollower | None) -> None:
        """The Overview's plot and largest messages in its first frame: a few milliseconds once the follower has
        counted the context, against a frame or two of worker round trips (docs/architecture.md, Targets). A long
        path, or a follower busy with a refresh, is left to the workers started after the first frame."""
        self._timeline_of: SessionSnapshot | None = None
        self._measured_of: SessionSnapshot | None = None
        self._rows_at_open: tuple[ContextRow, ...] = ()
        if len(snapshot.view.path) > OPEN_MEASURE_MAX_ENTRIES:
            return
        self.set_reactive(SessionScreen.timeline, utilization_timeline(snapshot.view.path, snapshot.window.tokens))
        self._timeline_of = snapshot
        measured = follower_now(partial(self._measure, snapshot)) if follower_now is not None else None
        if measured is not None:
            self._rows_at_open, self.consumers = measured
            self._measured_of = snapshot

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Vertical(id="gauge-box") as box:
            box.border_title = "Context window"
            yield GaugeBar().data_bind(SessionScreen.snapshot)
        yield TabBar([(tab, tab.title()) for tab in TABS], active="overview", id="tab-bar")
        with Container(id="tabs"):
            with Vertical(id="overview", classes="pane"):
                with Grid(id="cards"):
                    # Bound, not pushed: each card takes the screen's values when it mounts, so nothing depends on
                    # the order in which the screen finishes composing.
                    yield ContextCard().data_bind(SessionScreen.snapshot, SessionScreen.insight)
                    yield CostCard().data_bind(SessionScreen.snapshot, SessionScreen.insight)
                    yield SessionCard(clock=self._clock).data_bind(SessionScreen.snapshot, SessionScreen.insight)
                    yield RiskCard().data_bind(SessionScreen.snapshot, SessionScreen.insight)
                    consumers = TopConsumersCard()
                    if self._measured_of is not None:
                        consumers.set_reactive(TopConsumersCard.consumers, self.consumers)
                    yield consumers.data_bind(SessionScreen.snapshot)
                yield UtilizationPlot().data_bind(SessionScreen.timeline, SessionScreen.compaction_line)
            # The other tabs are filled the first time they are shown (tui/screens/lazy_tabs.py).
            for tab in TABS[1:]:
                pane = Vertical(id=tab, classes="pane")
                pane.display = False
                yield pane
        yield NoticeLine()
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        self._mounted = True
        self.call_after_refresh(self._show, self.snapshot)

    def watch_snapshot(self, snapshot: SessionSnapshot | None) -> None:
        if self._mounted:
            self._show(snapshot)

    def watch_insight(self, insight: SessionInsight | None) -> None:
        if self._mounted:
            self._show_insight(insight)

    def show_tab(self, tab: str, *, focus: bool = False) -> None:
        """Switch to ``tab`` (one of :data:`TABS`); ``focus`` moves the keyboard into its view."""
        mounted = self._tabs.fill(tab)
        self.query_one(TabBar).active = tab
        if focus:
            self.call_later(self._tabs.focus, tab, mounted)

    def _tab_view(self, tab: str) -> Widget:
        """The view of a tab other than the overview, made when the tab is first shown."""
        if tab == "context":
            return ContextTable()
        if tab == "transcript":
            return TranscriptTail()
        if tab == "checkpoints":
            return CheckpointsView(id="checkpoints-view")
        if tab == "decisions":
            view = DecisionsView(id="decisions-view")
            view.set_reactive(DecisionsView.show_stale, self._show_stale)
            return view
        if tab == "tree":
            return BranchTree(id="branch-tree")
        return HistoryPane(empty=HISTORY_PANES[tab], id=f"{tab}-pane")

    def action_toggle_stale(self) -> None:
        """Show or hide the open items that no longer stand (Decisions tab)."""
        self._show_stale = not self._show_stale
        for view in self.query(DecisionsView):
            view.show_stale = self._show_stale

    def action_show_tab(self, tab: str) -> None:
        """Switch to ``tab`` and focus its view (the number keys: 1 for the first tab, in the order shown)."""
        self.show_tab(tab, focus=True)

    def show_latest_diff(self) -> None:
        """Show the Checkpoints tab with the newest checkpoint diffed against the previous one."""
        mounted = self._tabs.fill("checkpoints")
        self.show_tab("checkpoints")
        self.call_later(self._tabs.focus, "checkpoints", mounted)
        if mounted is None:
            self._each(CheckpointsView, CheckpointsView.show_latest_diff)
        else:
            self.call_later(self._latest_diff_when_mounted, mounted)

    async def _latest_diff_when_mounted(self, mounted: AwaitMount) -> None:
        await mounted
        self._each(CheckpointsView, CheckpointsView.show_latest_diff)

    def _show(self, snapshot: SessionSnapshot | None) -> None:
        if snapshot is None:
            return
        self.compaction_line = _compaction_line(snapshot)
        # The model on the gauge's frame: the Session card that also shows it is hidden at 80 columns.
        for box in self.query("#gauge-box"):
            box.border_subtitle = shown(snapshot.model or "")
        if snapshot is not self._timeline_of:
            self.measure_timeline(snapshot)
        if snapshot is self._measured_of:
            self._show_measured(self._rows_at_open, self.consumers)
        else:
            self.measure_context(snapshot)
        self.read_transcript_tail(snapshot)
        self.load_history(snapshot)

    def _each(self, kind: type[W], apply: Callable[[W], object]) -> None:
        """Apply to every mounted ``kind``: none while the screen is still composing or already closing, when a
        worker's result arrives too early or too late to matter, nor to a tab's view still mounting (it gets the
        screen's copy once mounted)."""
        for widget in self.query(kind):
            if widget.is_mounted:
                apply(widget)

    def _show_insight(self, insight: SessionInsight | None) -> None:
        for card in self.query(CostCard):
            card.cost = None  # the assessment's figures are the newest

    def _set_timeline(self, timeline: Timeline) -> None:
        self.timeline = timeline

    def _show_history(self, pane: str, items: tuple[HistoryItem, ...], problem: str | None) -> None:
        def show() -> None:
            for view in self.query(f"#{pane}-pane").results(HistoryPane):
                if view.is_mounted:
                    view.show(items, problem)

        self._tabs.deliver(pane, show)

    @work(thread=True, exclusive=True, group="measure_timeline", exit_on_error=False)
    def measure_timeline(self, snapshot: SessionSnapshot) -> None:
        """Compute the utilization series off the UI thread."""
        timeline = utilization_timeline(snapshot.view.path, snapshot.window.tokens)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._set_timeline, timeline)

    @work(thread=True, exclusive=True, group="measure_context", exit_on_error=False)
    def measure_context(self, snapshot: SessionSnapshot) -> None:
        """Count every context message's tokens with the engine (cached per entry by the follower), and find the
        largest."""
        rows, consumers = self._with_follower(partial(self._measure, snapshot))
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show_measured, rows, consumers)

    def _measure(self, snapshot: SessionSnapshot,
                 follower: SessionFollower) -> tuple[tuple[ContextRow, ...], tuple[Consumer, ...]]:
        # The agent's own budget (pi's keepRecentTokens for pi sessions), as `ctxscope inspect` uses it.
        rows = measure_rows(snapshot, follower, keep_recent_budget(snapshot, self._config).tokens)
        return rows, read_top_consumers(snapshot, follower, limit=12)

    def _show_measured(self, rows: tuple[ContextRow, ...], consumers: tuple[Consumer, ...]) -> None:
        self.consumers = consumers
        self._each(TopConsumersCard, lambda card: setattr(card, "consumers", consumers))
        self._tabs.deliver("context", lambda: self._each(ContextTable, lambda table: table.show(rows)))

    def action_top_consumers(self) -> None:
        """Choose among the largest context messages, then preview a prune of exactly those."""
        if not self.consumers:
            self.notify("The context is still being measured.", severity="warning")
            return

        def chosen(ids: tuple[str, ...] | None) -> None:
            if ids:
                self.post_message(PruneChosen(self.key, ids))

        title = f"Top consumers of {self.sub_title}"
        push_once(self.app, ChooseConsumersDialog(self.consumers, title=title), chosen)

    @work(thread=True, exclusive=True, group="read_transcript_tail", exit_on_error=False)
    def read_transcript_tail(self, snapshot: SessionSnapshot) -> None:
        """Re-read the text of the last messages from the transcript."""
        tail = self._with_follower(lambda follower: read_tail(snapshot, follower, TAIL_MESSAGES))
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show_tail, tail)

    def _show_tail(self, tail: tuple[TailMessage, ...]) -> None:
        self._tabs.deliver("transcript", lambda: self._each(TranscriptTail, lambda view: view.show(tail)))

    @work(thread=True, exclusive=True, group="load_history", exit_on_error=False)
    def load_history(self, snapshot: SessionSnapshot | None = None) -> None:
        """Read the checkpoints and the audit log (after a write, or as the session grows); files unchanged since
        the last read are not parsed again."""
        snapshot = snapshot or self.snapshot
        if snapshot is None:
            return
        worker = get_current_worker()
        problem: str | None = None
        pinned: frozenset[str] = frozenset()
        removed: tuple[str, ...] = ()
        try:
            # Filed under the identity: a copied transcript keeps the header id (docs/checkpoints.md).
            identity = snapshot.source.identity
            self._stored = read_checkpoints(self._state_dir, identity, self._stored)
            pinned = pins_of(self._state_dir, identity)
            removed = removed_by_retention(self._state_dir, identity)
        except OSError as exc:  # one unreadable pane must not blank the others
            problem = f"Could not read the checkpoints: {exc}"
        if worker.is_cancelled:
            return
        self.app.call_from_thread(self._show_checkpoints, self._stored, problem, pinned, removed)
        if self._active_tab == "decisions":
            self.app.call_from_thread(self.load_decisions, snapshot)
        if self._active_tab == "tree":
            self.app.call_from_thread(self.load_tree, snapshot)
        for pane, loader in {"audit": audit_history}.items():
            items: tuple[HistoryItem, ...] = ()
            pane_problem: str | None = None
            try:
                items = loader(self._state_dir, self.key)
            except Exception as exc:  # noqa: BLE001 - one unreadable pane must not blank the others
                pane_problem = f"Could not read {pane}: {exc}"
            if worker.is_cancelled:
                return
            self.app.call_from_thread(self._show_history, pane, items, pane_problem)

    def _show_checkpoints(self, stored: tuple[StoredCheckpoint, ...], problem: str | None,
                          pinned: frozenset[str] = frozenset(), removed: tuple[str, ...] = ()) -> None:
        self._tabs.deliver("checkpoints", lambda: self._each(
            CheckpointsView, lambda view: view.show(stored, problem, pinned=sorted(pinned), removed=removed)))

    @on(CheckpointsView.MarksChanged)
    def _marks_changed(self, message: CheckpointsView.MarksChanged) -> None:
        self._pin(message.marks)

    @work(thread=True, group="pins", exit_on_error=False)
    def _pin(self, marks: tuple[str, ...]) -> None:
        """Pin the marked checkpoints against retention (engine/checkpoints/pins.py; atomic, audited)."""
        snapshot = self.snapshot
        set_pins(self._state_dir, snapshot.source.identity if snapshot is not None else self.key, marks)

    @on(DataTable.RowSelected, "ContextTable")
    def _context_row_chosen(self, event: DataTable.RowSelected) -> None:
        snapshot, key = self.snapshot, event.row_key.value
        if snapshot is not None and key is not None and self._on_top:
            self.open_message(snapshot, key.split("#")[0])

    def action_risk_detail(self) -> None:
        if self.snapshot is not None:
            push_once(self.app, RiskDetail(self.snapshot, self.insight))

    @on(RiskCard.Chosen)
    def _risk_card_clicked(self) -> None:
        # A click queued behind one that opened a dialog (or help) is handled after it: it must not stack another.
        if self._on_top:
            self.action_risk_detail()

    @on(TranscriptTail.Chosen)
    def _transcript_message_chosen(self, event: TranscriptTail.Chosen) -> None:
        if self.snapshot is not None and self._on_top:
            self.open_message(self.snapshot, event.entry_id)

    @work(thread=True, exclusive=True, group="open_message", exit_on_error=False)
    def open_message(self, snapshot: SessionSnapshot, entry_id: str) -> None:
        """Read one context message in full (redacted) and show it."""
        message = self._with_follower(lambda follower: read_message(snapshot, follower, entry_id))
        if get_current_worker().is_cancelled:
            return
        if message is None:
            gone = f"{entry_id} is no longer in the context."  # the id is session data: shown as written
            self.app.call_from_thread(self.notify, gone, severity="warning", markup=False)
        else:
            self.app.call_from_thread(self._show_message, message)

    @property
    def _on_top(self) -> bool:
        """Whether this screen has the input (``is_current`` is also true under a dialog, which leaves it shown)."""
        return self.app.screen is self

    def _show_message(self, message: MessageText) -> None:
        if self._on_top:  # read off the UI thread: another dialog, or the list, may have come up meanwhile
            push_once(self.app, MessageView(message))

    @on(TabBar.Activated, "#tab-bar")
    def _tab_activated(self, event: TabBar.Activated) -> None:
        self._active_tab = event.tab
        self._tabs.fill(self._active_tab)
        for pane in self.query_one("#tabs").children:
            pane.display = pane.id == self._active_tab
        if self._active_tab == "transcript":
            self._each(TranscriptTail, lambda tail: tail.call_after_refresh(tail.scroll_end, animate=False))
        if self._active_tab == "decisions" and self.snapshot is not None:
            self.load_decisions(self.snapshot)
        if self._active_tab == "tree" and self.snapshot is not None:
            self.load_tree(self.snapshot)

    @work(thread=True, exclusive=True, group="load_tree", exit_on_error=False)
    def load_tree(self, snapshot: SessionSnapshot) -> None:
        """Fold the session's tree into segments (only while the tab is shown: it walks every entry)."""
        problem: str | None = None
        try:
            outline = self._with_follower(lambda follower: read_outline(snapshot, follower))
        except Exception as exc:  # noqa: BLE001 - shown in the pane; the transcript may be mid-rotation
            outline, problem = None, f"Could not read the tree: {type(exc).__name__}: {exc}"
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show_outline, outline, problem)

    def _show_outline(self, outline: tuple[Segment, ...] | None, problem: str | None) -> None:
        self._tabs.deliver("tree", lambda: self._each(BranchTree, lambda tree: tree.show(outline, problem)))

    @work(thread=True, exclusive=True, group="load_decisions", exit_on_error=False)
    def load_decisions(self, snapshot: SessionSnapshot) -> None:
        """Collect decisions, open items, learnings and key exchanges (only while the tab is shown: it re-reads
        the text of every user message in context)."""
        state = self._captured_state()  # takes the session lock itself: not inside with_follower
        problem: str | None = None
        try:
            digest = self._with_follower(lambda follower: read_decisions(
                snapshot, follower, state, self._state_dir, now=self._clock(),
                max_age_seconds=self._config.open_items_max_age))
        except Exception as exc:  # noqa: BLE001 - shown in the pane; the transcript may be mid-rotation
            digest, problem = None, f"Could not read the decisions: {type(exc).__name__}: {exc}"
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show_decisions, digest, problem)

    def _show_decisions(self, digest: DecisionsDigest | None, problem: str | None) -> None:
        self._tabs.deliver("decisions", lambda: self._each(DecisionsView, lambda view: view.show(digest, problem)))

    def reprice_now(self) -> None:
        """Price the session at the current time (the app calls this every :data:`REPRICE_SECONDS`)."""
        if self.snapshot is not None:
            self.reprice(self.snapshot)

    @work(thread=True, exclusive=True, group="reprice", exit_on_error=False)
    def reprice(self, snapshot: SessionSnapshot) -> None:
        """Price the session again at the current time: the cache turns cold without any write."""
        cost = session_cost(snapshot, now=self._clock())
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._each, CostCard, lambda card: setattr(card, "cost", cost))


def _compaction_line(snapshot: SessionSnapshot | None) -> float | None:
    if snapshot is None:
        return None
    return next((m.fraction for m in snapshot.gauge.markers if m.name == "compaction"), None)
