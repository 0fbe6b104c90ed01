"""The session list: every discovered session, most recently active first, filtered with ``/``."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import DataTable, Input, Static

from engine import SessionInsight, SessionSnapshot
from tui.shown import shown
from tui.widgets.footer import KeyFooter
from tui.widgets.gauge import GaugeBar
from tui.widgets.labels import session_label
from tui.widgets.notice_line import NoticeLine
from tui.widgets.session_order import SORTS, matches, ordered, project_label
from tui.widgets.session_table import SessionTable
from tui.widgets.title_bar import TitleBar

__all__ = ["SessionChosen", "SessionListScreen"]


class SessionChosen(Message):
    """The user opened a session from the list."""

    def __init__(self, key: str) -> None:
        super().__init__()
        self.key = key


class SessionListScreen(Screen[None]):
    """Set :attr:`snapshots` (any order), :attr:`insights` and :attr:`loaded`; the table sorts and filters."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "filter", "Filter", key_display="/"),
        Binding("escape", "clear_filter", "Clear filter"),
        Binding("m", "toggle_metrics", "Metrics", show=False,
                tooltip="Show the values `ctxscope watch --metrics` exports for each session (m again: back)"),
        Binding("u", "app.usage", "Usage", tooltip="Tokens, cost and compactions of every session"),
        Binding("s", "cycle_sort", "Sort", tooltip="Order the list by the next column (active, context, tokens, …)"),
    ]

    AUTO_FOCUS = "#sessions"

    snapshots: reactive[tuple[SessionSnapshot, ...]] = reactive(())
    insights: reactive[dict[str, SessionInsight]] = reactive(dict)
    """Degradation and cost by session key (risk and spend columns); set a new dict to redraw."""
    filter_text: reactive[str] = reactive("")
    sort_by: reactive[str] = reactive("active")
    """One of :data:`~tui.widgets.session_order.SORTS`: ``s`` cycles, a click on a column header picks it."""
    loaded: reactive[bool] = reactive(False)
    problems: reactive[tuple[str, ...]] = reactive(())

    def __init__(self, *, clock: Callable[[], datetime], where: str, metrics_host: str | None = None) -> None:
        super().__init__(id="session-list")
        self._clock = clock
        self._where = where
        self._metrics_host = metrics_host
        """The ``host`` label configured for ``watch --metrics`` (``None``: this machine's name)."""

    def compose(self) -> ComposeResult:
        yield TitleBar()
        yield Input(placeholder="filter: key, file, model or project (enter to keep, esc to clear)", id="filter")
        yield SessionTable(id="sessions")
        yield Static(id="list-status")
        with Vertical(id="preview"):
            yield GaugeBar()
        yield NoticeLine()
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        self.set_interval(30, self._refresh_rows)  # keeps "5m ago" honest while nothing changes
        # Not called directly: is_mounted turns true only after this handler, and what arrived before it (an empty
        # directory is read before the screen mounts) has no watcher to show it, so the list said "reading…" forever.
        self.call_after_refresh(self._refresh_rows)

    @property
    def table(self) -> SessionTable:
        return self.query_one(SessionTable)

    @property
    def selected_key(self) -> str | None:
        """The session under the cursor, if any row is shown."""
        return self.table.selected_key

    def _refresh_rows(self) -> None:
        # Not while the app shuts down: it removes the screen's widgets before the screen, and a session update
        # still queued then found no table (Pilot's shutdown runs beside the app's message loop).
        if not self.is_mounted or not self.app.is_running:
            return
        rows = [s for s in ordered(self.snapshots, self.sort_by, self.insights) if matches(s, self.filter_text)]
        # While sessions are still arriving the cursor stays on the top row instead of chasing one session.
        self.table.show(rows, self._clock(), follow_cursor=self.loaded, insights=self.insights)
        self._show_preview()
        total = len(self.snapshots)
        counted = f"{total} session{'s' if total != 1 else ''}"
        # A filter says how many of them it shows: "0 of 6 sessions", never the total alone.
        self.sub_title = f"{len(rows)} of {counted}" if self.filter_text else counted
        self._show_status(len(rows))

    def _show_status(self, count: int) -> None:
        status = self.query_one("#list-status", Static)
        text = ""
        if not self.loaded and not self.snapshots:
            text = f"Reading sessions in {self._where}…"
        elif not self.snapshots:
            text = (f"No sessions yet in {self._where}: waiting for an agent to write one (they appear here as they "
                    "are created). Try `ctxscope demo` to see a simulated one.")
        elif not count:
            text = f"No session matches “{self.filter_text}”. Press esc to clear the filter."
        if self.problems:
            text = "\n".join([*([text] if text else []), *self.problems[:3]])
        status.update(shown(text, one_line=False))  # paths, problems and the filter may hold "[" or ESC
        status.display = bool(text)

    def watch_snapshots(self) -> None:
        self._refresh_rows()

    def watch_insights(self) -> None:
        self._refresh_rows()

    def watch_filter_text(self) -> None:
        self._refresh_rows()

    def watch_sort_by(self) -> None:
        if self.is_mounted:
            # The table has no border: a border title saying the order was never seen.
            self.table.show_sort(self.sort_by)
        self._refresh_rows()

    def action_cycle_sort(self) -> None:
        """Order the list by the next of :data:`~tui.widgets.session_order.SORTS`."""
        self.sort_by = SORTS[(SORTS.index(self.sort_by) + 1) % len(SORTS)]
        self.notify(f"Sessions sorted by {self.sort_by}" + (" (most recent first)" if self.sort_by == "active"
                                                               else ""), timeout=2, markup=False)

    @on(DataTable.HeaderSelected, "#sessions")
    def _header_chosen(self, event: DataTable.HeaderSelected) -> None:
        key = event.column_key.value
        if key in SORTS:
            self.sort_by = key

    def watch_loaded(self) -> None:
        self._refresh_rows()

    def watch_problems(self) -> None:
        self._refresh_rows()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "clear_filter":
            return self.has_class("-filtering")
        return True

    def action_filter(self) -> None:
        """Show the filter box and focus it."""
        self.add_class("-filtering")
        self.query_one("#filter", Input).focus()
        self.refresh_bindings()

    def action_toggle_metrics(self) -> None:
        """Show the exported metrics of every session, or the usual columns again."""
        self.table.show_metrics(not self.table.metrics, self._metrics_host)

    def action_clear_filter(self) -> None:
        """Clear and hide the filter."""
        self.query_one("#filter", Input).value = ""
        self.remove_class("-filtering")
        self.table.focus()
        self.refresh_bindings()

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.filter_text = event.value

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self) -> None:
        self.table.focus()

    @on(DataTable.RowSelected, "#sessions")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        self.post_message(SessionChosen(str(event.row_key.value)))

    @on(DataTable.RowHighlighted, "#sessions")
    def _row_highlighted(self) -> None:
        self._show_preview()  # the app refreshes the footer keys for the new session (the event bubbles up)

    def _show_preview(self) -> None:
        snapshot = self._selected_snapshot()
        preview = self.query_one("#preview", Vertical)
        preview.display = snapshot is not None
        if snapshot is not None:
            # The narrow list drops the project and model columns: the preview names both.
            project = project_label(snapshot)
            where = f" · {project}" if project != "-" else ""
            preview.border_title = shown(
                f"{session_label(snapshot.source, 48)}{where} · {snapshot.model or 'model unknown'}")
            self.query_one(GaugeBar).snapshot = snapshot

    def _selected_snapshot(self) -> SessionSnapshot | None:
        key = self.selected_key
        return next((s for s in self.snapshots if s.key == key), None)
