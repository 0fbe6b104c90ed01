"""What the terminal would get: every compositor update of a headless app rendered to its escape sequences.

The headless driver skips rendering an update to bytes; a terminal pays for it, so the benchmarks do too, and they
time a change by the moment its result is in those bytes rather than by when the test harness next looks (Textual's
``Pilot.press`` and ``Pilot.pause`` wait for the app to go idle, which adds their own delays).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

__all__ = ["FrameProbe"]

Look = Callable[[Any, str, float], None]
"""Called with the screen an update belongs to, the update as terminal text and the time it was rendered."""


class FrameProbe:
    """Renders each compositor update of ``app`` as a terminal driver would and shows it to the current lookers."""

    def __init__(self, app: Any) -> None:
        self.lookers: list[Look] = []
        original: Callable[..., None] = app._display
        console = app.console

        def display(screen: Any, renderable: Any) -> None:
            original(screen, renderable)
            render = getattr(renderable, "render_segments", None)
            if render is None or not self.lookers:
                return
            text = render(console)
            at = time.perf_counter()
            for look in tuple(self.lookers):
                look(screen, text, at)

        app._display = display  # Textual's private hook between the compositor and the driver (pinned version)
