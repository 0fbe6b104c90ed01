"""Where file changes come from: the directories to watch and the change sources that report them.

Kept apart from :mod:`tui.follow` (which turns refreshes into Textual messages) so that ``ctxscope watch`` follows
sessions with ``watchfiles`` alone and never loads Textual. The real source is :func:`watch_changes`
(``watchfiles.awatch`` with a short debounce); tests and the demo push paths into a :class:`ChangeQueue` instead,
so nothing depends on filesystem timing.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path

from watchfiles import Change, awatch

from engine.agents.discovery import default_roots
from engine.stores.source import classify_file

__all__ = ["ChangeQueue", "ChangeSource", "watch_changes", "watch_targets"]

ChangeSource = Callable[[tuple[Path, ...]], AsyncIterator[frozenset[Path]]]
"""Given the paths to watch, yields batches of changed paths until cancelled; the first batch means "watching
now" (it may be empty) and makes every session catch up."""

_READY_TIMEOUT_MS = 500
"""How long the watcher waits for a change before saying it is ready with an empty batch (idle ticks after the
first are dropped)."""

def _relevant(change: Change, path: str) -> bool:
    # The SQLite era writes through the WAL first, so its -wal file is what changes on every append.
    return path.endswith("-wal") or classify_file(Path(path)) in ("transcript", "store", "sqlite", "lock")


def watch_changes(
    *, debounce_ms: int = 100, step_ms: int = 20, force_polling: bool | None = None, stop: asyncio.Event | None = None
) -> ChangeSource:
    """The real change source: ``watchfiles.awatch`` over the targets, batched for at most ``debounce_ms``.

    The first batch (empty when nothing changed) comes once the watcher runs: what was appended between the
    first read and that moment is seen by no watcher, so consumers catch every session up on it
    (``absorb(catch_up=True)``). ``force_polling`` is passed through for WSL and network filesystems; setting
    ``stop`` ends the batches.
    """

    async def changes(targets: tuple[Path, ...]) -> AsyncIterator[frozenset[Path]]:
        if not targets:
            await (stop or asyncio.Event()).wait()  # nothing to watch: idle until stopped or cancelled
            return
        first = True
        async for batch in awatch(
            *targets, watch_filter=_relevant, debounce=debounce_ms, step=step_ms, force_polling=force_polling,
            rust_timeout=_READY_TIMEOUT_MS, yield_on_timeout=True, stop_event=stop,
        ):
            if batch or first:
                yield frozenset(Path(path) for _, path in batch)
            first = False

    return changes


class ChangeQueue:
    """A change source driven by hand: :meth:`push` paths and the follower refreshes their sessions."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[frozenset[Path]] = asyncio.Queue()
        self.targets: tuple[Path, ...] | None = None
        """What the follower asked to watch (``None`` until it starts)."""
        self.handled = 0
        """Batches the follower has finished with (it asked for the next one)."""

    def push(self, *paths: Path) -> None:
        """Report ``paths`` as changed."""
        self._queue.put_nowait(frozenset(paths))

    async def __call__(self, targets: tuple[Path, ...]) -> AsyncIterator[frozenset[Path]]:
        self.targets = targets
        while True:
            yield await self._queue.get()
            self.handled += 1


def watch_targets(paths: Sequence[Path], env: dict[str, str] | None = None) -> tuple[Path, ...]:
    """Directories to watch: the given directories, the parents of given files, else the existing default roots."""
    if not paths:
        return tuple(root for root in default_roots(env) if root.is_dir())
    targets: list[Path] = []
    for path in paths:
        path = path.expanduser()
        if not path.exists():
            continue
        target = path if path.is_dir() else path.parent
        if target not in targets:
            targets.append(target)
    return tuple(targets)
