"""``ctxscope watch``: the headless sidecar — follow sessions live and print one line per event (SPEC §6.7).

Files are watched with ``watchfiles`` (a short debounce, not its 1.6 s default); each change runs the engine's
:meth:`~engine.sidecar.ContextManager.step` for that session in a worker thread. When OpenClaw archives a
transcript on ``/new`` or ``/reset`` (renames it to ``*.jsonl.reset.<ts>``), the session has ended: a
``session-end`` checkpoint is written from the archived file.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from pathlib import Path

from engine.config.loader import Config
from engine.sidecar import ContextManager, SidecarEvent
from engine.stores.discovery import discover_sessions
from engine.stores.source import SessionSource
from tui.cli.index_cache import stderr_cache

EXIT_OK, EXIT_NOT_FOUND = 0, 3


def _emit(events: list[SidecarEvent]) -> None:
    for event in events:
        print(event.line(), flush=True)


def _archive_of(path: Path) -> Path | None:
    """The archive OpenClaw renamed a transcript to, if any (newest first)."""
    candidates = sorted(
        (p for p in path.parent.glob(path.name + ".*") if any(t in p.name for t in (".reset.", ".deleted."))),
        key=lambda p: p.stat().st_mtime,
        reverse=True,
    )
    return candidates[0] if candidates else None


class Watcher:
    """Maps file changes to sessions and steps the context manager."""

    def __init__(self, manager: ContextManager, paths: list[Path]) -> None:
        self.manager = manager
        self.paths = paths
        self.by_path: dict[Path, str] = {}

    def track(self, sources: tuple[SessionSource, ...]) -> list[str]:
        """Add newly discovered sessions; returns their keys."""
        added = []
        for source in sources:
            if source.key not in self.manager.sessions:
                self.manager.add(source)
                added.append(source.key)
            self.by_path[source.path.resolve()] = source.key
        return added

    def roots(self) -> list[Path]:
        """Directories to watch: those of the sessions (to see rotations) and the given paths."""
        dirs = {p.parent for p in self.by_path}
        dirs |= {p if p.is_dir() else p.parent for p in self.paths if p.exists()}
        return sorted(dirs)

    def handle(self, changed: set[Path]) -> list[SidecarEvent]:
        """Step every session whose file changed, rediscover on new files, close sessions whose file vanished."""
        events: list[SidecarEvent] = []
        keys: set[str] = set()
        new_files = False
        for path in changed:
            resolved = path.resolve()
            key = self.by_path.get(resolved) or self.by_path.get(resolved.with_name(resolved.name.removesuffix("-wal")))
            if key is None:
                new_files = new_files or path.name.endswith((".jsonl", ".sqlite", "sessions.json"))
                continue
            if not path.exists():
                events += self._ended(key, resolved)
                continue
            keys.add(key)
        if new_files:
            keys.update(self.track(discover_sessions(self.paths or None).sessions))
        for key in sorted(keys):
            events += self.manager.step(key)[1]
        return events

    def _ended(self, key: str, path: Path) -> list[SidecarEvent]:
        session = self.manager.sessions[key]
        archive = _archive_of(path)
        del self.by_path[path]
        if archive is None or session.snapshot is None or not hasattr(session.follower.reader, "path"):
            return []
        session.follower.reader.path = archive  # same inode: the cursor stays valid for re-reads
        return [self.manager.write(key, "session-end")]


async def _follow(watcher: Watcher, *, force_polling: bool, stop: asyncio.Event) -> None:
    from watchfiles import awatch

    roots = watcher.roots()
    if not roots:
        return
    async for changes in awatch(*roots, debounce=100, step=20, stop_event=stop, force_polling=force_polling):
        changed = {Path(p) for _, p in changes}
        _emit(await asyncio.to_thread(watcher.handle, changed))
        if set(watcher.roots()) != set(roots):
            return await _follow(watcher, force_polling=force_polling, stop=stop)


def watch(args: argparse.Namespace, config: Config) -> int:
    """``ctxscope watch [PATH…] [--auto-compact]``: run the sidecar until interrupted (or once with ``--once``)."""
    manager = ContextManager(config, auto_compact=getattr(args, "auto_compact", None), index=stderr_cache())
    watcher = Watcher(manager, list(args.paths))
    discovery = discover_sessions(args.paths or None)
    for problem in discovery.problems:
        print(f"ctxscope: {problem}", file=sys.stderr)
    watcher.track(discovery.sessions)
    if not manager.sessions:
        print("ctxscope: no sessions to watch. Pass a sessions directory or transcript, or try `ctxscope demo`.",
              file=sys.stderr)
        return EXIT_NOT_FOUND
    auto = " with automatic compaction" if manager.auto_compact else ""
    print(f"watching {len(manager.sessions)} session(s){auto}; Ctrl-C to stop", flush=True)
    _emit(manager.step_all())
    if args.once:
        return EXIT_OK

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await _follow(watcher, force_polling=args.force_polling, stop=stop)

    asyncio.run(main())
    return EXIT_OK
