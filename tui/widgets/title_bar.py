"""The one-line title at the top of each screen: the app's title and the screen's sub-title.

Textual's ``Header`` updates a child widget from watchers it registers on mount; under load those ran before the
child was mounted (``NoMatches`` for ``HeaderTitle``), or were left un-awaited when the app closed. This bar has no
children: it renders the titles it reads, and re-renders when either changes.
"""

from __future__ import annotations

from textual.app import RenderResult
from textual.content import Content
from textual.widget import Widget

from tui.shown import shown

__all__ = ["TitleBar"]


class TitleBar(Widget):
    """``ctxscope — <sub-title>``, centred on one line."""

    DEFAULT_CSS = """
    TitleBar {
        dock: top;
        width: 100%;
        height: 1;
        background: $panel;
        color: $foreground;
        content-align: center middle;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def on_mount(self) -> None:
        # Watchers call back synchronously into refresh(): nothing to query, nothing left pending on exit. Only the
        # screen's sub-title is watched: ctxscope's title is fixed (App.TITLE), and a watcher on the app, which
        # Textual drops only when the title next changes, kept every bar (and all it rendered) for the app's life.
        self.watch(self.screen, "sub_title", self._changed, init=False)

    def _changed(self, _value: str) -> None:
        self.refresh()

    def render(self) -> RenderResult:
        title, sub_title = self.app.title, self.screen.sub_title
        return Content.assemble(title, shown(f" — {sub_title}", "$text-muted") if sub_title else "")
