"""What the sidecar did since it started, counted for ``ctxscope watch --metrics`` (``docs/fleet.md``).

Counters only count what the sidecar already reports: the checkpoints it wrote (by trigger), the compactions that
appeared in the transcripts it follows, its own automatic compaction attempts that were refused or failed, failed
reads, and how late the event loop woke up. Every label value comes from a closed set, so the number of series
stays bounded whatever the transcripts contain.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from engine.checkpoints.model import TRIGGER_RE
from engine.compaction.summarizer import header_layer
from engine.config.compaction_settings import LAYERS
from engine.live.tracker import Refreshed
from engine.session.snapshot import SessionFollower
from engine.sidecar import SidecarEvent
from engine.stores.transcript import TranscriptError

__all__ = [
    "LAG_PROBE_SECONDS",
    "LAG_WINDOW_SECONDS",
    "Activity",
    "ActivityRecorder",
    "compaction_heads",
    "compaction_origin",
    "probe_loop_lag",
]

LAG_WINDOW_SECONDS = 60.0
"""The event-loop lag exported is the worst sample of this last stretch of time."""
LAG_PROBE_SECONDS = 1.0
"""How often the event loop's lateness is sampled (one wake-up a second costs nothing measurable)."""

HeadReader = Callable[[int, int], Sequence[str | None]]
"""``(first, end)`` entry indices → the summary of every compaction entry among them (``None``: unreadable)."""


def compaction_origin(summary: str | None) -> tuple[str, str]:
    """``(layer, controller)`` of a compaction entry: ctxscope's summaries name their layer on the first line.

    Anything else was compacted by the agent itself (pi, OpenClaw): ``("agent", "agent")``.
    """
    layer = header_layer(summary) if summary else None
    if layer is None:
        return "agent", "agent"
    return (layer if layer in LAYERS else "unknown"), "jsonl"


def compaction_heads(follower: SessionFollower, first: int, end: int) -> list[str | None]:
    """The summaries of the compaction entries ``follower`` read at indices ``first``…``end`` (blocking: re-reads
    them from the file; call it under the session's lock, e.g. through ``SessionTracker.with_follower``)."""
    heads: list[str | None] = []
    for entry in follower.reader.entries[first:end]:
        if entry.type != "compaction":
            continue
        try:
            summary = follower.objects.read_object(entry).get("summary")
        except TranscriptError:
            summary = None
        heads.append(summary if isinstance(summary, str) else None)
    return heads


@dataclass(frozen=True, slots=True)
class Activity:
    """The counters at one moment (a copy: safe to render while the sidecar keeps counting)."""

    checkpoints: tuple[tuple[str, int], ...]
    """``(trigger, count)``, sorted."""
    compactions: tuple[tuple[tuple[str, str, str], int], ...]
    """``((layer, controller, outcome), count)``, sorted."""
    refusals: tuple[tuple[str, int], ...]
    """``(action, count)``, sorted."""
    errors: int
    loop_lag_seconds: float | None
    """The worst event-loop lag of the last :data:`LAG_WINDOW_SECONDS`; ``None`` before the first sample."""


def _trigger(trigger: str | None) -> str:
    return trigger if trigger is not None and TRIGGER_RE.fullmatch(trigger) else "other"


class ActivityRecorder:
    """Counts the sidecar's actions; :meth:`record` is called from the threads that step sessions."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._checkpoints: Counter[str] = Counter()
        self._compactions: Counter[tuple[str, str, str]] = Counter()
        self._refusals: Counter[str] = Counter()
        self._errors = 0
        self._lag: deque[tuple[float, float]] = deque()

    def record(self, result: Refreshed, heads: HeadReader | None = None) -> None:
        """Count what one step of a session did: its events, a failed read, and compactions that appeared.

        ``heads`` reads the new compaction entries' summaries to tell ctxscope's compactions from the agent's;
        without it every new compaction counts as the agent's.
        """
        self.record_events(result.events)
        origins: list[tuple[str, str]] = []
        before, after = result.previous, result.snapshot
        if (before is not None and after is not None and before.source.path == after.source.path
                and after.compactions_in_file > before.compactions_in_file and after.entries >= before.entries):
            count = after.compactions_in_file - before.compactions_in_file
            summaries = list(heads(before.entries, after.entries)) if heads is not None else []
            origins = [compaction_origin(s) for s in summaries[-count:]]
            origins += [("agent", "agent")] * (count - len(origins))
        with self._lock:
            if result.error is not None:
                self._errors += 1
            for layer, controller in origins:
                self._compactions[(layer, controller, "ok")] += 1

    def record_events(self, events: Iterable[SidecarEvent]) -> None:
        """Count checkpoints written and automatic compactions refused or failed (session-end events too)."""
        with self._lock:
            for event in events:
                if event.kind == "checkpoint":
                    self._checkpoints[_trigger(event.trigger)] += 1
                elif event.kind == "refused":
                    self._compactions[(self._layer(event), "jsonl", "refused")] += 1
                    self._refusals["compact"] += 1
                elif event.kind == "error":
                    if event.layer is not None:  # an automatic compaction that failed
                        self._compactions[(self._layer(event), "jsonl", "failed")] += 1
                    else:
                        self._errors += 1

    @staticmethod
    def _layer(event: SidecarEvent) -> str:
        return event.layer if event.layer in LAYERS else "unknown"

    def record_lag(self, lag_seconds: float, at: float) -> None:
        """One event-loop lag sample taken at monotonic time ``at``."""
        with self._lock:
            self._lag.append((at, max(lag_seconds, 0.0)))
            while self._lag and self._lag[0][0] < at - LAG_WINDOW_SECONDS:
                self._lag.popleft()

    def totals(self) -> Activity:
        """The counters now."""
        with self._lock:
            return Activity(
                checkpoints=tuple(sorted(self._checkpoints.items())),
                compactions=tuple(sorted(self._compactions.items())),
                refusals=tuple(sorted(self._refusals.items())),
                errors=self._errors,
                loop_lag_seconds=max((lag for _, lag in self._lag), default=None),
            )


async def probe_loop_lag(recorder: ActivityRecorder, *, interval: float = LAG_PROBE_SECONDS) -> None:
    """Sample how late the running event loop wakes up from a sleep of ``interval``, until cancelled."""
    while True:
        start = time.monotonic()
        await asyncio.sleep(interval)
        now = time.monotonic()
        recorder.record_lag(now - start - interval, now)
