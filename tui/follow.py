"""Live following of every discovered session: file changes in, messages out.

:func:`follow_sessions` is the body of the App's one exclusive worker. It discovers sessions, reads each
once, then refreshes only the sessions whose files a change batch names. Every read runs in
``asyncio.to_thread`` so the UI never waits on disk. The change source is injectable: the real one is
:func:`watch_changes` (``watchfiles.awatch`` with a short debounce), tests and the demo push paths into a
:class:`ChangeQueue` instead, so nothing depends on filesystem timing.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from textual.message import Message
from watchfiles import Change, awatch

from engine.config import Config
from engine.gauge import GaugeLevel
from engine.session import SessionFollower, SessionSnapshot
from engine.stores import Discovery, SessionSource, classify_file, default_roots, discover_sessions
from engine.transcript import TranscriptError
from tui.messages import (
    CompactionDetected,
    SessionReadFailed,
    SessionsDiscovered,
    SessionsLoaded,
    SessionUpdated,
    ThresholdCrossed,
)

__all__ = [
    "ChangeQueue",
    "ChangeSource",
    "SessionTracker",
    "follow_sessions",
    "watch_changes",
    "watch_targets",
]

ChangeSource = Callable[[tuple[Path, ...]], AsyncIterator[frozenset[Path]]]
"""Given the paths to watch, yields batches of changed paths until cancelled."""

T = TypeVar("T")

# Rising past one of these is worth a notification; "unknown" (after a compaction) ranks below all of them.
_LEVEL_RANK: dict[GaugeLevel, int] = {
    "unknown": -1, "ok": 0, "gauge": 1, "checkpoint": 2, "near-compaction": 3, "over-compaction": 4,
}


def _relevant(change: Change, path: str) -> bool:
    # The SQLite era writes through the WAL first, so its -wal file is what changes on every append.
    return path.endswith("-wal") or classify_file(Path(path)) in ("transcript", "store", "sqlite")


def watch_changes(*, debounce_ms: int = 100, step_ms: int = 50, force_polling: bool | None = None) -> ChangeSource:
    """The real change source: ``watchfiles.awatch`` over the targets, batched for at most ``debounce_ms``.

    ``force_polling`` is passed through for WSL and network filesystems, where inotify sees nothing.
    """

    async def changes(targets: tuple[Path, ...]) -> AsyncIterator[frozenset[Path]]:
        if not targets:
            await asyncio.Event().wait()  # nothing to watch: idle until cancelled
        async for batch in awatch(
            *targets, watch_filter=_relevant, debounce=debounce_ms, step=step_ms, force_polling=force_polling
        ):
            yield frozenset(Path(path) for _, path in batch)

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


@dataclass
class _Tracked:
    follower: SessionFollower
    lock: threading.Lock = field(default_factory=threading.Lock)


class SessionTracker:
    """The engine followers of every discovered session, keyed by session key, safe to use from threads."""

    def __init__(self, paths: Sequence[Path] = (), config: Config | None = None) -> None:
        self.paths = tuple(paths)
        self.config = config or Config()
        self._sessions: dict[str, _Tracked] = {}
        self._by_path: dict[Path, set[str]] = {}

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(self._sessions)

    def discover(self) -> Discovery:
        """Find sessions and follow the new ones (a key whose file moved, e.g. after a reset, starts over)."""
        discovery = discover_sessions(self.paths or None)
        for source in discovery.sessions:
            tracked = self._sessions.get(source.key)
            if tracked is None or tracked.follower.source.path != source.path:
                self._add(source)
        return discovery

    def _add(self, source: SessionSource) -> None:
        self._sessions[source.key] = _Tracked(SessionFollower(source, self.config))
        path = source.path.resolve()
        names = [path, path.with_name(path.name + "-wal")] if source.format == "openclaw-sqlite" else [path]
        for name in names:
            self._by_path.setdefault(name, set()).add(source.key)

    def follower(self, key: str) -> SessionFollower | None:
        """The engine follower of ``key`` (its ``objects`` re-read message text)."""
        tracked = self._sessions.get(key)
        return tracked.follower if tracked else None

    def snapshot(self, key: str) -> SessionSnapshot | None:
        tracked = self._sessions.get(key)
        return tracked.follower.snapshot if tracked else None

    def refresh(self, key: str) -> SessionSnapshot:
        """Read what was appended to ``key`` (blocking: call it from a thread).

        Raises:
            KeyError: ``key`` is not followed.
            engine.transcript.TranscriptError: the session can no longer be read.
        """
        return self.with_follower(key, lambda follower: follower.refresh())

    def with_follower(self, key: str, use: Callable[[SessionFollower], T]) -> T:
        """Run ``use`` on the follower of ``key`` while no refresh of it runs (blocking: call from a thread)."""
        tracked = self._sessions[key]
        with tracked.lock:
            return use(tracked.follower)

    def keys_for(self, changed: Iterable[Path]) -> tuple[set[str], bool]:
        """The followed sessions ``changed`` touches, and whether an unknown session file appeared."""
        keys: set[str] = set()
        unknown = False
        for path in changed:
            hit = self._by_path.get(path.resolve())
            if hit:
                keys |= hit
            elif path.name.endswith("-wal") or classify_file(path) in ("transcript", "store", "sqlite"):
                unknown = True
        return keys, unknown


def _describe(exc: Exception) -> str:
    return str(exc) if isinstance(exc, TranscriptError) else f"{type(exc).__name__}: {exc}"


async def _refresh(tracker: SessionTracker, key: str, post: Callable[[Message], object]) -> None:
    previous = tracker.snapshot(key)
    try:
        snapshot = await asyncio.to_thread(tracker.refresh, key)
    except Exception as exc:  # noqa: BLE001 - a bad session must not stop the others from being followed
        post(SessionReadFailed(key, _describe(exc)))
        return
    if snapshot is previous:
        return
    post(SessionUpdated(snapshot))
    if previous is None:
        return
    if snapshot.compactions > previous.compactions:
        post(CompactionDetected(snapshot, previous.compactions))
    level, before = snapshot.gauge.level, previous.gauge.level
    if _LEVEL_RANK[level] > max(_LEVEL_RANK[before], 0):
        post(ThresholdCrossed(snapshot, before))


async def follow_sessions(tracker: SessionTracker, changes: ChangeSource, post: Callable[[Message], object]) -> None:
    """Discover, read every session once, then refresh sessions as ``changes`` reports their files."""
    discovery = await asyncio.to_thread(tracker.discover)
    post(SessionsDiscovered(tracker.keys, discovery.problems))
    for key in tracker.keys:
        await _refresh(tracker, key, post)
    post(SessionsLoaded(len(tracker.keys)))
    async for changed in changes(watch_targets(tracker.paths)):
        keys, unknown = tracker.keys_for(changed)
        if unknown:
            await asyncio.to_thread(tracker.discover)
            keys |= {key for key in tracker.keys if tracker.snapshot(key) is None}
        for key in sorted(keys):
            await _refresh(tracker, key, post)
