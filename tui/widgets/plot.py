"""Utilization over turns: one bar per model reply (squeezed to fit), compactions marked under the axis.

The series and the squeezing are the engine's (:mod:`engine.accounting.timeline`); this only draws them. The dotted
line is the agent's compaction line; bars above it are drawn in ``$error``.
"""

from __future__ import annotations

import math

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from engine import PlotColumn, Timeline, plot_columns

__all__ = ["UtilizationPlot", "plot_content"]

_EIGHTHS = " ▁▂▃▄▅▆▇█"
_AXIS = 5
_LINE = "$text-error"
"""The compaction line's style, the legend's: ``$error 60%`` read 1.96:1 in 256 colours (docs/small-terminals.md)."""


def _scale(timeline: Timeline, line: float | None) -> float:
    """Top of the y axis: the next 10% above the peak and the compaction line, at most 100% unless exceeded."""
    peak = max(timeline.peak or 0.0, line or 0.0, 0.1)
    return max(min(math.ceil(peak * 10) / 10, 1.0), peak)


def _cell(column: PlotColumn, low: float, high: float, line: float | None) -> tuple[str, str]:
    value = column.utilization
    on_line = line is not None and low <= line < high
    if value is None:
        return ("┊", "$error") if column.compaction else ("┈" if on_line else " ", _LINE)
    color = "$error" if line is not None and value > line else "$primary"
    if value >= high:
        return "█", color
    if value > low:
        return _EIGHTHS[max(1, int((value - low) / (high - low) * 8))], color
    return ("┈", _LINE) if on_line else (" ", "")


def _widen(cell: tuple[str, str], column: PlotColumn, width: int) -> tuple[str, str]:
    glyph, style = cell
    if column.utilization is None and column.compaction:
        return glyph + " " * (width - 1), style  # a compaction stays a thin line, however wide the column
    return glyph * width, style


def _widths(columns: int, width: int) -> list[int]:
    """Cells per column: the whole width shared evenly, at most 4 cells each, so few samples still read as a plot."""
    total = min(width, columns * 4)
    return [(i + 1) * total // columns - i * total // columns for i in range(columns)]


def plot_content(timeline: Timeline | None, compaction_line: float | None, width: int, height: int) -> Content:
    """The plot of ``timeline`` in ``width`` × ``height`` cells (two rows go to the axis and caption)."""
    if timeline is None:  # a worker is still reading it; "no replies" would be wrong for a second
        return Content.styled("measuring the replies…", "$text-muted")
    if not timeline.samples:
        return Content.styled("No model replies with usage yet: the plot starts at the first reply.", "$text-muted")
    rows = max(height - 2, 2)
    columns = plot_columns(timeline, max(width - _AXIS, 1))
    widths = _widths(len(columns), max(width - _AXIS, 1))
    top = _scale(timeline, compaction_line)
    lines: list[Content] = []
    for row in range(rows):
        high = top * (rows - row) / rows
        low = top * (rows - row - 1) / rows
        label = f"{high:.0%}" if row == 0 else ("0%" if row == rows - 1 else "")
        cells = [_widen(_cell(c, low, high, compaction_line), c, w) for c, w in zip(columns, widths, strict=True)]
        lines.append(Content.assemble((f"{label:>4}│", "$text-muted"), *cells))
    ticks: list[tuple[str, str]] = [("    └", "$text-muted")]
    for column, cells_wide in zip(columns, widths, strict=True):
        ticks += [("▲", "bold $text-error"), ("─" * (cells_wide - 1), "$text-muted")] if column.compaction else [
            ("─" * cells_wide, "$text-muted")
        ]
    marks = Content.assemble(*ticks)
    caption = Content.assemble(
        (f"{timeline.turns} replies", "$text-muted"),
        ("  ▲ ", "bold $text-error"),
        (f"{timeline.compactions} compaction{'s' if timeline.compactions != 1 else ''}", "$text-muted"),
        ("  ┈ ", "$text-error"),
        ("agent's compaction line", "$text-muted"),
        (f"  highest reply {timeline.peak:.0%}" if timeline.peak is not None else "", "$text-muted"),
    )
    return Content("\n").join([*lines, marks, caption])


class UtilizationPlot(Widget):
    """Set :attr:`timeline` (and :attr:`compaction_line`, a fraction of the window) to redraw."""

    DEFAULT_CSS = """
    UtilizationPlot { height: 1fr; min-height: 5; }
    """

    timeline: reactive[Timeline | None] = reactive(None)
    compaction_line: reactive[float | None] = reactive(None)

    def render(self) -> Content:
        return plot_content(self.timeline, self.compaction_line, self.size.width, self.size.height)
