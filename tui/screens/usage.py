"""Usage across every session: tokens, cost, cache hits and compactions as bars by day, by model and by project.

The figures are :func:`engine.usage.aggregate.aggregate_usage` over what :func:`engine.usage.collect.collect_usage`
reads through the persistent index (``ctxscope report`` prints the same); reading runs in a worker, so opening the
screen never blocks, and a second opening costs what was appended since.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import tzinfo
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Static
from textual.worker import get_current_worker

from engine import GroupBy, SessionUsage, UsageReport, aggregate_usage, money
from tui.shown import shown
from tui.widgets.footer import KeyFooter
from tui.widgets.notice_line import NoticeLine
from tui.widgets.usage_bars import Metric, UsageBars

__all__ = ["PANES", "UsageLoader", "UsageScreen"]

UsageLoader = Callable[[], tuple[tuple[SessionUsage, ...], tuple[str, ...]]]
"""Reads every session's usage (blocking: the screen calls it from a worker): ``(usages, problems)``."""

PANES: tuple[tuple[GroupBy, str], ...] = (("day", "By day"), ("model", "By model"), ("project", "By project"))


class UsageScreen(Screen[None]):
    """Bars by day, model and project; ``m`` switches the bars between cost and tokens, ``r`` reads again."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("m", "toggle_metric", "Cost/tokens", tooltip="Draw the bars by cost or by tokens"),
        Binding("r", "reload", "Reload", tooltip="Read every session's usage again"),
    ]

    def __init__(self, load: UsageLoader, *, tz: tzinfo) -> None:
        super().__init__(id="usage")
        self._load = load
        self._tz = tz
        self.reports: dict[GroupBy, UsageReport] = {}
        """The reports on screen, by grouping (empty until the first read finishes)."""
        self._problems: tuple[str, ...] = ()

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="usage-body"):
            yield Static(id="usage-status")
            for by, title in PANES:
                bars = UsageBars(id=f"usage-{by}", classes="usage-pane")
                bars.border_title = title
                yield bars
        yield NoticeLine()
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        self.sub_title = "usage and cost"
        self.query_one("#usage-status", Static).update("Reading every session's usage…")
        self.read_usage()

    @work(thread=True, exclusive=True, group="read_usage", exit_on_error=False)
    def read_usage(self) -> None:
        """Read every session through the index and aggregate it three ways (off the UI thread)."""
        usages, problems = self._load()
        reports = {by: aggregate_usage(usages, by, tz=self._tz) for by, _ in PANES}
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show, reports, problems)

    def _show(self, reports: dict[GroupBy, UsageReport], problems: tuple[str, ...]) -> None:
        self.reports, self._problems = reports, problems
        for by, _ in PANES:
            self.query_one(f"#usage-{by}", UsageBars).report = reports[by]
        report = reports["day"]
        total = report.total
        status = (f"{report.sessions:,} session{'' if report.sessions == 1 else 's'} · {total.calls:,} calls · "
                  f"{total.tokens:,} tokens · "
                  f"{money(total.cost_usd)} ({total.cost_source}) · {total.compactions:,} compactions "
                  f"({money(total.compaction_cost_usd)} of cache writes) · days in {report.timezone}")
        if report.duplicate_calls:
            status += f" · {report.duplicate_calls:,} copied calls counted once"
        if problems:
            status += f"\n{len(problems)} session(s) could not be read: {problems[0]}"
        self.query_one("#usage-status", Static).update(shown(status, one_line=False))  # a problem names a path

    @property
    def _metric(self) -> Metric:
        return self.query_one(f"#usage-{PANES[0][0]}", UsageBars).metric

    def action_toggle_metric(self) -> None:
        """Draw the bars by tokens instead of cost, or back."""
        metric: Metric = "tokens" if self._metric == "cost" else "cost"
        for bars in self.query(UsageBars):
            bars.metric = metric
        if self.reports:
            self._show(self.reports, self._problems)

    def action_reload(self) -> None:
        """Read every session's usage again (only what was appended is scanned)."""
        self.read_usage()
