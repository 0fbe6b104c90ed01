"""Messages the follower and the screens post upward: past-tense events carrying engine values."""

from __future__ import annotations

from textual.message import Message

from engine.accounting.gauge import GaugeLevel
from engine.compaction.controllers import CompactionResult
from engine.compaction.plan import CompactionPlan
from engine.live.insight import SessionInsight
from engine.session.snapshot import SessionSnapshot
from engine.sidecar import SidecarEvent

__all__ = [
    "CheckpointWritten",
    "CompactionApplied",
    "CompactionDetected",
    "CompactionFailed",
    "ControlFinished",
    "SessionAssessed",
    "SessionReadFailed",
    "SessionUpdated",
    "SessionsDiscovered",
    "SessionsLoaded",
    "SidecarReported",
    "ThresholdCrossed",
]


class SessionUpdated(Message):
    """A session has a new snapshot; a newer one for the same session replaces one still queued."""

    def __init__(self, snapshot: SessionSnapshot) -> None:
        super().__init__()
        self.snapshot = snapshot

    @property
    def key(self) -> str:
        return self.snapshot.key

    def can_replace(self, message: Message) -> bool:
        """Only the latest state of a session matters; updates of other sessions are all kept."""
        return isinstance(message, SessionUpdated) and message.key == self.key


class SessionsDiscovered(Message):
    """Discovery finished: these sessions will be followed (snapshots follow as they are read)."""

    def __init__(self, keys: tuple[str, ...], problems: tuple[str, ...]) -> None:
        super().__init__()
        self.keys = keys
        self.problems = problems


class SessionsLoaded(Message):
    """Every discovered session has been read once; from now on only changes arrive."""

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count


class SessionReadFailed(Message):
    """A session could not be read (deleted, permissions, rewritten underneath us)."""

    def __init__(self, key: str, error: str) -> None:
        super().__init__()
        self.key = key
        self.error = error


class CompactionDetected(Message):
    """The agent (or someone) compacted a session since its previous snapshot."""

    def __init__(self, snapshot: SessionSnapshot, previous_count: int) -> None:
        super().__init__()
        self.snapshot = snapshot
        self.previous_count = previous_count


class ThresholdCrossed(Message):
    """A session's gauge rose past a line (gauge, checkpoint, pre-compaction margin, compaction line)."""

    def __init__(self, snapshot: SessionSnapshot, previous: GaugeLevel) -> None:
        super().__init__()
        self.snapshot = snapshot
        self.previous = previous

    @property
    def level(self) -> GaugeLevel:
        return self.snapshot.gauge.level


class ControlFinished(Message):
    """A control action (checkpoint, compact, prune, diff) ran; ``summary`` is the line shown to the user."""

    def __init__(self, action: str, key: str, summary: str) -> None:
        super().__init__()
        self.action = action
        self.key = key
        self.summary = summary


class SessionAssessed(Message):
    """A session has a new degradation/cost/lock assessment; a newer one for the same session replaces it."""

    def __init__(self, key: str, insight: SessionInsight) -> None:
        super().__init__()
        self.key = key
        self.insight = insight

    def can_replace(self, message: Message) -> bool:
        """Only the latest assessment of a session matters."""
        return isinstance(message, SessionAssessed) and message.key == self.key


class _SidecarMessage(Message):
    """A message carrying one :class:`~engine.sidecar.SidecarEvent`."""

    def __init__(self, event: SidecarEvent) -> None:
        super().__init__()
        self.event = event

    @property
    def key(self) -> str:
        return self.event.session_key


class CheckpointWritten(_SidecarMessage):
    """The sidecar (a trigger) or the user (``c``) wrote a checkpoint."""


class SidecarReported(_SidecarMessage):
    """The sidecar reported something worth telling: an error, an automatic compaction or its refusal."""


class CompactionApplied(Message):
    """A compaction or prune the user confirmed was written (or handed to the gateway)."""

    def __init__(self, result: CompactionResult) -> None:
        super().__init__()
        self.result = result

    @property
    def key(self) -> str:
        return self.result.plan.session_key


class CompactionFailed(Message):
    """A confirmed compaction was refused (nothing written) or failed; ``error`` says why."""

    def __init__(self, plan: CompactionPlan, error: str, *, refused: bool) -> None:
        super().__init__()
        self.plan = plan
        self.error = error
        self.refused = refused

    @property
    def key(self) -> str:
        return self.plan.session_key
