"""The notices of the app on one line in the screen's title row, never over the work.

Textual's toasts float over the screen, and covered the checkpoint diff, the transcript, the audit lines, the Usage
bars and the help. This line sits in the title row (docked top, over the title bar while a notice is current): the
panes keep every row, and nothing of them is ever beneath it. It shows the newest notice and how many others are
current; ``n`` lists them all (:class:`~tui.screens.notices.NoticesScreen`), ``z`` dismisses them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual.content import Content
from textual.notifications import Notification
from textual.widgets import Static

from tui.shown import shown

__all__ = ["NoticeLine"]

_SEVERITY = {"information": ("i", "$text-accent"), "warning": ("!", "$text-warning"), "error": ("✗", "$text-error")}


class NoticeLine(Static):
    """Shows the newest current notice; hidden (no row taken) when there is none."""

    DEFAULT_CSS = """
    NoticeLine {
        dock: top;
        height: 1;
        width: 1fr;
        padding: 0 1;
        background: $panel;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        display: none;
    }
    """

    def __init__(self, current: Callable[[], Sequence[Notification]] | None = None) -> None:
        super().__init__(id="notice-line")
        self._source = current
        self._shown: tuple[str, ...] = ()

    def _current(self) -> Sequence[Notification]:
        # The app's notices (CtxscopeApp.current_notices); a screen run on its own shows none.
        source = self._source or getattr(self.app, "current_notices", None)
        return source() if source is not None else ()

    def on_mount(self) -> None:
        self.set_interval(1.0, self.update_notices)  # a notice's own timeout ends it
        self.update_notices()

    def update_notices(self) -> None:
        """Show the newest current notice (re-rendered only when the set changed)."""
        current = list(self._current())
        identities = tuple(n.identity for n in current)
        if identities == self._shown:
            return
        self._shown = identities
        self.display = bool(current)
        if not current:
            return
        newest = current[-1]
        glyph, color = _SEVERITY.get(newest.severity, ("i", "$text-accent"))
        more = len(current) - 1
        self.update(Content.assemble(
            (f"{glyph} ", f"bold {color}"),
            # Any notice may quote session data (app.notify is not only called through the Notifier): text only.
            shown(f"{newest.title}: " if newest.title else "", f"bold {color}"),
            shown(newest.message.replace("\n", " ")),
            (f"  (+{more} more)" if more else "", "$text-muted"),
            ("  n notices · z dismiss", "$text-muted"),
        ))
