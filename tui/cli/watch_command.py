"""``ctxscope watch``: the headless sidecar — follow sessions live and print one line per event.

It runs the same follow rule as the TUI: a :class:`~engine.live.tracker.SessionTracker` stepped by the sidecar's
:class:`~engine.sidecar.ContextManager`, fed by :func:`tui.follow.watch_changes` (``watchfiles`` with a short
debounce). :meth:`~engine.live.tracker.SessionTracker.absorb` maps each batch of changes to the sessions to step,
re-reads ``sessions.json`` stores, discovers new transcripts, and writes a ``session-end`` checkpoint when OpenClaw
archives a transcript on ``/new`` or ``/reset``.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from collections.abc import Iterable

from engine.config.loader import Config
from engine.live.tracker import Refreshed, SessionTracker
from engine.sidecar import ContextManager, SidecarEvent

EXIT_OK, EXIT_NOT_FOUND = 0, 3


def _emit(events: Iterable[SidecarEvent]) -> None:
    for event in events:
        print(event.line(), flush=True)


def _report(result: Refreshed) -> None:
    if result.error is not None:
        print(f"ctxscope: {result.key}: {result.error}", file=sys.stderr, flush=True)
    _emit(result.events)


def _step_all(tracker: SessionTracker, keys: Iterable[str]) -> None:
    for key in keys:
        try:
            _report(tracker.step(key))
        except KeyError:  # no longer followed (re-keyed by its store)
            continue


async def _follow(tracker: SessionTracker, *, force_polling: bool | None, stop: asyncio.Event) -> None:
    from tui.follow import watch_changes, watch_targets  # watchfiles loads only for a live watch

    changes = watch_changes(force_polling=force_polling, stop=stop)
    first = True
    async for batch in changes(watch_targets(tracker.paths)):
        absorbed = await asyncio.to_thread(tracker.absorb, batch, catch_up=first)
        first = False
        _emit(absorbed.ended)
        for problem in absorbed.problems:
            print(f"ctxscope: {problem}", file=sys.stderr, flush=True)
        await asyncio.to_thread(_step_all, tracker, absorbed.keys)


def watch(args: argparse.Namespace, config: Config) -> int:
    """``ctxscope watch [PATH…] [--auto-compact]``: run the sidecar until interrupted (or once with ``--once``)."""
    manager = ContextManager(config, auto_compact=getattr(args, "auto_compact", None))
    tracker = SessionTracker(list(args.paths), config, manager=manager)
    discovery = tracker.discover()
    for problem in discovery.problems:
        print(f"ctxscope: {problem}", file=sys.stderr)
    if not tracker.keys:
        print("ctxscope: no sessions to watch. Pass a sessions directory or transcript, or try `ctxscope demo`.",
              file=sys.stderr)
        return EXIT_NOT_FOUND
    auto = " with automatic compaction" if manager.auto_compact else ""
    print(f"watching {len(tracker.keys)} session(s){auto}; Ctrl-C to stop", flush=True)
    _step_all(tracker, tracker.keys)
    if args.once:
        return EXIT_OK

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await _follow(tracker, force_polling=args.force_polling, stop=stop)

    asyncio.run(main())
    return EXIT_OK
