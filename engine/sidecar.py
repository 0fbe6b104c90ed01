"""The sidecar context manager: follow sessions, capture state, write checkpoints on triggers.

See docs/architecture.md, The sidecar loop.

``ctxscope watch`` and the TUI run this same loop. The engine has no file watcher (that is a UI concern):
callers tell :meth:`ContextManager.step` which session changed, or call :meth:`ContextManager.step_all`.
Every outcome is reported as a :class:`SidecarEvent`, one per line in ``watch``, one notification in the TUI.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from engine.capture.ledger import carry_open
from engine.capture.state import CapturedState, capture
from engine.capture.state_files import load_state, save_state
from engine.checkpoints.builder import build_checkpoint, checkpoint_tokens
from engine.checkpoints.store import AlreadyWrittenError, CheckpointRef, latest_checkpoint, write_checkpoint
from engine.checkpoints.triggers import TriggerState, decide_trigger, should_skip
from engine.compaction.auto import auto_compaction_layer, run_auto_compaction
from engine.config.extras import missing_extra
from engine.config.loader import Config, resolve_state_dir
from engine.index.cache import IndexCache
from engine.session.snapshot import SessionFollower, SessionSnapshot
from engine.stores.source import AGENT_FORMATS, SessionSource
from engine.stores.timestamps import parse_iso
from engine.stores.transcript import TranscriptError

if TYPE_CHECKING:
    from engine.config.llm_settings import LLMConfig

__all__ = ["ContextManager", "ManagedSession", "SidecarEvent"]

Clock = Callable[[], datetime]
AUTO_COMPACT_RETRY_ENTRIES = 10
"""After a refused automatic compaction, wait for this many new entries before planning again."""


@dataclass(frozen=True, slots=True)
class SidecarEvent:
    """Something the sidecar did or noticed."""

    kind: str
    """``checkpoint``, ``skipped``, ``compaction``, ``threshold``, ``level``, ``error``, or from auto mode
    ``auto-compact``/``refused``."""
    session_key: str
    message: str
    time: datetime
    trigger: str | None = None
    checkpoint: CheckpointRef | None = None
    layer: str | None = None
    """The layer of an automatic compaction attempt (``auto-compact``, ``refused``, or its ``error``)."""

    @property
    def short_message(self) -> str:
        """:attr:`message` without the checkpoint file's path (a notification has no room for it; the Checkpoints
        tab shows where it is)."""
        return self.message.replace(f" → {self.checkpoint.path}", "") if self.checkpoint else self.message

    def line(self) -> str:
        """One line for ``ctxscope watch``."""
        stamp = self.time.astimezone().strftime("%H:%M:%S")
        return f"{stamp}  {self.kind:<10}  {self.session_key}  {self.message}"


class ManagedSessions(dict[str, "ManagedSession"]):
    """Managed sessions by follow key (:attr:`SessionSource.follow_key`); ``sessions[key]`` also finds one by the
    key its store or header gives when only one managed session has it (docs/checkpoints.md, Session identity)."""

    def __missing__(self, key: str) -> ManagedSession:
        named = [s for s in self.values() if key in (s.follower.source.key, s.follower.source.identity)]
        if len(named) != 1:
            raise KeyError(key)
        return named[0]


@dataclass
class ManagedSession:
    """Mutable per-session bookkeeping owned by the :class:`ContextManager` (never shared across threads)."""

    follower: SessionFollower
    state_dir: Path
    state: CapturedState = field(default_factory=CapturedState)
    triggers: TriggerState = field(default_factory=TriggerState)
    started: bool = False
    level: str | None = None
    auto_compact_tried_at: int | None = None
    """Entry count when automatic compaction was last refused; it is retried only after more entries."""

    @property
    def key(self) -> str:
        return self.follower.source.follow_key

    @property
    def identity(self) -> str:
        """What the session's checkpoints and captured state are filed under (:attr:`SessionSource.identity`)."""
        return self.follower.source.identity

    @property
    def snapshot(self) -> SessionSnapshot | None:
        return self.follower.snapshot


