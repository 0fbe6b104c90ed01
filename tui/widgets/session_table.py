"""The session list's table: one row per session, most recently active first, filtered by a query."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import DataTable

from engine.accounting.gauge import format_tokens
from engine.live.insight import SessionInsight
from engine.session.snapshot import SessionSnapshot
from tui.widgets.labels import ago, money, session_label
from tui.widgets.levels import LEVEL_COLOR, RISK_COLOR

__all__ = ["SessionTable", "matches", "ordered"]

_COLUMNS: tuple[tuple[str, str], ...] = (
    ("session", "Session"), ("context", "Context"), ("tokens", "Tokens"), ("model", "Model"),
    ("compactions", "Cmp"), ("risk", "Risk"), ("spend", "Spend"), ("active", "Active"),
)
_NARROW_COLUMNS = tuple(c for c in _COLUMNS if c[0] != "model")  # the preview box names the model
_NARROW = 100
"""Below this width (cells) the table drops the model column and shortens session names."""
_BAR = 8
_RIGHT = frozenset({"tokens", "compactions", "spend", "active"})


def ordered(snapshots: Sequence[SessionSnapshot]) -> list[SessionSnapshot]:
    """Most recently active first; sessions without any time last, by key."""
    return sorted(
        snapshots, key=lambda s: (s.last_activity is None, -(s.last_activity.timestamp() if s.last_activity else 0),
                                  s.key)
    )


def matches(snapshot: SessionSnapshot, query: str) -> bool:
    """Whether the filter ``query`` (case-insensitive substring) matches the key, file name or model."""
    if not query:
        return True
    haystack = " ".join((snapshot.key, snapshot.source.path.name, snapshot.model or "")).lower()
    return query.lower() in haystack


class SessionTable(DataTable[Text]):
    """Call :meth:`show` with the sessions; rows update in place while their order is unchanged."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "select_cursor", "Open")]

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.zebra_stripes = True
        self._shown: list[SessionSnapshot] = []
        self._now: datetime | None = None
        self._insights: Mapping[str, SessionInsight] = {}
        self._columns = _COLUMNS
        self._set_columns(self.app.size.width < _NARROW)
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._redraw())

    def _set_columns(self, narrow: bool) -> None:
        self._narrow = narrow
        self._columns = _NARROW_COLUMNS if narrow else _COLUMNS
        self.clear(columns=True)
        for key, label in self._columns:
            self.add_column(Text(label, justify="right" if key in _RIGHT else "left"), key=key)

    def on_resize(self) -> None:
        narrow = self.app.size.width < _NARROW
        if narrow != self._narrow:
            self._set_columns(narrow)
            self._redraw()

    def _color(self, variable: str) -> str:
        return self.app.theme_variables.get(variable, "")

    def _cells(self, snapshot: SessionSnapshot, now: datetime) -> dict[str, Text]:
        reading = snapshot.gauge
        color = self._color(LEVEL_COLOR[reading.level])
        muted = self._color("foreground-muted")
        if reading.utilization is None:
            context = Text.assemble(("╌" * _BAR, color), ("    ?", color))
        else:
            filled = round(min(reading.utilization, 1.0) * _BAR)
            context = Text.assemble(
                ("█" * filled, color), ("░" * (_BAR - filled), muted), (f" {reading.utilization:>4.0%}", color)
            )
        tokens = "?" if reading.tokens is None else format_tokens(reading.tokens)
        insight = self._insights.get(snapshot.key)
        # Risk is the engine's degradation level (compactions; docs/compaction.md), not how full the window is.
        risk = Text(insight.risk, style=self._color(f"text-{RISK_COLOR[insight.risk]}")) if insight else Text(
            "…", style=muted)
        spend = money(insight.cost.spend_usd, short=True) if insight else "…"
        return {
            "session": Text(session_label(snapshot.source, 16 if self._narrow else 32)),
            "context": context,
            "tokens": Text(f"{tokens}/{format_tokens(reading.window.tokens)}", justify="right"),
            "model": Text(snapshot.model or "-", overflow="ellipsis"),
            "compactions": Text(str(snapshot.compactions), justify="right"),
            "risk": risk,
            "spend": Text(spend, justify="right"),
            "active": Text(ago(snapshot.last_activity, now), justify="right"),
        }

    @property
    def selected_key(self) -> str | None:
        """The key of the session under the cursor."""
        if not self.row_count:
            return None
        row_key, _ = self.coordinate_to_cell_key(self.cursor_coordinate)
        return row_key.value

    def show(
        self,
        snapshots: Sequence[SessionSnapshot],
        now: datetime,
        *,
        follow_cursor: bool = True,
        insights: Mapping[str, SessionInsight] | None = None,
    ) -> None:
        """Display ``snapshots`` in this order (already filtered and sorted), with risk and spend from ``insights``.

        With ``follow_cursor`` the cursor stays on its session when the order changes, else on its row.
        """
        previous = [s.key for s in self._shown]
        self._shown, self._now = list(snapshots), now
        if insights is not None:
            self._insights = insights
        if previous == [s.key for s in snapshots]:
            for snapshot in snapshots:
                cells = self._cells(snapshot, now)
                for column, _ in self._columns:
                    self.update_cell(snapshot.key, column, cells[column], update_width=True)  # "9k" grows to "56k"
            return
        selected, row = self.selected_key, self.cursor_row
        self.clear()
        for snapshot in snapshots:
            cells = self._cells(snapshot, now)
            self.add_row(*(cells[key] for key, _ in self._columns), key=snapshot.key)
        if follow_cursor and selected is not None and selected in self.rows:
            self.move_cursor(row=self.get_row_index(selected), animate=False)
        else:
            self.move_cursor(row=min(row, max(self.row_count - 1, 0)), animate=False)

    def _redraw(self) -> None:
        if self._now is not None:
            shown, self._shown = self._shown, []
            self.show(shown, self._now)
