"""What the app says in notifications, and how often: each thing once, repeats folded.

A session that keeps failing to read, a sidecar that keeps refusing, a worker that keeps erroring would otherwise
stack the same toast over the screen (and over a dialog's buttons) every few seconds. The :class:`Notifier` shows
a notification, then drops identical ones (same title, text and severity) for ``quiet_seconds``; the next time it
is shown it says how many were held back. A notice of a kind (title and severity) already on screen replaces it,
its title counting how many came ("Checkpoint written ×3"), and only ``max_visible`` notices are current at once
(the oldest gives way; the notice line shows the newest and counts the others). Read
errors are said once per session until the session reads again, and the checkpoints written while the sessions are
first read are said in one notification at the end.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from textual.notifications import SeverityLevel
from textual.worker import Worker

from engine import SidecarEvent, terminal_safe
from tui.notices import startup_checkpoints_text

__all__ = ["HISTORY", "QUIET_SECONDS", "Notifier", "Said", "worker_failure_title"]

HISTORY = 500
"""Notices kept for the history (``n``): the newest."""

QUIET_SECONDS = 60.0
"""How long an identical notification stays held back after it was shown."""
SHOWN_SECONDS = 5.0
"""How long a notice stays on screen unless told otherwise (Textual's default)."""
MAX_VISIBLE = 2
"""Notices current at once (the notice line shows the newest and how many others there are)."""


class Notify(Protocol):
    def __call__(self, message: str, *, title: str, severity: SeverityLevel, timeout: float | None,
                 markup: bool) -> object: ...


@dataclass(frozen=True, slots=True)
class Said:
    """One notice as the history lists it."""

    at: float
    """Unix time it was said."""
    title: str
    text: str
    severity: SeverityLevel
    routine: bool
    """Filed only (the history and the Audit tab hold it), never shown on the notice line."""


@dataclass
class _OnScreen:
    handle: object
    until: float
    count: int


@dataclass
class Notifier:
    """Shows notifications through ``notify`` (it returns a handle that ``withdraw`` takes off the screen), plain
    text, repeats folded, one notice per kind."""

    notify: Notify
    label: Callable[[str], str]
    clock: Callable[[], float] = time.monotonic
    quiet_seconds: float = QUIET_SECONDS
    withdraw: Callable[[object], None] = lambda handle: None
    max_visible: Callable[[], int] = lambda: MAX_VISIBLE
    """How many notices may be current at once."""
    _shown: dict[tuple[str, str, str], float] = field(default_factory=dict)
    _held: dict[tuple[str, str, str], int] = field(default_factory=dict)
    _on_screen: dict[tuple[str, str], _OnScreen] = field(default_factory=dict)
    _read_errors: dict[str, str] = field(default_factory=dict)
    _startup: list[SidecarEvent] = field(default_factory=list)
    history: list[Said] = field(default_factory=list)
    """Every notice said or filed, oldest first (at most :data:`HISTORY`)."""
    wall_clock: Callable[[], float] = time.time

    def _file(self, text: str, title: str, severity: SeverityLevel, routine: bool) -> None:
        self.history.append(Said(self.wall_clock(), title, text, severity, routine))
        del self.history[:-HISTORY]

    def tell(self, text: str, *, title: str = "", severity: SeverityLevel = "information",
             timeout: float | None = None, routine: bool = False) -> bool:
        """Notify with plain text (engine messages and paths may hold ``[``); ``False`` when held back.

        ``routine`` (information the Audit tab already lists, e.g. automatic checkpoints): filed in the history
        only, never on screen.
        """
        if routine and severity == "information":
            self._file(text, title, severity, True)
            return False
        key, now = (title, text, severity), self.clock()
        shown = self._shown.get(key)
        if shown is not None and now - shown < self.quiet_seconds:
            self._held[key] = self._held.get(key, 0) + 1
            return False
        held = self._held.pop(key, 0)
        if held:
            text += f" (and {held} more time{'s' if held != 1 else ''} in the last minutes)"
        self._shown[key] = now
        kind, count = (title, severity), 1
        self._on_screen = {k: v for k, v in self._on_screen.items() if v.until > now}  # gone by themselves
        same = self._on_screen.pop(kind, None)
        if same is not None:
            self.withdraw(same.handle)
            count = same.count + 1
        while self._on_screen and len(self._on_screen) >= max(1, self.max_visible()):
            oldest = next(iter(self._on_screen))
            self.withdraw(self._on_screen.pop(oldest).handle)
        shown_title = f"{title} ×{count}" if count > 1 else title
        self._file(text, shown_title, severity, False)
        # Plain text, its control characters shown: errors quote names and paths from the session.
        handle = self.notify(terminal_safe(text, one_line=False), title=terminal_safe(shown_title), severity=severity,
                             timeout=timeout, markup=False)
        self._on_screen[kind] = _OnScreen(handle, now + (timeout or SHOWN_SECONDS), count)
        return True

    def read_failed(self, key: str, error: str) -> None:
        """Say a session cannot be read, once until it reads again or fails differently."""
        if self._read_errors.get(key) != error and self.tell(error, title=f"Can't read {self.label(key)}",
                                                             severity="error"):
            self._read_errors[key] = error  # only once it was shown: a failure held back is said later

    def read_again(self, key: str) -> None:
        """The session read cleanly: a later failure is news again."""
        self._read_errors.pop(key, None)

    def startup_checkpoint(self, event: SidecarEvent) -> None:
        """Hold a checkpoint written during the first read, for :meth:`startup_done`."""
        self._startup.append(event)

    def startup_done(self) -> None:
        """One notification for every checkpoint written while the sessions were first read."""
        if self._startup:
            title, text = startup_checkpoints_text(self._startup, self.label)
            self.tell(text, title=title)
            self._startup = []


def worker_failure_title(worker: Worker[object]) -> str:
    """The title of the notification for a background job that raised."""
    if worker.group == "follow_sessions":
        return "Live updates stopped"
    if worker.group == "controls":
        return "Action failed"
    return f"Could not {worker.name.replace('_', ' ')}"
