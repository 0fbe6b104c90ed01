"""A usage report as horizontal bars: one row per day, model or project, longest bar for the largest figure.

The figures are the engine's (:func:`engine.usage.aggregate.aggregate_usage`); this only draws them.
"""

from __future__ import annotations

from typing import Literal

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from engine import UsageReport, UsageTotals, format_tokens, percent
from tui.shown import shown
from tui.widgets.labels import money, shorten_middle

__all__ = ["Metric", "UsageBars", "usage_content"]

Metric = Literal["cost", "tokens"]
_EIGHTHS = " ▏▎▍▌▋▊▉█"
_FIGURES = 42
"""Cells taken by the figures right of the bar."""


def _bar(value: float, top: float, width: int) -> str:
    if top <= 0 or value <= 0 or width <= 0:
        return ""
    eighths = max(1, round(value / top * width * 8))
    full, part = divmod(eighths, 8)
    return "█" * full + (_EIGHTHS[part] if part else "")


def _figures(t: UsageTotals) -> str:
    hit = t.cache_hit_ratio
    unpriced = "+?" if t.unpriced_calls else "  "
    compactions = f"{t.compactions:>3}▲" if t.compactions else "    "
    return (f"{format_tokens(t.tokens):>7} tok {money(t.cost_usd, short=True):>7}{unpriced} "
            f"{percent(hit):>5} hit {compactions}")


def usage_content(report: UsageReport | None, metric: Metric, width: int, *, rows: int = 40) -> Content:
    """``report`` drawn in ``width`` cells: a label, a bar of ``metric``, then tokens, cost, cache hits, compactions."""
    if report is None:
        return Content.styled("Reading every session's usage…", "$text-muted")
    if not report.rows:
        return Content.styled("No calls with usage in the sessions found.", "$text-muted")
    listed = report.rows[-rows:] if report.by in ("day", "week") else report.rows[:rows]
    label_width = min(max(len(r.key) for r in listed), 28, max(width // 4, 8))

    def value(t: UsageTotals) -> float:
        return t.cost_usd if metric == "cost" else float(t.tokens)

    top = max(value(r.totals) for r in listed)
    bar_width = max(width - label_width - _FIGURES - 2, 4)
    lines = []
    for row in listed:
        lines.append(Content.assemble(
            shown(f"{shorten_middle(row.key, label_width):<{label_width}} ", "$text-secondary"),
            (f"{_bar(value(row.totals), top, bar_width):<{bar_width}}", "$primary"),
            (" " + _figures(row.totals), ""),
        ))
    total = report.total
    lines.append(Content.assemble((f"{'TOTAL':<{label_width}} ", "bold"), (" " * bar_width, ""),
                                  (" " + _figures(total), "bold")))
    hidden = len(report.rows) - len(listed)
    if hidden:
        lines.append(Content.styled(f"{hidden} more: ctxscope report --by {report.by}", "$text-muted"))
    return Content("\n").join(lines)


class UsageBars(Widget):
    """Set :attr:`report` (and :attr:`metric`) to redraw."""

    DEFAULT_CSS = """
    UsageBars { height: auto; padding: 0 1; }
    """

    report: reactive[UsageReport | None] = reactive(None, layout=True)
    metric: reactive[Metric] = reactive("cost")

    def watch_metric(self, metric: Metric) -> None:
        # The bars' length is cost or tokens: say which on the pane's frame, and how to switch.
        other = "tokens" if metric == "cost" else "cost"
        self.border_subtitle = Content(f"bars: {metric} · m: {other}")

    def render(self) -> Content:
        return usage_content(self.report, self.metric, self.size.width)
