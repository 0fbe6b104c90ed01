"""The engine side of following sessions: one follower per session, stepped by the sidecar's context manager.

With a :class:`~engine.sidecar.ContextManager` (the App always passes its one manager) every refresh is a
sidecar step (docs/architecture.md, The sidecar loop): read what was appended, capture state, write a checkpoint
when a trigger fires. The manager and the tracker share each session's
:class:`~engine.session.snapshot.SessionFollower`, so a transcript is read once. Everything that touches a session
(step, manual checkpoint, a compaction plan, re-reading text) runs under that session's lock in a worker thread;
different sessions never wait for each other.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from engine.agents.discovery import discover_sessions, load_store
from engine.capture.state import CapturedState
from engine.config.loader import Config, resolve_state_dir
from engine.index.cache import IndexCache
from engine.live.insight import CheckpointCache, SessionInsight, assess_session, read_lock
from engine.session.snapshot import SessionFollower, SessionSnapshot
from engine.sidecar import ContextManager, ManagedSession, SidecarEvent
from engine.stores.source import Discovery, SessionSource, classify_file, shared_keys
from engine.stores.transcript import TranscriptError

if TYPE_CHECKING:
    from engine.config.llm_settings import LLMConfig  # httpx loads only when an enriched checkpoint is written

__all__ = ["Absorbed", "Refreshed", "SessionTracker"]

T = TypeVar("T")
Clock = Callable[[], datetime]

_STORE_FIELDS = ("contextTokens", "compactionCount", "model", "modelProvider")
"""The ``sessions.json`` fields a snapshot is computed from (:mod:`engine.session.snapshot`): when one changes, the
session is read again so the window, the compaction count and the model follow the store."""


def _store_fields(entry: Mapping[str, Any] | None) -> tuple[object, ...]:
    return tuple((entry or {}).get(name) for name in _STORE_FIELDS)


def _describe(exc: Exception) -> str:
    return str(exc) if isinstance(exc, TranscriptError) else f"{type(exc).__name__}: {exc}"


@dataclass(frozen=True, slots=True)
class Refreshed:
    """What one refresh of a session produced."""

    key: str
    snapshot: SessionSnapshot | None
    """The current snapshot (``None`` when the session could not be read)."""
    previous: SessionSnapshot | None
    """The snapshot the previous refresh produced."""
    events: tuple[SidecarEvent, ...] = ()
    insight: SessionInsight | None = None
    """A new assessment, or ``None`` when nothing it depends on changed."""
    error: str | None = None
    """Why the session could not be read."""

    @property
    def changed(self) -> bool:
        """Whether there is a new snapshot to show."""
        return self.snapshot is not None and self.snapshot is not self.previous


@dataclass(frozen=True, slots=True)
class Absorbed:
    """What one batch of file changes means for the followed sessions."""

    keys: tuple[str, ...]
    """Sessions to step now (in this order)."""
    rekeyed: bool
    """The set of followed keys changed: whoever lists them must list them again."""
    problems: tuple[str, ...] = ()
    """What discovery could not read, one line each."""
    ended: tuple[SidecarEvent, ...] = ()
    """Session-end checkpoints written for transcripts OpenClaw archived (renamed) in this batch."""


def _archive_of(path: Path) -> Path | None:
    """The archive OpenClaw renamed a transcript to, if any (newest first)."""
    try:
        siblings = [p for p in path.parent.iterdir() if p.name.startswith(path.name + ".")
                    and any(t in p.name for t in (".reset.", ".deleted."))]
    except OSError:
        return None
    return max(siblings, key=lambda p: p.stat().st_mtime, default=None)


@dataclass
class _Tracked:
    source: SessionSource
    follower: SessionFollower
    managed: ManagedSession | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    posted: SessionSnapshot | None = None
    insight: SessionInsight | None = None
    checkpoints: CheckpointCache = field(default_factory=CheckpointCache)


def _lock_identity(insight: SessionInsight | None) -> tuple[object, ...] | None:
    lock = insight.lock if insight else None
    return None if lock is None else (lock.pid, lock.created_at, lock.stale, lock.reason)


class SessionTracker:
    """The followers of every discovered session, keyed by session key, safe to use from threads."""

    def __init__(
        self,
        paths: Sequence[Path] = (),
        config: Config | None = None,
        *,
        manager: ContextManager | None = None,
        clock: Clock | None = None,
        index: IndexCache | None = None,
    ) -> None:
        self.paths = tuple(paths)
        self.index = index if index is not None else manager.index if manager is not None else None
        """Where followers store their entries between runs (the manager's, unless given)."""
        self.config = config or (manager.config if manager is not None else Config())
        self.manager = manager
        """The sidecar that steps every session; without one the tracker only reads (no state, no checkpoints)."""
        self.clock: Clock = clock or (lambda: datetime.now(UTC))
        self._sessions: dict[str, _Tracked] = {}
        self._by_path: dict[Path, set[str]] = {}

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(self._sessions)

    # -- discovery -----------------------------------------------------------------------------------------

    def discover(self) -> Discovery:
        """Find sessions and follow the new ones (a key whose file moved, e.g. after a reset, starts over)."""
        discovery = discover_sessions(self.paths or None)
        for source in self._mark_shared(discovery.sessions):
            tracked = self._sessions.get(source.follow_key)
            if tracked is None or tracked.source.path != source.path:
                self._add(source)
        return discovery

    def _mark_shared(self, sources: Iterable[SessionSource]) -> list[SessionSource]:
        """``sources`` with :attr:`SessionSource.shared_key` set where transcripts of different identities share
        a key (a copied file keeps its header id): each is then followed under its identity, never in place of the
        other (docs/checkpoints.md, Session identity). A followed session whose key becomes shared is followed
        again under its identity."""
        sources = list(sources)
        shared = shared_keys([*sources, *(t.source for t in self._sessions.values())])
        for key, tracked in list(self._sessions.items()):
            if tracked.source.key in shared and not tracked.source.shared_key:
                self._remove(key)
                self._add(replace(tracked.source, shared_key=True))
        return [replace(s, shared_key=True) if s.key in shared and not s.shared_key else s for s in sources]

    def _names(self, source: SessionSource) -> list[Path]:
        return list(source.watch_paths)

    def _add(self, source: SessionSource) -> None:
        self._remove(source.follow_key)
        if self.manager is not None:
            # A moved transcript starts over; state reloads from disk.
            self.manager.sessions.pop(source.follow_key, None)
            managed = self.manager.add(source)
            tracked = _Tracked(source, managed.follower, managed)
        else:
            tracked = _Tracked(source, SessionFollower(source, self.config, self.index))
        self._sessions[source.follow_key] = tracked
        for name in self._names(source):
            self._by_path.setdefault(name, set()).add(source.follow_key)

    def _remove(self, key: str) -> None:
        tracked = self._sessions.pop(key, None)
        if tracked is None:
            return
        for name in self._names(tracked.source):
            keys = self._by_path.get(name)
            if keys is not None:
                keys.discard(key)
                if not keys:
                    del self._by_path[name]
        if self.manager is not None:
            self.manager.sessions.pop(key, None)

    def absorb(self, changed: Iterable[Path], *, catch_up: bool = False) -> Absorbed:
        """Map a batch of changed paths to the sessions to step: the one follow rule of the TUI and ``watch``.

        Re-reads changed ``sessions.json`` stores, discovers new session files, and writes a ``session-end``
        checkpoint for a transcript OpenClaw archived (blocking: call it from a thread). ``catch_up`` steps every
        session: for the first batch after the watcher started, since appends before it were seen by no one.
        """
        changed = set(changed)
        keys, unknown = self.keys_for(changed)
        if catch_up:
            keys |= set(self.keys)
            unknown = True
        ended: list[SidecarEvent] = []
        for key in sorted(keys):
            tracked = self._sessions.get(key)
            if tracked is not None and not tracked.source.in_database and not tracked.source.path.exists():
                event = self._end(key, tracked)
                if event is not None:
                    ended.append(event)
                    keys.discard(key)
                unknown = True  # the agent starts a new transcript for the key
        stores = [path for path in changed if classify_file(path) == "store"]
        rekeyed = False
        problems: tuple[str, ...] = ()
        if stores:
            restamped, rekeyed = self.reload_stores(stores)
            keys |= restamped
        if unknown:
            before = set(self.keys)
            problems = self.discover().problems
            rekeyed = rekeyed or set(self.keys) != before
            keys |= {key for key in self.keys if self.snapshot(key) is None}
        return Absorbed(tuple(sorted(k for k in keys if k in self._sessions)), rekeyed, problems, tuple(ended))

    def _end(self, key: str, tracked: _Tracked) -> SidecarEvent | None:
        """Follow a transcript renamed into an archive and write its ``session-end`` checkpoint."""
        archive = _archive_of(tracked.source.path)
        if archive is None:
            return None
        with tracked.lock:
            if not tracked.follower.reader.renamed(archive):
                return None
            for name in self._names(tracked.source):
                self._by_path.get(name, set()).discard(key)
            tracked.source = replace(tracked.source, path=archive, kind="archive")
            tracked.follower.source = tracked.source  # snapshots now say archived: nothing compacts it
            if self.manager is None or tracked.managed is None or tracked.follower.snapshot is None:
                return None
            return self.manager.write(key, "session-end")

    def keys_for(self, changed: Iterable[Path]) -> tuple[set[str], bool]:
        """The followed sessions ``changed`` touches, and whether an unknown session file appeared.

        ``sessions.json`` stores are not looked up here: :meth:`reload_stores` handles them.
        """
        keys: set[str] = set()
        unknown = False
        for path in changed:
            hit = self._by_path.get(path.resolve())
            if hit:
                keys |= hit
            elif path.name.endswith("-wal") or classify_file(path) in ("transcript", "sqlite"):
                unknown = True
        return keys, unknown

    def reload_stores(self, stores: Iterable[Path]) -> tuple[set[str], bool]:
        """Re-read changed ``sessions.json`` files into the sources they describe (blocking).

        Returns the sessions to refresh, and whether the set of keys changed (a transcript first known by its
        header id now has a key in the store).
        """
        refresh: set[str] = set()
        rekeyed = False
        for store in {s.resolve() for s in stores}:
            entries, _problem = load_store(store)  # a half-written store reads as no entries: nothing is changed
            for key, tracked in list(self._sessions.items()):
                source = tracked.source
                if source.in_database:
                    continue
                if source.store_path is not None and source.store_path.resolve() == store:
                    if key not in entries or source.store_entry == entries[key]:
                        continue
                    updated = replace(source, store_entry=entries[key])
                elif source.store_path is None and source.path.resolve().parent == store.parent:
                    found = discover_sessions([source.path]).sessions
                    if not found or found[0].store_path is None:
                        continue
                    updated = found[0]
                else:
                    continue
                if updated.follow_key != key:
                    self._add(updated)
                    self._remove(key)
                    refresh.add(updated.follow_key)
                    rekeyed = True
                elif self._restamp(key, updated):
                    refresh.add(key)
        return refresh, rekeyed

    def _restamp(self, key: str, source: SessionSource) -> bool:
        """Give ``key`` its re-read store entry; True when its snapshot must be recomputed."""
        tracked = self._sessions[key]
        with tracked.lock:
            changed = _store_fields(tracked.source.store_entry) != _store_fields(source.store_entry)
            tracked.source = source
            if not changed:
                tracked.follower.source = source  # the next snapshot carries it; nothing shown depends on it
                return False
            # The engine follower has no way to recompute with a new source, so it is read again (rare: these
            # fields change on a compaction or a model switch, not on every turn).
            follower = SessionFollower(source, self.config, self.index)
            tracked.follower = follower
            if tracked.managed is not None:
                tracked.managed.follower = follower
            return True

    def _find(self, key: str) -> _Tracked | None:
        # An identity, or the key a store or header gives when one followed session has it (docs/checkpoints.md,
        # Session identity): callers that knew sessions by their key still find them.
        tracked = self._sessions.get(key)
        if tracked is not None:
            return tracked
        named = [t for t in list(self._sessions.values()) if key in (t.source.key, t.source.identity)]
        return named[0] if len(named) == 1 else None

    def _tracked(self, key: str) -> _Tracked:
        tracked = self._find(key)
        if tracked is None:
            raise KeyError(key)
        return tracked

    # -- reading -------------------------------------------------------------------------------------------

    def follower(self, key: str) -> SessionFollower | None:
        """The engine follower of ``key`` (its ``objects`` re-read message text)."""
        tracked = self._find(key)
        return tracked.follower if tracked else None

    def snapshot(self, key: str) -> SessionSnapshot | None:
        """The snapshot of ``key`` the last refresh reported."""
        tracked = self._find(key)
        return tracked.posted if tracked else None

    def insight(self, key: str) -> SessionInsight | None:
        tracked = self._find(key)
        return tracked.insight if tracked else None

    def state_dir(self, key: str) -> Path:
        """Where ``key``'s checkpoints, captured state and audit log live."""
        tracked = self._tracked(key)
        if tracked.managed is not None:
            return tracked.managed.state_dir
        return resolve_state_dir(tracked.source.state_dir, self.config)

    def step(self, key: str, *, reassess: bool = False) -> Refreshed:
        """Read what was appended to ``key`` and run the sidecar on it (blocking: call it from a thread).

        Raises:
            KeyError: ``key`` is not followed.
        """
        tracked = self._tracked(key)
        with tracked.lock:
            previous = tracked.posted
            before = tracked.follower.snapshot
            events: tuple[SidecarEvent, ...] = ()
            snapshot: SessionSnapshot | None
            if self.manager is not None and tracked.managed is not None:
                try:
                    snapshot, found = self.manager.step(key)
                    events = tuple(found)
                except Exception as exc:  # noqa: BLE001 - a sidecar failure must not hide what was read
                    snapshot = tracked.follower.snapshot
                    events = (SidecarEvent("error", key, f"sidecar step failed: {_describe(exc)}", self.clock()),)
                errors = [e.message for e in events if e.kind == "error"]
                if errors and (snapshot is None or snapshot is before):
                    return Refreshed(key, None, previous, error=errors[0])  # the read itself failed
                if snapshot is None:
                    return Refreshed(key, None, previous, error="the session could not be read")
            else:
                try:
                    snapshot = tracked.follower.refresh()
                except Exception as exc:  # noqa: BLE001 - a bad session must not stop the others
                    return Refreshed(key, None, previous, error=_describe(exc))
            tracked.posted = snapshot
            wrote = any(e.kind == "checkpoint" for e in events)
            insight = self._assess(tracked, snapshot, full=reassess or wrote or snapshot is not previous)
            return Refreshed(key, snapshot, previous, events, insight)

    def _assess(self, tracked: _Tracked, snapshot: SessionSnapshot, *, full: bool) -> SessionInsight | None:
        old = tracked.insight
        if full or old is None:
            state_dir = tracked.managed.state_dir if tracked.managed else resolve_state_dir(
                snapshot.source.state_dir, self.config)
            new = assess_session(snapshot, state_dir, now=self.clock(), checkpoints=tracked.checkpoints.load)
        else:
            new = replace(old, lock=read_lock(snapshot.source))
            if _lock_identity(new) == _lock_identity(old):
                return None
        tracked.insight = new
        return new

    def write_checkpoint(self, key: str, trigger: str = "manual", *, enrich: LLMConfig | None = None) -> SidecarEvent:
        """Write a checkpoint of ``key`` now through the sidecar (blocking; with ``enrich``, an LLM call too).

        Raises:
            KeyError: ``key`` is not followed.
            RuntimeError: the tracker runs without a sidecar.
        """
        tracked = self._tracked(key)
        if self.manager is None or tracked.managed is None:
            raise RuntimeError("checkpoints are written by the sidecar, which is not running")
        with tracked.lock:
            return self.manager.write(key, trigger, enrich=enrich)

    def captured_state(self, key: str) -> CapturedState | None:
        """What the sidecar captured since the last checkpoint (decisions, open items, …), if it runs."""
        tracked = self._find(key)
        if tracked is None or tracked.managed is None:
            return None
        with tracked.lock:
            return self.manager.viewed_state(key) if self.manager is not None else tracked.managed.state

    def with_follower(self, key: str, use: Callable[[SessionFollower], T]) -> T:
        """Run ``use`` on the follower of ``key`` while no refresh of it runs (blocking: call from a thread)."""
        tracked = self._tracked(key)
        with tracked.lock:
            return use(tracked.follower)

    def follower_now(self, key: str, use: Callable[[SessionFollower], T]) -> T | None:
        """Run ``use`` on the follower of ``key`` if no refresh of it runs right now, else return ``None`` at once
        (never waits: for a UI thread that falls back to :meth:`with_follower` in a worker)."""
        tracked = self._tracked(key)
        if not tracked.lock.acquire(blocking=False):
            return None
        try:
            return use(tracked.follower)
        finally:
            tracked.lock.release()
