"""The notice keys inside dialogs.

Textual stops a modal screen's key bindings at the modal, so the App's own ``n`` (every notice of this run) and ``z``
(take the notices off the screen) never reached a dialog, where a notice can cover the very lines the user is
reading. Each dialog lists these bindings; a focused text field still takes the letters as text (its key handler
runs before any binding that is not a priority one).
"""

from __future__ import annotations

from typing import Final

from textual.binding import Binding

__all__ = ["NOTICE_KEYS"]

NOTICE_KEYS: Final = (
    Binding("n", "app.notices", "Notices", show=False, tooltip="Every notice of this run, routine ones included"),
    Binding("z", "app.dismiss_notices", "Dismiss", show=False, tooltip="Take the current notices off the screen"),
)
