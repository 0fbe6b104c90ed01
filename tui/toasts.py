"""Textual's side of the app's notices (:mod:`tui.notifier` decides what is said): show one and keep its handle,
take one off the screen, and list the current ones for the notice lines (tui/widgets/notice_line.py)."""

from __future__ import annotations

from textual.app import App
from textual.notifications import Notification, Notify, SeverityLevel

__all__ = ["Toasts"]

class Toasts:
    """Notices of ``app`` that can be replaced: :class:`~tui.notifier.Notifier` takes these three methods."""

    def __init__(self, app: App[None]) -> None:
        self._app = app
        self._visible: list[Notification] = []

    def current(self) -> list[Notification]:
        """The notices still current, oldest first (the notice line shows the newest)."""
        self._visible = [n for n in self._visible if not n.has_expired]
        return list(self._visible)

    def dismiss_all(self) -> None:
        """Take every current notice off the screen (``z``)."""
        for notification in self.current():
            self.withdraw(notification)

    def clear(self) -> None:
        """Forget every current notice (Textual's list was cleared) and clear the notice lines."""
        self._visible = []
        self._changed()

    def _changed(self) -> None:
        from tui.widgets.notice_line import NoticeLine  # the widget imports nothing of ours; kept out of start-up

        def update() -> None:
            for screen in self._app.screen_stack:
                for line in screen.query(NoticeLine):
                    line.update_notices()

        self._app.call_later(update)

    def show(
        self, message: str, *, title: str, severity: SeverityLevel, timeout: float | None, markup: bool
    ) -> Notification:
        """``App.notify``, keeping the notification so that a newer notice of its kind can replace it."""
        app = self._app
        notification = Notification(message, title, severity,
                                    app.NOTIFICATION_TIMEOUT if timeout is None else timeout, markup=markup)
        # Textual still records it (tests' message hooks see the Notify); its toast is never drawn (ToastsOff):
        # the notice line shows it, off the panes.
        app.post_message(Notify(notification))
        self._visible.append(notification)
        self._changed()
        return notification

    def withdraw(self, handle: object) -> None:
        """Take a notice off the notice lines.

        Textual's own list keeps it until its timeout: nothing draws that list (Textual's toasts are off,
        tui/textual_compat.py ``ToastsOff``), so no private call is needed to take it out of there too.
        """
        if handle in self._visible:
            self._visible.remove(handle)
        self._changed()
