"""The session view's tab bar: every label in one widget, the chosen one marked, switched by click, arrows or number.

Textual's ``TabbedContent`` mounts a widget per tab, an underline, a switcher and a pane per tab: about half of the
time to open a session went to composing, styling and laying them out (docs/architecture.md, Targets). This bar is
one widget that renders its labels; the screen shows the chosen tab's pane and hides the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.cells import cell_len
from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

__all__ = ["TabBar"]

_GAPS = (2, 1, 0)
"""Cells between two labels: the widest that lets every label fit (at 80 columns, 1)."""


class TabBar(Widget, can_focus=True):
    """Tabs ``(id, label)`` in order; :attr:`active` is the chosen tab's id. Posts :class:`TabBar.Activated`."""

    DEFAULT_CSS = """
    TabBar {
        height: 2;
        width: 100%;
        padding: 0 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", "Previous tab", show=False),
        Binding("right", "step(1)", "Next tab", show=False),
    ]

    active: reactive[str] = reactive("")

    class Activated(Message):
        """A tab was chosen (by click, arrow key or :attr:`TabBar.active`)."""

        def __init__(self, bar: TabBar, tab: str) -> None:
            super().__init__()
            self.bar = bar
            self.tab = tab

        @property
        def control(self) -> TabBar:
            return self.bar

    def __init__(self, tabs: Sequence[tuple[str, str]], *, active: str, id: str | None = None) -> None:
        super().__init__(id=id)
        self.tabs = tuple(tabs)
        self.set_reactive(TabBar.active, active)

    def watch_active(self, tab: str) -> None:
        self.post_message(self.Activated(self, tab))

    def _gap(self) -> int:
        labels = sum(cell_len(label) + 2 for _, label in self.tabs)  # a space either side
        room = self.content_region.width or labels + _GAPS[0] * len(self.tabs)
        return next((gap for gap in _GAPS if labels + gap * (len(self.tabs) - 1) <= room), 0)

    def _spans(self) -> list[tuple[str, int, int]]:
        """Each tab with the first and last-plus-one cell of its label (padding left aside)."""
        spans, x, gap = [], 0, self._gap()
        for tab, label in self.tabs:
            width = cell_len(label) + 2
            spans.append((tab, x, x + width))
            x += width + gap
        return spans

    def render(self) -> Content:
        labels: list[tuple[str, str]] = []
        rule: list[tuple[str, str]] = []
        chosen = "bold $block-cursor-foreground on $block-cursor-background" if self.has_focus else "bold $foreground"
        gap = self._gap()
        for (tab, label), (_, start, end) in zip(self.tabs, self._spans(), strict=True):
            on = tab == self.active
            labels += [(f" {label} ", chosen if on else "$text-muted"), (" " * gap, "")]
            rule += [("━" * (end - start), "$block-cursor-background" if on else "$foreground 20%"),
                     ("━" * gap, "$foreground 20%")]
        width = max(self.content_region.width, 1)
        filled = sum(cell_len(text) for text, _ in rule)
        rule.append(("━" * max(width - filled, 0), "$foreground 20%"))
        return Content("\n").join([Content.assemble(*labels), Content.assemble(*rule)])

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def on_click(self, event: events.Click) -> None:
        x = event.x - self.styles.padding.left
        tab = next((tab for tab, start, end in self._spans() if start <= x < end), None)
        if tab is not None:
            self.active = tab

    def action_step(self, step: int) -> None:
        ids = [tab for tab, _ in self.tabs]
        self.active = ids[(ids.index(self.active) + step) % len(ids)]
