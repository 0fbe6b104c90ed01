"""Textual's side of the app's notices (:mod:`tui.notifier` decides what is said): show one and keep its handle,
take one off the screen, and count how many fit above the session view's plot."""

from __future__ import annotations

from textual.app import App, ScreenStackError
from textual.notifications import Notification, Notify, SeverityLevel

from tui.notifier import MAX_VISIBLE
from tui.screens.session_view import SessionScreen
from tui.widgets.plot import UtilizationPlot

__all__ = ["NOTICES_TOP", "NOTICE_ROWS", "Toasts"]

NOTICES_TOP = 9
"""The row the session view's notices start at, below the gauge (``SessionScreen ToastRack`` in app.tcss)."""
NOTICE_ROWS = 6
"""Rows one notice takes: its margin, padding, title and two lines of text."""


class Toasts:
    """Notices of ``app`` that can be replaced: :class:`~tui.notifier.Notifier` takes these three methods."""

    def __init__(self, app: App[None]) -> None:
        self._app = app

    def show(
        self, message: str, *, title: str, severity: SeverityLevel, timeout: float | None, markup: bool
    ) -> Notification:
        """``App.notify``, keeping the notification so that a newer notice of its kind can replace it."""
        app = self._app
        notification = Notification(message, title, severity,
                                    app.NOTIFICATION_TIMEOUT if timeout is None else timeout, markup=markup)
        app.post_message(Notify(notification))
        return notification

    def withdraw(self, handle: object) -> None:
        """Take a notice off the screen; queued behind its own ``Notify``, so it never arrives after this."""
        app = self._app

        def withdraw() -> None:
            # Textual 8.2.8 (pinned) has no public way to dismiss one notification; its Toast does the same on click.
            if isinstance(handle, Notification) and handle in app._notifications:
                app._unnotify(handle)

        app.call_later(withdraw)

    def fit(self) -> int:
        """Notices that fit between the session view's gauge and its plot (elsewhere nothing is below them)."""
        try:
            screen = self._app.screen
        except ScreenStackError:
            return MAX_VISIBLE
        plots = screen.query(UtilizationPlot) if isinstance(screen, SessionScreen) else None
        plot = plots.first() if plots else None
        if plot is None or not plot.region:
            return MAX_VISIBLE
        return max(1, min(MAX_VISIBLE, (plot.region.y - NOTICES_TOP) // NOTICE_ROWS))
