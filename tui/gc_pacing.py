"""Python's full garbage collections at quiet moments, not in the middle of answering a key.

A full collection scans every object the collector tracks. Freezing what exists once the sessions are read keeps
that out of the scan, but what the app builds later (screens, plans, snapshots of growing sessions) is scanned. In
one 15-trial run of ``bench.tui_actions`` the slowest answers were 218 ms (open), 426 ms (compact dialog) and 319 ms
(re-plan) with the collector automatic, and 111, 140 and 110 ms with automatic collection switched off once the
sessions were read; the process's full collections in that run took 14–454 ms each (docs/architecture.md, Targets).

So the app keeps the young generations automatic (they scan only recent objects: a millisecond or two) and runs the
full collection itself: when no key or click came for :data:`IDLE_SECONDS`, at most every
:data:`EVERY_SECONDS`, and after :data:`LONGEST_SECONDS` whatever the user is doing, so garbage kept alive only by
reference cycles is still reclaimed.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

from tui.textual_compat import forget_style_memo

__all__ = ["EVERY_SECONDS", "IDLE_SECONDS", "LONGEST_SECONDS", "CollectorPacing", "full_collection"]

IDLE_SECONDS = 3.0
"""No input for this long: a full collection now goes unnoticed."""
EVERY_SECONDS = 30.0
"""At most one full collection this often while idle."""
LONGEST_SECONDS = 300.0
"""A full collection at the latest this long after the previous one, even while the user types."""
_NEVER = 1 << 30
"""A third threshold the collector never reaches: no automatic full collection."""


def full_collection() -> None:
    """Forget Textual's memo of widgets' inner and outer colours, then collect every generation.

    Textual (8.2) memoizes ``StylesCache.get_inner_outer`` per style cache, keeping up to 1,024 caches of widgets
    long gone, with the lines they rendered (textual#6665; tui/textual_compat.py): after nine opens of a session and
    its compact dialog, 180,000 objects for the collector to scan (a full collection of 62 ms instead of 12).
    """
    forget_style_memo()
    gc.collect()


class CollectorPacing:
    """:meth:`start` takes full collections over, :meth:`tick` (called every second or so) runs them, :meth:`stop`
    gives them back. :meth:`input_seen` on every key and click."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic,
                 collect: Callable[[], object] = full_collection) -> None:
        self._clock = clock
        self._collect = collect
        self._saved: tuple[int, int, int] | None = None
        self._last_input = self._last_full = clock()

    @property
    def running(self) -> bool:
        return self._saved is not None

    def start(self) -> None:
        if self._saved is None:
            self._saved = gc.get_threshold()
            gc.set_threshold(self._saved[0], self._saved[1], _NEVER)
            self._last_full = self._clock()

    def stop(self) -> None:
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None

    def input_seen(self) -> None:
        self._last_input = self._clock()

    def tick(self) -> bool:
        """Run a full collection if now is the time; ``True`` when it ran."""
        if self._saved is None:
            return False
        now = self._clock()
        since_full = now - self._last_full
        quiet = now - self._last_input >= IDLE_SECONDS and since_full >= EVERY_SECONDS
        if not quiet and since_full < LONGEST_SECONDS:
            return False
        self._collect()
        self._last_full = self._clock()
        return True
