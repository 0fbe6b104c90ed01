"""The app's width classes (``-narrow``, ``-wide``) set on a screen before it is composed.

Textual adds them on the screen's first resize, after every widget has been styled once, and restyles the whole
screen for the change: ~15% of the time to open the session view.
"""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.types import NoActiveAppError

__all__ = ["preset_breakpoints"]


def preset_breakpoints(screen: Screen[Any]) -> None:
    """Give ``screen`` the horizontal breakpoint class of the app's current width (nothing outside an app)."""
    try:
        app = screen.app
    except NoActiveAppError:
        return
    breakpoints = (app.HORIZONTAL_BREAKPOINTS if screen.HORIZONTAL_BREAKPOINTS is None
                   else screen.HORIZONTAL_BREAKPOINTS) or []
    width = app.size.width
    chosen = next((name for edge, name in sorted(breakpoints, reverse=True) if width >= edge), None)
    for _, name in breakpoints:
        screen.set_class(name == chosen, name, update=False)