class ContextManager:
    """Runs capture and checkpoint triggers over a set of sessions."""

    def __init__(
        self,
        config: Config | None = None,
        *,
        clock: Clock | None = None,
        auto_checkpoints: bool | None = None,
        auto_compact: bool | None = None,
        index: IndexCache | None = None,
    ):
        self.config = config or Config()
        self.index = index
        """Where followers store their entries between runs (:mod:`engine.index.entry_cache`); ``None``: nowhere."""
        self.clock: Clock = clock or (lambda: datetime.now(UTC))
        self.auto_checkpoints = self.config.auto_checkpoints if auto_checkpoints is None else auto_checkpoints
        """Write checkpoints on triggers (``config.auto_checkpoints`` unless given); ``write`` works either way."""
        self.auto_compact = self.config.compaction.auto.enabled if auto_compact is None else auto_compact
        """Compact automatically past ``auto_compact.threshold``; off unless configured."""
        self.sessions = ManagedSessions()

    def add(self, source: SessionSource) -> ManagedSession:
        """Start managing ``source`` (idempotent by key)."""
        if source.follow_key not in self.sessions:
            state_dir = resolve_state_dir(source.state_dir, self.config)
            self.sessions[source.follow_key] = ManagedSession(SessionFollower(source, self.config, self.index),
                                                              state_dir)
        return self.sessions[source.follow_key]

    def session(self, key: str) -> ManagedSession:
        """The managed session of ``key`` (see :class:`ManagedSessions`).

        Raises:
            KeyError: no such session, or the key names several (copies of one transcript).
        """
        return self.sessions[key]

    def add_all(self, sources: Iterable[SessionSource]) -> None:
        for source in sources:
            self.add(source)

    def _event(self, kind: str, session: ManagedSession, message: str, **extra: object) -> SidecarEvent:
        return SidecarEvent(kind, session.key, message, self.clock(), **extra)  # type: ignore[arg-type]

    def _start(self, session: ManagedSession, snapshot: SessionSnapshot) -> None:
        latest = latest_checkpoint(session.state_dir, session.identity)
        loaded = load_state(
            session.state_dir,
            session.identity,
            latest_checkpoint_at=parse_iso(latest.checkpoint.meta.created_at) if latest else None,
        )
        session.state = loaded.state
        session.triggers = TriggerState(
            compactions_seen=snapshot.compactions_in_file,
            last_checkpoint_tokens=latest.checkpoint.meta.token_usage.input_tokens if latest else None,
        )
        session.level = snapshot.gauge.level
        session.started = True

    def _idle(self, snapshot: SessionSnapshot) -> bool:
        """Idle longer than ``auto_checkpoint_idle`` (config) by its last activity; unknown activity is not idle."""
        last = snapshot.last_activity
        return last is not None and (self.clock() - last).total_seconds() > self.config.auto_checkpoint_idle

    def step(self, key: str) -> tuple[SessionSnapshot | None, list[SidecarEvent]]:
        """Read what changed in one session, capture it, and write a checkpoint if a trigger fired."""
        session = self.session(key)
        events: list[SidecarEvent] = []
        previous_revision = session.snapshot.revision if session.snapshot else -1
        try:
            snapshot = session.follower.refresh()
        except TranscriptError as exc:
            return session.snapshot, [self._event("error", session, str(exc))]
        if not snapshot.is_session:
            return snapshot, events  # a file with no header and no entry (a binary named *.jsonl): never written for
        if not session.started:
            self._start(session, snapshot)
            if self._idle(snapshot):
                return snapshot, events  # read, not written to: captured and checkpointed once it moves
        elif snapshot.revision == previous_revision:
            return snapshot, events
        before_users = session.state.real_user_messages
        fresh = [e for e in snapshot.view.path if e.line_no > session.state.last_line_no]
        if fresh:
            try:
                session.state = capture(session.state, fresh, session.follower.objects.read_object)
            except TranscriptError as exc:
                events.append(self._event("error", session, f"capture stopped: {exc}"))
        if snapshot.compactions_in_file > session.triggers.compactions_seen:
            events.append(self._event("compaction", session, "the agent compacted its context", trigger="compaction"))
        if session.level is not None and snapshot.gauge.level != session.level:
            events.append(self._event("level", session, f"gauge {session.level} → {snapshot.gauge.level}"))
        session.level = snapshot.gauge.level
        if self.auto_checkpoints:
            trigger, session.triggers = decide_trigger(
                session.triggers,
                snapshot.gauge,
                compactions=snapshot.compactions_in_file,
                new_user_messages=session.state.real_user_messages - before_users,
                thresholds=self.config.thresholds,
            )
            if trigger is not None:
                events.append(self.write(key, trigger))
        else:
            # Without trigger bookkeeping the compaction would be reported again on every later step.
            session.triggers = replace(session.triggers, compactions_seen=snapshot.compactions_in_file)
        if self.auto_compact:
            events += self._auto_compact(session, snapshot)
        if fresh and not any(e.kind == "checkpoint" for e in events):
            try:
                save_state(session.state_dir, session.identity, session.state, now=self.clock())
            except OSError as exc:
                events.append(self._event("error", session, f"state not saved: {_one_line(exc)}"))
        return snapshot, events

    def viewed_state(self, key: str) -> CapturedState:
        """The captured state of ``key`` for a view (the Decisions tab). A session idle when first seen is not
        captured by :meth:`step` until it moves, so that following a thousand old sessions captures none; one a
        view asks for is captured now, in memory only (nothing is saved until the session moves)."""
        session = self.session(key)
        snapshot = session.snapshot
        if session.started and session.state.last_line_no == 0 and snapshot is not None and snapshot.view.path:
            with contextlib.suppress(TranscriptError):  # the view shows what there is; step reports the error
                session.state = capture(session.state, snapshot.view.path, session.follower.objects.read_object)
        return session.state

    def step_all(self) -> list[SidecarEvent]:
        """:meth:`step` every session."""
        events: list[SidecarEvent] = []
        for key in list(self.sessions):
            events += self.step(key)[1]
        return events

    def _auto_compact(self, session: ManagedSession, snapshot: SessionSnapshot) -> list[SidecarEvent]:
        """Past the threshold: checkpoint first (unless one is recent), then compact through the jsonl controller."""
        layer = auto_compaction_layer(snapshot, self.config)
        tried = session.auto_compact_tried_at
        if layer is None or (tried is not None and snapshot.entries < tried + AUTO_COMPACT_RETRY_ENTRIES):
            return []
        events = [self.write(session.key, "pre-compaction-margin")]
        outcome = run_auto_compaction(session.follower, session.state_dir, self.config, layer, now=self.clock())
        session.auto_compact_tried_at = None if outcome.kind == "auto-compact" else snapshot.entries
        events.append(self._event(outcome.kind, session, outcome.message, layer=layer))
        return [e for e in events if e.kind != "skipped"]

    def write(self, key: str, trigger: str, *, enrich: LLMConfig | None = None) -> SidecarEvent:
        """Write a checkpoint now (``manual`` is never skipped; automatic triggers obey the 5% rule).

        With ``enrich``, the LLM's decisions are merged in first (:mod:`engine.llm.enrich`); when the call fails
        the checkpoint is still written from the heuristics and the event's message says why.
        """
        session = self.session(key)
        try:
            return self._write(session, key, trigger, enrich)
        except TranscriptError as exc:
            return self._event("error", session, f"checkpoint not written: {_one_line(exc)}", trigger=trigger)

    def _write(self, session: ManagedSession, key: str, trigger: str, enrich: LLMConfig | None) -> SidecarEvent:
        snapshot = session.snapshot or session.follower.refresh()
        if not snapshot.is_session:
            return self._event("error", session, f"checkpoint not written: {session.follower.source.path} is not a "
                               "session (no session header and no entry; pi would not load it)", trigger=trigger)
        if not session.started:
            self._start(session, snapshot)
        # A session read while idle (not captured then) is captured now: a checkpoint asked for holds it all.
        fresh = [e for e in snapshot.view.path if e.line_no > session.state.last_line_no]
        if fresh:
            session.state = capture(session.state, fresh, session.follower.objects.read_object)
        tokens = checkpoint_tokens(snapshot)
        if should_skip(trigger, tokens, session.triggers.last_checkpoint_tokens):
            return self._event(
                "skipped", session, f"{trigger}: tokens moved < 5% since the last checkpoint", trigger=trigger
            )
        previous = latest_checkpoint(session.state_dir, session.identity)
        now = self.clock()
        captured, enrich_note = session.state, ""
        if enrich is not None:
            captured, enrich_note = self._enriched(session, snapshot, enrich, now)
        cp = build_checkpoint(
            snapshot,
            captured,
            session.follower.objects.read_object,
            trigger=trigger,
            previous=previous.checkpoint if previous else None,
            now=now,
        )
        try:
            ref = write_checkpoint(session.state_dir, session.identity, cp, retention=self.config.retention,
                                   once_per_trigger=True)
        except AlreadyWrittenError as exc:
            session.triggers = replace(session.triggers, last_checkpoint_tokens=tokens)
            return self._event("skipped", session, f"{trigger}: another process already wrote it as "
                               f"{exc.ref.checkpoint_id}", trigger=trigger)
        except OSError as exc:
            return self._event("error", session, f"checkpoint not written: {_one_line(exc)}", trigger=trigger)
        # The checkpoint bundled the state: start the next accumulation cycle from here.
        session.state = CapturedState(
            last_entry_id=session.state.last_entry_id,
            last_line_no=session.state.last_line_no,
            last_agent_text=session.state.last_agent_text,
            real_user_messages=session.state.real_user_messages,
            last_tool_call=session.state.last_tool_call,
            ledger=carry_open(session.state.ledger),  # so a later reply can close what this checkpoint lists
        )
        with contextlib.suppress(OSError):  # the checkpoint is written; the next step saves the state again
            save_state(session.state_dir, session.identity, session.state, now=self.clock())
        session.triggers = replace(session.triggers, user_messages_since=0, last_checkpoint_tokens=tokens)
        util = snapshot.gauge.utilization
        # The figure the checkpoint stores, said the same way: after a compaction, before the agent's next reply,
        # the size is unknown and the checkpoint records pi's estimate, named as such — by the rule it follows for
        # Claude Code or Codex, whose users know no "pi" (as the compaction plan says it: plan_stages.py).
        how = "at 4 characters a token" if snapshot.source.format in AGENT_FORMATS else "pi's estimate"
        usage = f"~{tokens:,} tokens ({how}: the size is unknown until the agent's next reply)" if (
            util is None) else f"{util * 100:.0f}%"
        return self._event(
            "checkpoint",
            session,
            f"{ref.checkpoint_id} ({trigger}) at {usage} — {_count(len(cp.decisions), 'decision')}, "
            f"{_count(len(cp.open_items), 'open item')} → {ref.path}{enrich_note}",
            trigger=trigger,
            checkpoint=ref,
        )

    def _enriched(
        self, session: ManagedSession, snapshot: SessionSnapshot, llm: LLMConfig, now: datetime
    ) -> tuple[CapturedState, str]:
        if (problem := missing_extra("llm")) is not None:
            return session.state, f" (LLM enrichment skipped, heuristic decisions only: {problem})"
        from engine.llm.client import LLMError  # httpx is loaded only by users who ask for enrichment
        from engine.llm.enrich import enrich_state

        when = now.isoformat(timespec="seconds").replace("+00:00", "Z")
        try:
            state = enrich_state(session.state, snapshot, session.follower.objects.read_object, llm, when=when)
        except LLMError as exc:
            return session.state, f" (LLM enrichment failed, heuristic decisions only: {exc})"
        return state, f" (decisions enriched by {llm.model})"


def _one_line(exc: BaseException) -> str:
    """An error as one line: ``OSError``s as ``<file>: <reason>`` (no errno tuple)."""
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
    return " ".join(str(exc).split())


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
