"""``ctxscope watch``: the headless sidecar — follow sessions live and print one line per event.

It runs the same follow rule as the TUI: a :class:`~engine.live.tracker.SessionTracker` stepped by the sidecar's
:class:`~engine.sidecar.ContextManager`, fed by :func:`tui.changes.watch_changes` (``watchfiles`` with a short
debounce). :meth:`~engine.live.tracker.SessionTracker.absorb` maps each batch of changes to the sessions to step,
re-reads ``sessions.json`` stores, discovers new transcripts, and writes a ``session-end`` checkpoint when OpenClaw
archives a transcript on ``/new`` or ``/reset``.

With ``--metrics HOST:PORT`` it also serves Prometheus metrics read from that tracker at scrape time
(:mod:`engine.live.exposition`; ``docs/fleet.md``).
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING

from engine import Config, ContextManager, Refreshed, SessionTracker, SidecarEvent, missing_extra
from engine.live.activity import ActivityRecorder, HeadReader, compaction_heads, probe_loop_lag
from tui.cli.exit_codes import ExitCode
from tui.cli.index_cache import stderr_cache
from tui.cli.terminal_output import cell

if TYPE_CHECKING:
    from engine.live.metrics_server import MetricsServer



def _emit(events: Iterable[SidecarEvent]) -> None:
    for event in events:
        print(cell(event.line()), flush=True)  # one event, one line, whatever the key holds


def _report(result: Refreshed) -> None:
    if result.error is not None:
        print(f"ctxscope: {result.key}: {result.error}", file=sys.stderr, flush=True)
    _emit(result.events)


def _heads(tracker: SessionTracker, key: str) -> HeadReader:
    """Reads the summaries of new compaction entries of ``key`` under its lock (to tell ctxscope's from the agent's)."""

    def read(first: int, end: int) -> list[str | None]:
        try:
            return tracker.with_follower(key, lambda f: compaction_heads(f, first, end))
        except KeyError:  # no longer followed: its compactions count as the agent's
            return []

    return read


def _shared_keys(tracker: SessionTracker) -> list[str]:
    """One line per key that several followed transcripts share (a copied session file keeps its header id): each
    is followed and checkpointed apart under its identity, and the line says which identity is which file."""
    by_key: dict[str, list[tuple[str, str]]] = {}
    for identity in tracker.keys:
        follower = tracker.follower(identity)
        if follower is not None:
            by_key.setdefault(follower.source.key, []).append((identity, str(follower.source.path)))
    return [f"{key}: {len(files)} transcripts share this id, followed apart: "
            + "; ".join(f"{identity} = {path}" for identity, path in sorted(files))
            for key, files in sorted(by_key.items()) if len(files) > 1]


def _sessions_read(tracker: SessionTracker) -> int:
    """Followed files that hold a session (a binary named *.jsonl is followed, never counted or written for)."""
    followers = (tracker.follower(key) for key in tracker.keys)
    return sum(1 for f in followers if f is not None and (f.snapshot is None or f.snapshot.is_session))


def _step_all(tracker: SessionTracker, keys: Iterable[str], recorder: ActivityRecorder | None = None) -> None:
    for key in keys:
        try:
            result = tracker.step(key)
        except KeyError:  # no longer followed (re-keyed by its store)
            continue
        if recorder is not None:
            recorder.record(result, _heads(tracker, key))
        _report(result)


async def _follow(
    tracker: SessionTracker, *, force_polling: bool | None, stop: asyncio.Event, recorder: ActivityRecorder | None
) -> None:
    from tui.changes import watch_changes, watch_targets  # watchfiles loads only for a live watch

    changes = watch_changes(force_polling=force_polling, stop=stop)
    first = True
    async for batch in changes(watch_targets(tracker.paths)):
        absorbed = await asyncio.to_thread(tracker.absorb, batch, catch_up=first)
        first = False
        _emit(absorbed.ended)
        if recorder is not None:
            recorder.record_events(absorbed.ended)
        for problem in absorbed.problems:
            print(f"ctxscope: {problem}", file=sys.stderr, flush=True)
        await asyncio.to_thread(_step_all, tracker, absorbed.keys, recorder)


def _serve_metrics(address: str, tracker: SessionTracker, recorder: ActivityRecorder, config: Config) -> MetricsServer:
    """Bind and start the metrics endpoint (prometheus_client loads only when ``--metrics`` is given).

    Raises:
        ListenAddressError: ``address`` is not ``PORT`` or ``HOST:PORT``.
        OSError: the address cannot be bound.
    """
    from engine.live.exposition import SidecarCollector
    from engine.live.metrics_server import MetricsServer, parse_listen_address

    host, port = parse_listen_address(address)
    return MetricsServer(SidecarCollector(tracker, recorder, config.metrics), host, port).start()


def watch(args: argparse.Namespace, config: Config) -> int:
    """``ctxscope watch [PATH…] [--auto-compact] [--metrics HOST:PORT]``: run the sidecar until interrupted (or
    once with ``--once``)."""
    from tui.changes import watch_targets

    manager = ContextManager(config, auto_compact=getattr(args, "auto_compact", None), index=stderr_cache())
    tracker = SessionTracker(list(args.paths), config, manager=manager)
    metrics: str | None = getattr(args, "metrics", None)
    if metrics is not None and args.once:
        print("ctxscope: --metrics serves while watch runs; it cannot be combined with --once", file=sys.stderr)
        return ExitCode.USAGE
    if metrics is not None and (problem := missing_extra("metrics")) is not None:
        print(f"ctxscope: {problem}", file=sys.stderr)
        return ExitCode.USAGE
    discovery = tracker.discover()
    for problem in discovery.problems:
        print(f"ctxscope: {problem}", file=sys.stderr)
    # An exporter on a fleet host waits for its first agent instead of exiting (its scrape target stays up).
    if not tracker.keys and (metrics is None or not watch_targets(tracker.paths)):
        print("ctxscope: no sessions to watch. Pass a sessions directory or transcript, or try `ctxscope demo`.",
              file=sys.stderr)
        return ExitCode.NOT_FOUND
    recorder = ActivityRecorder() if metrics is not None else None
    server: MetricsServer | None = None
    if metrics is not None and recorder is not None:
        from engine.live.metrics_server import ListenAddressError

        try:
            server = _serve_metrics(metrics, tracker, recorder, config)
        except ListenAddressError as exc:
            print(f"ctxscope: {exc}", file=sys.stderr)
            return ExitCode.USAGE
        except OSError as exc:
            print(f"ctxscope: --metrics {metrics}: cannot listen there ({exc})", file=sys.stderr)
            return ExitCode.FAILED
    # A SIGTERM from the moment "watching" can be printed stops the watch as one during the loop does (a supervisor
    # that stops a fresh exporter, a busy machine where the loop starts late): never the default death, which
    # skipped the server's close and exited -15.
    terminated: list[int] = []
    previous = signal.signal(signal.SIGTERM, lambda signum, _frame: terminated.append(signum))
    try:
        # The first read comes before "watching": a change made after that line is seen as the session moving,
        # never folded into the first read (where an idle session is only read, docs/checkpoints.md).
        _step_all(tracker, tracker.keys, recorder)
        auto = " with automatic compaction" if manager.auto_compact else ""
        print(f"watching {_sessions_read(tracker)} session(s){auto}; Ctrl-C to stop", flush=True)
        for line in _shared_keys(tracker):
            print(line, flush=True)
        if server is not None:
            print(f"metrics at {server.url}", flush=True)
        if args.once or terminated:
            return ExitCode.OK
        asyncio.run(_main(tracker, args.force_polling, recorder, terminated))
    finally:
        signal.signal(signal.SIGTERM, previous)
        if server is not None:
            server.close()
    return ExitCode.OK


async def _main(tracker: SessionTracker, force_polling: bool | None, recorder: ActivityRecorder | None,
                terminated: list[int]) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    if terminated:  # it came while the loop was starting, before the handler above
        stop.set()
    probe = asyncio.create_task(probe_loop_lag(recorder)) if recorder is not None else None
    try:
        await _follow(tracker, force_polling=force_polling, stop=stop, recorder=recorder)
    finally:
        if probe is not None:
            probe.cancel()
