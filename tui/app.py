"""The ctxscope Textual app: follows every session live and routes engine values to the screens.

The App owns the one follow worker (so a modal never pauses ingestion), the one sidecar
:class:`~engine.sidecar.ContextManager` that captures state and writes checkpoints on triggers while you
watch (docs/architecture.md, The sidecar loop), and the latest snapshot and assessment of each session. Screens
get them set on them (attributes down) and post what the user chose (messages up). Compaction and pruning go through
:class:`~tui.dialogs.compact.CompactDialog` (the control keys live in :mod:`tui.control_actions`).
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widgets import DataTable
from textual.worker import Worker, WorkerState

from engine.config.loader import Config
from engine.live.insight import SessionInsight
from engine.session.snapshot import SessionSnapshot
from engine.sidecar import ContextManager, SidecarEvent
from engine.stores.discovery import discover_sessions
from tui import follow
from tui.control_actions import ControlActions
from tui.controls import Controls, default_controls
from tui.messages import (
    CheckpointWritten,
    CompactionApplied,
    CompactionDetected,
    CompactionFailed,
    ControlFinished,
    SessionAssessed,
    SessionReadFailed,
    SessionsDiscovered,
    SessionsLoaded,
    SessionUpdated,
    SidecarReported,
    ThresholdCrossed,
)
from tui.notices import SIDECAR_TITLES, applied_text, risk_changed_text, startup_checkpoints_text
from tui.screens.session_list import SessionChosen, SessionListScreen
from tui.screens.session_view import SessionScreen
from tui.widgets.levels import LEVEL_TEXT

__all__ = ["CtxscopeApp", "launch"]

Clock = Callable[[], datetime]

_DEFAULT_WHERE = "~/.openclaw, ~/.clawdbot and ~/.pi/agent/sessions"


class CtxscopeApp(ControlActions):
    """Watch sessions live; ``changes``, ``controls``, ``clock`` and ``manager`` are injectable for tests and the demo.

    ``auto_checkpoints=False`` (``auto_checkpoints: false`` in the config, ``ctxscope tui --no-auto-checkpoints``)
    keeps the sidecar capturing state but writes checkpoints only when asked (``c``); ``None`` follows the config.
    """

    CSS_PATH = "app.tcss"
    TITLE = "ctxscope"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]  # noqa: RUF012 - Textual declares the type
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit"),
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("c", "force_checkpoint", "Checkpoint", tooltip="Write a checkpoint of the session now"),
        Binding("C", "enriched_checkpoint", "LLM checkpoint", show=False,
                tooltip="Write a checkpoint with decisions found by the configured LLM"),
        Binding("k", "compact", "Compact", tooltip="Preview and apply a compaction"),
        Binding("p", "prune", "Prune", tooltip="Preview and apply pruning of old tool outputs"),
        Binding("d", "diff", "Diff", tooltip="Diff the latest checkpoint against the previous one"),
    ]

    def __init__(
        self,
        paths: Sequence[Path] = (),
        config: Config | None = None,
        *,
        changes: follow.ChangeSource | None = None,
        controls: Controls | None = None,
        clock: Clock | None = None,
        force_polling: bool | None = None,
        auto_checkpoints: bool | None = None,
        manager: ContextManager | None = None,
        lock_timeout: float = 10.0,
    ) -> None:
        super().__init__()
        self.config = config or Config()
        self.clock: Clock = clock or (lambda: datetime.now(UTC))
        self.manager = manager or ContextManager(self.config, clock=self.clock, auto_checkpoints=auto_checkpoints)
        """The sidecar: captures state and writes checkpoints on triggers; ``c`` writes through it too."""
        self.tracker = follow.SessionTracker(paths, self.config, manager=self.manager, clock=self.clock)
        self.force_polling = force_polling
        self.changes = changes or follow.watch_changes(force_polling=force_polling)
        self.controls = controls or default_controls()
        if self.controls.runner("force_checkpoint") is None and self.controls.has_module("force_checkpoint"):
            self.controls.wire("force_checkpoint", self._write_checkpoint)
        if self.controls.runner("enriched_checkpoint") is None and self.controls.has_module("enriched_checkpoint"):
            self.controls.wire("enriched_checkpoint", partial(self._write_checkpoint, enrich=True))
        self.lock_timeout = lock_timeout
        """Seconds a confirmed compaction waits for a session lock that appeared after the preview."""
        self.snapshots: dict[str, SessionSnapshot] = {}
        """The latest snapshot of every session read so far, by key."""
        self.insights: dict[str, SessionInsight] = {}
        """The latest degradation/cost/lock assessment of every session, by key."""
        self.sessions_loaded = False
        self._read_errors: dict[str, str] = {}
        self._startup_checkpoints: list[SidecarEvent] = []
        self.own_compactions = set()
        self._where = ", ".join(str(p) for p in paths) if paths else _DEFAULT_WHERE

    def get_default_screen(self) -> Screen[None]:
        return SessionListScreen(clock=self.clock, where=self._where)

    @property
    def session_list(self) -> SessionListScreen:
        screen = self.screen_stack[0]
        assert isinstance(screen, SessionListScreen)
        return screen

    def on_mount(self) -> None:
        self.follow_sessions()

    @work(exclusive=True, group="follow_sessions", exit_on_error=False)
    async def follow_sessions(self) -> None:
        """Discover and follow every session for as long as the app runs."""
        await follow.follow_sessions(self.tracker, self.changes, self.post_message)

    # -- what the follower reports -------------------------------------------------------------------------

    def _session_screens(self, key: str) -> list[SessionScreen]:
        return [s for s in self.screen_stack if isinstance(s, SessionScreen) and s.key == key]

    def on_sessions_discovered(self, message: SessionsDiscovered) -> None:
        self.session_list.problems = message.problems
        gone = set(self.snapshots) - set(message.keys)  # a transcript now known under its store key
        for key in gone:
            self.snapshots.pop(key, None)
            self.insights.pop(key, None)
        if gone:
            self.session_list.snapshots = tuple(self.snapshots.values())
            self.session_list.insights = dict(self.insights)

    def on_session_updated(self, message: SessionUpdated) -> None:
        snapshot = message.snapshot
        self.snapshots[snapshot.key] = snapshot
        self._read_errors.pop(snapshot.key, None)
        self.session_list.snapshots = tuple(self.snapshots.values())
        for screen in self._session_screens(snapshot.key):
            screen.snapshot = snapshot
        self.refresh_controls()

    def on_session_assessed(self, message: SessionAssessed) -> None:
        insight, old = message.insight, self.insights.get(message.key)
        self.insights[message.key] = insight
        self.session_list.insights = dict(self.insights)
        for screen in self._session_screens(message.key):
            screen.insight = insight
        self.refresh_controls()  # the lock may have come or gone
        if old is not None and old.risk != insight.risk:
            severity: SeverityLevel = "error" if insight.risk in ("high", "critical") else "warning"
            self.tell(risk_changed_text(message.key, old, insight, self.label), title="Risk level changed",
                      severity=severity)

    def on_unmount(self) -> None:
        gc.unfreeze()

    @on(DataTable.RowHighlighted, "#sessions")
    def _session_highlighted(self) -> None:
        self.refresh_controls()  # the keys on offer depend on the session under the list's cursor

    def on_sessions_loaded(self, message: SessionsLoaded) -> None:
        # What exists now (Textual, the engine, tiktoken, the sessions read) lives as long as the app. Freezing it
        # keeps Python's full collections from scanning it again on every pass, which otherwise stalls screen
        # updates by tens of milliseconds (bench.tui_latency); on_unmount hands it back to the collector.
        gc.collect()
        gc.freeze()
        self.sessions_loaded = True
        self.session_list.loaded = True
        if self._startup_checkpoints:  # one notification for the start-up round, not one per session
            title, text = startup_checkpoints_text(self._startup_checkpoints, self.label)
            self.tell(text, title=title)
            self._startup_checkpoints = []

    def on_checkpoint_written(self, message: CheckpointWritten) -> None:
        for screen in self._session_screens(message.key):
            screen.load_history()
        if not self.sessions_loaded:
            self._startup_checkpoints.append(message.event)
            return
        self.tell(f"{self.label(message.key)}: {message.event.message}", title="Checkpoint written")

    def on_sidecar_reported(self, message: SidecarReported) -> None:
        event = message.event
        title, severity = SIDECAR_TITLES.get(event.kind, (event.kind, "information"))
        self.tell(f"{self.label(message.key)}: {event.message}", title=title, severity=severity)

    def on_session_read_failed(self, message: SessionReadFailed) -> None:
        if self._read_errors.get(message.key) != message.error:  # say it once, not on every change
            self._read_errors[message.key] = message.error
            self.tell(message.error, title=f"Can't read {self.label(message.key)}", severity="error")

    def on_compaction_detected(self, message: CompactionDetected) -> None:
        snapshot = message.snapshot
        if snapshot.key in self.own_compactions:  # ours: already reported as applied
            self.own_compactions.discard(snapshot.key)
            return
        after = "size unknown until the agent's next reply" if snapshot.tokens.tokens is None else (
            f"now {snapshot.tokens.tokens:,} tokens"
        )
        self.tell(
            f"{self.label(snapshot.key)}: compaction {message.previous_count} → {snapshot.compactions}; {after}.",
            title="Compaction detected",
            severity="warning",
        )

    def on_threshold_crossed(self, message: ThresholdCrossed) -> None:
        snapshot = message.snapshot
        util = snapshot.utilization
        figure = f" ({util:.0%})" if util is not None else ""
        severity: SeverityLevel = "error" if message.level in ("near-compaction", "over-compaction") else "warning"
        self.tell(f"{self.label(snapshot.key)}: {LEVEL_TEXT[message.level]}{figure}.",
                  title="Threshold crossed", severity=severity)

    def on_control_finished(self, message: ControlFinished) -> None:
        self.tell(message.summary, title=self.controls.spec(message.action).title)
        for screen in self._session_screens(message.key):
            screen.load_history()
        if message.action == "force_checkpoint":
            self.refresh_session(message.key, reassess=True)  # lost-decision share counts checkpoints

    def on_compaction_applied(self, message: CompactionApplied) -> None:
        title = "Pruned" if message.result.plan.layer == "prune" else "Compacted"
        self.tell(applied_text(message.result, self.label), title=title, timeout=10)
        self.refresh_session(message.key, reassess=True)
        for screen in self._session_screens(message.key):
            screen.load_history()

    def on_compaction_failed(self, message: CompactionFailed) -> None:
        self.own_compactions.discard(message.key)
        verb = "Pruning" if message.plan.layer == "prune" else "Compaction"
        self.tell(message.error, title=f"{verb} refused: nothing written" if message.refused else f"{verb} failed",
                  severity="warning" if message.refused else "error", timeout=10)
        for screen in self._session_screens(message.key):
            screen.load_history()

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if event.state != WorkerState.ERROR:
            return
        if worker.group == "follow_sessions":
            title = "Live updates stopped"
        elif worker.group == "controls":
            title = "Action failed"
        else:
            title = f"Could not {worker.name.replace('_', ' ')}"
        self.tell(f"{type(worker.error).__name__}: {worker.error}", title=title, severity="error", timeout=10)

    # -- navigation ----------------------------------------------------------------------------------------

    def on_session_chosen(self, message: SessionChosen) -> None:
        snapshot = self.snapshots.get(message.key)
        if snapshot is None:
            return
        self.push_screen(
            SessionScreen(
                snapshot,
                with_follower=partial(self.tracker.with_follower, message.key),
                controls=self.controls,
                config=self.config,
                clock=self.clock,
                captured_state=partial(self.tracker.captured_state, message.key),
                state_dir=self.tracker.state_dir(message.key),
                insight=self.insights.get(message.key),
            )
        )


def launch(
    paths: Sequence[Path],
    config: Config,
    *,
    force_polling: bool | None = None,
    bare: bool = False,
) -> int:
    """Run the TUI until the user quits; with nothing to show or watch, print a hint instead and return 0.

    The seam ``ctxscope``, ``ctxscope tui`` and ``ctxscope demo`` share: the demo passes its state dir.
    """
    paths = list(paths)
    watchable = follow.watch_targets(paths)
    if bare or not watchable:
        discovery = discover_sessions(paths or None)
        if not discovery.sessions and (bare or not watchable):
            for problem in discovery.problems:
                print(f"ctxscope: {problem}", file=sys.stderr)
            where = ", ".join(str(p) for p in paths) if paths else _DEFAULT_WHERE
            print(f"No sessions found in {where}.\n"
                  "Try `ctxscope demo` to watch a simulated agent, or `ctxscope tui PATH` on a sessions directory.")
            return 0
    CtxscopeApp(paths, config, force_polling=force_polling).run()
    return 0
