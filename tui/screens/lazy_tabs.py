"""The session view's tabs other than the overview, mounted the first time they are shown.

Composing all seven tabs took most of the time to open a session (docs/architecture.md, Targets). The screen's
workers still read what every tab shows; :meth:`LazyTabs.deliver` hands a result to its tab's view at once when
the view is mounted, and otherwise keeps the newest one for the moment the tab is first shown.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.screen import Screen
from textual.widget import AwaitMount, Widget

from tui.widgets.tab_bar import TabBar

__all__ = ["LazyTabs"]


class LazyTabs:
    """Mounts each tab's view (made by ``make_view``) on first show and replays the newest result for it."""

    def __init__(self, screen: Screen[None], make_view: Callable[[str], Widget], *, shown: str) -> None:
        self._screen = screen
        self._make_view = make_view
        self._filled: set[str] = {shown}
        self._latest: dict[str, Callable[[], None]] = {}

    def deliver(self, tab: str, show: Callable[[], None]) -> None:
        """Show a result in ``tab``: now if its view is there (``show`` skips a view still mounting), and again
        once it is mounted, with the newest result delivered by then."""
        self._latest[tab] = show
        if tab in self._filled:
            show()

    def fill(self, tab: str) -> AwaitMount | None:
        """Mount ``tab``'s view unless it already is; the awaitable of the mount, or ``None``."""
        if tab in self._filled:
            return None
        self._filled.add(tab)
        mounted = self._screen.query_one(f"#{tab}").mount(self._make_view(tab))
        self._screen.call_later(self._replay, mounted, tab)
        return mounted

    async def _replay(self, mounted: AwaitMount, tab: str) -> None:
        await mounted
        show = self._latest.get(tab)
        if show is not None:
            show()

    async def focus(self, tab: str, mounted: AwaitMount | None) -> None:
        """Put the keyboard in ``tab``'s view, once mounted: the tab bar kept it when a tab was switched to, so
        space, enter and up/down reached nothing until the user found the Tab key. A tab with nothing to focus
        (the overview) leaves it on the tab bar, where left/right still work."""
        if mounted is not None:
            await mounted
        pane = self._screen.query_one(f"#{tab}")
        target = next((w for w in pane.query("*") if w.focusable), None)
        if target is None:
            target = self._screen.query_one(TabBar)
        target.focus()
