"""Dialogs open once: a key press or a click queued before a dialog opened reaches the screen beneath after it.

Such a second event used to push a second screen with the same id, which Textual refuses with ``DuplicateIds``
and the app crashed (the tmux test that clicks every cell found it with the risk card).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.screen import Screen

__all__ = ["push_once"]


def push_once(app: App[Any], screen: Screen[Any], callback: Callable[[Any], None] | None = None) -> bool:
    """Push ``screen`` unless a screen with its id is open already; whether it was pushed."""
    if screen.id is not None and any(s.id == screen.id for s in app.screen_stack):
        return False
    app.push_screen(screen, callback)
    return True
