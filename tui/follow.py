"""Live following of every discovered session: file changes in, messages out.

:func:`follow_sessions` is the body of the App's one exclusive worker. It discovers sessions, reads each
once, then refreshes only the sessions whose files a change batch names: a transcript (or SQLite WAL), its
lock, or a ``sessions.json`` (re-read into the sources it describes). Each refresh is a step of the sidecar
(:class:`~engine.live.tracker.SessionTracker`) and runs in ``asyncio.to_thread`` so the UI never waits on disk;
:func:`post_refreshed` turns its outcome into messages. The change source is injectable: the real one is
:func:`watch_changes` (``watchfiles.awatch`` with a short debounce), tests and the demo push paths into a
:class:`ChangeQueue` instead, so nothing depends on filesystem timing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from textual.message import Message

from engine import GaugeLevel, Refreshed, SessionTracker, SidecarEvent
from tui.changes import ChangeQueue, ChangeSource, watch_changes, watch_targets
from tui.messages import (
    CheckpointWritten,
    CompactionDetected,
    SessionAssessed,
    SessionReadFailed,
    SessionsDiscovered,
    SessionsLoaded,
    SessionUpdated,
    SidecarReported,
    ThresholdCrossed,
)

__all__ = [
    "ChangeQueue",
    "ChangeSource",
    "SessionTracker",
    "follow_sessions",
    "post_event",
    "post_refreshed",
    "refresh_session",
    "watch_changes",
    "watch_targets",
]

# Rising past one of these is worth a notification; "unknown" (after a compaction) ranks below all of them.
_LEVEL_RANK: dict[GaugeLevel, int] = {
    "unknown": -1, "ok": 0, "gauge": 1, "checkpoint": 2, "near-compaction": 3, "over-compaction": 4,
}


_NOTIFIED_KINDS = frozenset({"error", "auto-compact", "refused"})
"""Sidecar events shown as they are; ``skipped`` and ``level`` are bookkeeping (thresholds are reported from
the snapshots, so a level drop after a compaction is not news)."""


def post_event(event: SidecarEvent, post: Callable[[Message], object]) -> None:
    """Post a sidecar event worth telling: a checkpoint written, an error, an automatic compaction or refusal."""
    if event.kind == "checkpoint":
        post(CheckpointWritten(event))
    elif event.kind in _NOTIFIED_KINDS:
        post(SidecarReported(event))


def post_refreshed(result: Refreshed, post: Callable[[Message], object], *, sidecar: bool = True) -> None:
    """Turn one refresh into messages: the snapshot, what the sidecar did, thresholds, the assessment."""
    if result.error is not None:
        post(SessionReadFailed(result.key, result.error))
        return
    snapshot, previous = result.snapshot, result.previous
    assert snapshot is not None
    if result.changed:
        post(SessionUpdated(snapshot))
    for event in result.events:
        if event.kind == "compaction" and previous is not None:
            post(CompactionDetected(snapshot, previous.compactions))
        else:
            post_event(event, post)
    if result.changed and previous is not None:
        if not sidecar and snapshot.compactions > previous.compactions:
            post(CompactionDetected(snapshot, previous.compactions))
        level, before = snapshot.gauge.level, previous.gauge.level
        if _LEVEL_RANK[level] > max(_LEVEL_RANK[before], 0):
            post(ThresholdCrossed(snapshot, before))
    if result.insight is not None:
        post(SessionAssessed(result.key, result.insight))


async def refresh_session(
    tracker: SessionTracker, key: str, post: Callable[[Message], object], *, reassess: bool = False
) -> None:
    """Step one session in a thread and post what happened (a session no longer followed is ignored)."""
    try:
        result = await asyncio.to_thread(tracker.step, key, reassess=reassess)
    except KeyError:
        return
    post_refreshed(result, post, sidecar=tracker.manager is not None)


async def follow_sessions(tracker: SessionTracker, changes: ChangeSource, post: Callable[[Message], object]) -> None:
    """Discover, read every session once, then refresh sessions as ``changes`` reports their files."""
    discovery = await asyncio.to_thread(tracker.discover)
    post(SessionsDiscovered(tracker.keys, discovery.problems))
    for key in tracker.keys:
        await refresh_session(tracker, key, post)
    post(SessionsLoaded(len(tracker.keys)))
    first = True
    async for changed in changes(watch_targets(tracker.paths)):
        absorbed = await asyncio.to_thread(tracker.absorb, changed, catch_up=first)
        first = False
        for event in absorbed.ended:
            post_event(event, post)
        if absorbed.rekeyed:
            post(SessionsDiscovered(tracker.keys, absorbed.problems))
        for key in absorbed.keys:
            await refresh_session(tracker, key, post)
