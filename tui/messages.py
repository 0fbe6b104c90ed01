"""Messages the follower and the screens post upward: past-tense events carrying engine values (dataclasses)."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

from textual.message import Message

from engine import CompactionPlan, CompactionResult, GaugeLevel, SessionInsight, SessionSnapshot, SidecarEvent

__all__ = [
    "CheckpointWritten",
    "CompactionApplied",
    "CompactionDetected",
    "CompactionFailed",
    "ControlFinished",
    "PruneChosen",
    "SessionAssessed",
    "SessionReadFailed",
    "SessionUpdated",
    "SessionsDiscovered",
    "SessionsLoaded",
    "SidecarReported",
    "ThresholdCrossed",
]


@dataclass(eq=False)  # events: identity, not value, equality
class SessionUpdated(Message):
    """A session has a new snapshot; a newer one for the same session replaces one still queued."""

    snapshot: SessionSnapshot

    @property
    def key(self) -> str:
        return self.snapshot.key

    def can_replace(self, message: Message) -> bool:
        """Only the latest state of a session matters; updates of other sessions are all kept."""
        return isinstance(message, SessionUpdated) and message.key == self.key


@dataclass(eq=False)
class SessionsDiscovered(Message):
    """Discovery finished: these sessions will be followed (snapshots follow as they are read)."""

    keys: tuple[str, ...]
    problems: tuple[str, ...]


@dataclass(eq=False)
class SessionsLoaded(Message):
    """Every discovered session has been read once; from now on only changes arrive."""

    count: int


@dataclass(eq=False)
class SessionReadFailed(Message):
    """A session could not be read (deleted, permissions, rewritten underneath us)."""

    key: str
    error: str


@dataclass(eq=False)
class CompactionDetected(Message):
    """The agent (or someone) compacted a session since its previous snapshot."""

    snapshot: SessionSnapshot
    previous_count: int


@dataclass(eq=False)
class ThresholdCrossed(Message):
    """A session's gauge rose past a line (gauge, checkpoint, pre-compaction margin, compaction line)."""

    snapshot: SessionSnapshot
    previous: GaugeLevel

    @property
    def level(self) -> GaugeLevel:
        return self.snapshot.gauge.level


@dataclass(eq=False)
class ControlFinished(Message):
    """A control action (checkpoint, compact, prune, diff) ran; ``summary`` is the line shown to the user."""

    action: str
    key: str
    summary: str


@dataclass(eq=False)
class SessionAssessed(Message):
    """A session has a new degradation/cost/lock assessment; a newer one for the same session replaces it."""

    key: str
    insight: SessionInsight

    def can_replace(self, message: Message) -> bool:
        """Only the latest assessment of a session matters."""
        return isinstance(message, SessionAssessed) and message.key == self.key


@dataclass(eq=False)
class _SidecarMessage(Message):
    """A message carrying one :class:`~engine.sidecar.SidecarEvent`."""

    event: SidecarEvent

    @property
    def key(self) -> str:
        return self.event.session_key


class CheckpointWritten(_SidecarMessage):
    """The sidecar (a trigger) or the user (``c``) wrote a checkpoint."""


class SidecarReported(_SidecarMessage):
    """The sidecar reported something worth telling: an error, an automatic compaction or its refusal."""


@dataclass(eq=False)
class CompactionApplied(Message):
    """A compaction or prune the user confirmed was written (or handed to the gateway)."""

    result: CompactionResult

    @property
    def key(self) -> str:
        return self.result.plan.session_key


@dataclass(eq=False)
class CompactionFailed(Message):
    """A confirmed compaction was refused (nothing written) or failed; ``error`` says why."""

    plan: CompactionPlan
    error: str
    _: KW_ONLY
    refused: bool

    @property
    def key(self) -> str:
        return self.plan.session_key


@dataclass(eq=False)
class PruneChosen(Message):
    """The user chose context messages (entry ids) of a session to prune; the prune preview opens next."""

    key: str
    entry_ids: tuple[str, ...]
