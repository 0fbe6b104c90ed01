"""The session list's table: one row per session, in the order and filter the list screen chose."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import DataTable

from engine import SessionInsight, SessionMetrics, SessionSnapshot, default_host, format_tokens, session_metrics
from tui.shown import shown_text
from tui.widgets.labels import ago, money, session_label, shorten
from tui.widgets.levels import LEVEL_COLOR, RISK_COLOR
from tui.widgets.movement import movement_keys
from tui.widgets.session_order import project_label

__all__ = ["SessionTable", "metric_cells"]

_COLUMNS: tuple[tuple[str, str], ...] = (
    ("session", "Session"), ("project", "Project"), ("context", "Context"), ("tokens", "Tokens"),
    ("model", "Model"), ("compactions", "Cmp"), ("risk", "Risk"), ("spend", "Spend"), ("active", "Active"),
)
_NARROW_COLUMNS = tuple(c for c in _COLUMNS if c[0] not in ("model", "project"))  # the preview box names both
_METRIC_COLUMNS: tuple[tuple[str, str], ...] = (
    ("session", "Session"), ("m_tokens", "Tokens"), ("m_window", "Window"), ("m_util", "Util"),
    ("m_line", "Cmp line"), ("m_compactions", "Cmp"), ("m_degradation", "Degradation"), ("m_checkpoints", "Ckpts"),
    ("m_recorded", "Recorded $"), ("m_estimated", "Estimated $"), ("m_cache_read", "Cache read"),
    ("m_cache_write", "Cache write"), ("active", "Active"),
)
"""The values ``ctxscope watch --metrics`` exports (:func:`engine.live.metrics.session_metrics`), as exported."""
_NARROW = 100
"""Below this width (cells) the table drops the model column and shortens session names."""
_BAR = 8
_NAMES = frozenset({"session", "project", "model"})
"""The columns ordered by name (A→Z) rather than by a number (largest first)."""
_RIGHT = frozenset({"tokens", "compactions", "spend", "active"} | {k for k, _ in _METRIC_COLUMNS if k.startswith("m_")}
                   - {"m_degradation"})


_PROJECT = 12
_OTHER_COLUMNS = 78
"""Cells the wide list's columns other than session and model take, padding and a spare cell included: the rest
is the names' (at 120 columns the list overflowed by one cell and showed a horizontal scrollbar)."""


def _name_widths(width: int) -> tuple[int, int]:
    """The session and model names' widths that let the wide list fit ``width`` cells."""
    budget = max(24, width - _OTHER_COLUMNS)
    model = min(20, max(10, budget // 2))  # a whole model name ("claude-sonnet-4-5") before a long session name
    return min(28, budget - model), model


def _number(value: float | None, spec: str = ",") -> str:
    return "-" if value is None else format(value, spec)


def metric_cells(row: SessionMetrics) -> dict[str, str]:
    """The exported values of one session as the metrics columns show them (``-``: not exported, unknown)."""
    return {
        "m_tokens": _number(row.context_tokens),
        "m_window": _number(row.window_tokens),
        # Rounded as every other view rounds them (engine.accounting.rounding); the exporter keeps full precision.
        "m_util": "-" if row.utilization is None else f"{row.utilization:.0%}",
        "m_line": _number(row.compaction_line_tokens),
        "m_compactions": _number(row.compactions),
        "m_degradation": "-" if row.degradation is None else f"{row.degradation_level} {row.degradation}",
        "m_checkpoints": _number(row.checkpoints_written),
        "m_recorded": money(row.cost_recorded_usd),
        "m_estimated": money(row.cost_estimated_usd),
        "m_cache_read": _number(row.cache_read_tokens),
        "m_cache_write": _number(row.cache_write_tokens),
    }


class SessionTable(DataTable[Text]):
    """Call :meth:`show` with the sessions; rows update in place while their order is unchanged."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # Enter opening the row is what a list does; at 80 columns its footer place keeps ? Help in.
        Binding("enter", "select_cursor", "Open", show=False),
        *movement_keys(up="cursor_up", down="cursor_down", first="scroll_top", last="scroll_bottom"),
    ]

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.zebra_stripes = True
        self._shown: list[SessionSnapshot] = []
        self._now: datetime | None = None
        self._insights: Mapping[str, SessionInsight] = {}
        self._columns = _COLUMNS
        self._metrics = False
        self._host = default_host()
        self._sort = "active"
        self._width = self.app.size.width
        self._set_columns(self._width < _NARROW)
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._redraw())

    @property
    def metrics(self) -> bool:
        """Whether the table shows the exported metrics instead of the usual columns."""
        return self._metrics

    def show_metrics(self, on: bool, host: str | None = None) -> None:
        """Switch to the columns ``watch --metrics`` exports (``host``: the configured host label) and back."""
        self._metrics = on
        self._host = host or self._host
        self._set_columns(self._narrow)
        self._redraw()

    def show_sort(self, by: str) -> None:
        """Mark the header of the column the rows are ordered ``by`` (one of ``SORTS``)."""
        if by != self._sort:
            selected = self.selected_key
            self._sort = by
            self._set_columns(self._narrow)
            self._redraw()
            if selected is not None and selected in self.rows:
                self.move_cursor(row=self.get_row_index(selected), animate=False)

    def _set_columns(self, narrow: bool) -> None:
        self._narrow = narrow
        self._columns = _METRIC_COLUMNS if self._metrics else _NARROW_COLUMNS if narrow else _COLUMNS
        self.clear(columns=True)
        for key, label in self._columns:
            # The order shows on its column once the "sorted by" notice is gone: numbers and times largest or
            # newest first (▼), names A→Z (▲).
            mark = "" if key != self._sort else " ▲" if key in _NAMES else " ▼"
            self.add_column(Text(label + mark, justify="right" if key in _RIGHT else "left"), key=key)

    def on_resize(self) -> None:
        width = self.app.size.width
        if width != self._width:  # the names' widths follow the terminal's (_name_widths)
            self._width = width
            self._set_columns(width < _NARROW)
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
        exported = metric_cells(session_metrics(snapshot, insight, self._host)) if self._metrics else {}
        session_width, model_width = _name_widths(self.app.size.width)
        return {
            **{key: Text(value, justify="left" if key == "m_degradation" else "right") for key, value in
               exported.items()},
            "session": shown_text(session_label(snapshot.source, 16 if self._narrow else session_width)),
            "project": shown_text(shorten(project_label(snapshot), _PROJECT), overflow="ellipsis"),
            "context": context,
            "tokens": Text(f"{tokens}/{format_tokens(reading.window.tokens)}", justify="right"),
            "model": shown_text(shorten(snapshot.model or "-", model_width), overflow="ellipsis"),
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
