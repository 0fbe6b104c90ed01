"""The ctxscope Textual app: follows every session live and routes engine values to the screens.

The App owns the one follow worker (so a modal never pauses ingestion), the one sidecar
:class:`~engine.sidecar.ContextManager` that captures state and writes checkpoints on triggers while you
watch (docs/checkpoints.md), and the latest snapshot and assessment of each session. Screens get them set on them
(attributes down) and post what the user chose (messages up). Whether a control key may run is asked of
:class:`~tui.controls.ControlPolicy` (one reason for the footer, help, palette and key press); compaction and
pruning go through :class:`~tui.compaction_flow.CompactionFlow` and its dialog.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import suppress
from datetime import UTC, datetime, tzinfo
from functools import partial
from pathlib import Path
from typing import ClassVar

from textual import events, on, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.markup import MarkupError
from textual.notifications import Notification, SeverityLevel
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable
from textual.worker import Worker, WorkerState

from engine import (
    Config,
    ContextManager,
    SessionInsight,
    SessionSnapshot,
    SessionTracker,
    SessionUsage,
    collect_usage,
    default_cache,
    discover_sessions,
)
from tui import follow
from tui.compaction_flow import CompactionFlow
from tui.controls import CONTROL_ACTIONS, ControlPolicy, ControlRunner, checkpoint_runner, diff_latest
from tui.dialog_stack import push_once
from tui.dialogs.compact import DEBOUNCE_SECONDS
from tui.executor import ContextPerCallExecutor
from tui.gc_pacing import CollectorPacing
from tui.messages import (
    CheckpointWritten,
    CompactionApplied,
    CompactionDetected,
    CompactionFailed,
    ControlFinished,
    PruneChosen,
    SessionAssessed,
    SessionReadFailed,
    SessionsDiscovered,
    SessionsLoaded,
    SessionUpdated,
    SidecarReported,
    ThresholdCrossed,
)
from tui.notices import SIDECAR_TITLES, risk_changed_text, threshold_text
from tui.notifier import Notifier, worker_failure_title
from tui.screens.commands import app_commands, screen_commands
from tui.screens.help import HelpScreen, keys_of
from tui.screens.notices import NoticesScreen
from tui.screens.session_list import SessionChosen, SessionListScreen
from tui.screens.session_view import REPRICE_SECONDS, SessionScreen
from tui.screens.usage import UsageScreen
from tui.textual_compat import ToastsOff, notifications_enabled
from tui.toasts import Toasts
from tui.widgets.labels import session_label

__all__ = ["DEFAULT_WHERE", "CtxscopeApp"]

Clock = Callable[[], datetime]

DEFAULT_WHERE = "~/.openclaw, ~/.clawdbot and ~/.pi/agent/sessions"


class CtxscopeApp(ToastsOff, App[None]):
    """Watch sessions live; ``changes``, ``runners``, ``clock`` and ``manager`` are injectable for tests and the demo.

    ``auto_checkpoints=False`` (``auto_checkpoints: false`` in the config, ``ctxscope tui --no-auto-checkpoints``)
    keeps the sidecar capturing state but writes checkpoints only when asked (``c``); ``None`` follows the config.
    """

    CSS_PATH = "app.tcss"
    TITLE = "ctxscope"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]  # noqa: RUF012 - Textual declares the type
    BINDINGS: ClassVar[list[BindingType]] = [
        # The footer drops keys from its end when they do not fit (80 columns): the controls come first.
        Binding("c", "force_checkpoint", "Checkpoint", tooltip="Write a checkpoint of the session now"),
        Binding("C", "enriched_checkpoint", "LLM checkpoint", show=False,
                tooltip="Write a checkpoint with decisions found by the configured LLM"),
        Binding("k", "compact", "Compact", tooltip="Preview and apply a compaction"),
        Binding("p", "prune", "Prune", tooltip="Preview and apply pruning of old tool outputs"),
        Binding("d", "diff", "Diff", tooltip="Diff the latest checkpoint against the previous one"),
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("q", "quit", "Quit"),
        Binding("n", "notices", "Notices", show=False, tooltip="Every notice of this run, routine ones included"),
        Binding("z", "dismiss_notices", "Dismiss", show=False, tooltip="Take the current notices off the screen"),
    ]

    def __init__(
        self,
        paths: Sequence[Path] = (),
        config: Config | None = None,
        *,
        changes: follow.ChangeSource | None = None,
        runners: Mapping[str, ControlRunner] | None = None,
        clock: Clock | None = None,
        force_polling: bool | None = None,
        auto_checkpoints: bool | None = None,
        manager: ContextManager | None = None,
        lock_timeout: float = 10.0,
        compaction_debounce: float = DEBOUNCE_SECONDS,
    ) -> None:
        super().__init__()
        self.config = config or Config()
        self.clock: Clock = clock or (lambda: datetime.now(UTC))
        self._cache_problems: list[str] = []
        self.manager = manager or ContextManager(self.config, clock=self.clock, auto_checkpoints=auto_checkpoints,
                                                 index=default_cache(warn=self._cache_problems.append))
        """The sidecar: captures state and writes checkpoints on triggers; ``c`` writes through it too."""
        self.tracker: SessionTracker = follow.SessionTracker(paths, self.config, manager=self.manager, clock=self.clock)
        self.force_polling = force_polling
        self.changes = changes or follow.watch_changes(force_polling=force_polling)
        self.runners: dict[str, ControlRunner] = {
            "force_checkpoint": checkpoint_runner(self.tracker),
            "enriched_checkpoint": checkpoint_runner(self.tracker, enrich=True),
            "diff": diff_latest,
            **(runners or {}),
        }
        self.compaction = CompactionFlow(self, lock_timeout=lock_timeout, debounce=compaction_debounce)
        self.snapshots: dict[str, SessionSnapshot] = {}
        """The latest snapshot of every session read so far, by key."""
        self.insights: dict[str, SessionInsight] = {}
        """The latest degradation/cost/lock assessment of every session, by key."""
        self.sessions_loaded = False
        toasts = Toasts(self)
        self.toasts = toasts
        """The current notices, shown on each screen's notice line (tui/widgets/notice_line.py)."""
        self.notifier = Notifier(toasts.show, self.label, withdraw=toasts.withdraw)
        """Every notification goes through it: plain text, repeats folded, read errors said once."""
        self._shown_controls: tuple[tuple[str, bool], ...] | None = None
        self.gc_pacing = CollectorPacing()
        """Full garbage collections when the user pauses (tui/gc_pacing.py)."""
        self._where = ", ".join(str(p) for p in paths) if paths else DEFAULT_WHERE
        self.usage_timezone: tzinfo = datetime.now().astimezone().tzinfo or UTC
        """The zone the Usage screen cuts days in (tests and screenshots set UTC)."""

    @property
    def policy(self) -> ControlPolicy:
        """Says which control keys may run now and why not (follows the current config)."""
        return ControlPolicy(self.config)

    def get_default_screen(self) -> Screen[None]:
        return SessionListScreen(clock=self.clock, where=self._where, metrics_host=self.config.metrics.host)

    @property
    def session_list(self) -> SessionListScreen:
        screen = self.screen_stack[0]
        assert isinstance(screen, SessionListScreen)
        return screen

    def on_mount(self) -> None:
        # Before the first thread worker runs: each call in a context of its own (tui/executor.py).
        loop = asyncio.get_running_loop()
        loop.set_default_executor(ContextPerCallExecutor(thread_name_prefix="ctxscope-worker"))
        self._seconds = 0
        self.set_interval(1.0, self._each_second)
        self.follow_sessions()

    def _each_second(self) -> None:
        self._seconds += 1
        self.gc_pacing.tick()
        if self._seconds % REPRICE_SECONDS == 0:
            for screen in self.screen_stack:
                if isinstance(screen, SessionScreen):
                    screen.reprice_now()

    @work(exclusive=True, group="follow_sessions", exit_on_error=False)
    async def follow_sessions(self) -> None:
        """Discover and follow every session for as long as the app runs."""
        await follow.follow_sessions(self.tracker, self.changes, self.post_message)

    # -- what the follower reports -------------------------------------------------------------------------

    def _session_screens(self, key: str) -> list[SessionScreen]:
        return [s for s in self.screen_stack if isinstance(s, SessionScreen) and s.key == key]

    def on_sessions_discovered(self, message: SessionsDiscovered) -> None:
        if not self.is_running:
            return
        self.session_list.problems = message.problems
        gone = set(self.snapshots) - set(message.keys)  # a transcript now known under its store key
        for key in gone:
            self.snapshots.pop(key, None)
            self.insights.pop(key, None)
        if gone:
            self.session_list.snapshots = tuple(self.snapshots.values())
            self.session_list.insights = dict(self.insights)

    def on_session_updated(self, message: SessionUpdated) -> None:
        # What the follower queued before shutdown is dropped: shutdown removes the screens (and their widgets)
        # while the app may still dispatch it (Pilot shuts down beside the app's loop), and nothing is left to show.
        if not self.is_running:
            return
        snapshot = message.snapshot
        if not snapshot.is_session:
            # No header and no entry: a file the agent has only just created, or no session at all (a binary named
            # *.jsonl). Not listed until it holds one; `ctxscope status FILE` says why.
            if self.snapshots.pop(snapshot.key, None) is not None:
                self.session_list.snapshots = tuple(self.snapshots.values())
            return
        self.snapshots[snapshot.key] = snapshot
        self.notifier.read_again(snapshot.key)
        self.session_list.snapshots = tuple(self.snapshots.values())
        for screen in self._session_screens(snapshot.key):
            screen.snapshot = snapshot
        self.compaction.session_moved(snapshot.key)
        self.refresh_controls()

    def on_session_assessed(self, message: SessionAssessed) -> None:
        if not self.is_running:
            return
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
        self.gc_pacing.stop()
        gc.unfreeze()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key | events.MouseDown):
            self.gc_pacing.input_seen()
        await super().on_event(event)

    @on(DataTable.RowHighlighted, "#sessions")
    def _session_highlighted(self) -> None:
        self.refresh_controls()  # the keys on offer depend on the session under the list's cursor

    def on_sessions_loaded(self, message: SessionsLoaded) -> None:
        # What exists now (Textual, the engine, tiktoken, the sessions read) lives as long as the app. Freezing it
        # keeps Python's full collections from scanning it again on every pass, which otherwise stalls screen
        # updates by tens of milliseconds (bench.tui_latency); on_unmount hands it back to the collector. What comes
        # later is collected in full when the user pauses (tui/gc_pacing.py).
        if not self.is_running:
            return
        gc.collect()
        gc.freeze()
        self.gc_pacing.start()
        self.sessions_loaded = True
        self.session_list.loaded = True
        for problem in self._cache_problems:  # said once: the cache turned itself off for this run
            self.tell(problem, title="Index cache", severity="warning")
        self._cache_problems.clear()
        self.notifier.startup_done()

    def on_checkpoint_written(self, message: CheckpointWritten) -> None:
        self.reload_history(message.key)
        if not self.sessions_loaded:
            self.notifier.startup_checkpoint(message.event)
            return
        # A checkpoint a trigger wrote is routine: filed in the notices history, and the Audit tab lists it.
        self.tell(f"{self.label(message.key)}: {message.event.short_message}", title="Checkpoint written",
                  routine=message.event.trigger != "manual")

    def on_sidecar_reported(self, message: SidecarReported) -> None:
        event = message.event
        title, severity = SIDECAR_TITLES.get(event.kind, (event.kind, "information"))
        self.tell(f"{self.label(message.key)}: {event.message}", title=title, severity=severity)

    def on_session_read_failed(self, message: SessionReadFailed) -> None:
        self.notifier.read_failed(message.key, message.error)

    def on_compaction_detected(self, message: CompactionDetected) -> None:
        self.compaction.detected(message)

    def on_threshold_crossed(self, message: ThresholdCrossed) -> None:
        text, severity = threshold_text(message.snapshot, self.label)
        self.tell(text, title="Threshold crossed", severity=severity)

    def reload_history(self, key: str) -> None:
        """Re-read the checkpoints and audit shown by the open screens of session ``key``."""
        for screen in self._session_screens(key):
            screen.load_history()

    def on_control_finished(self, message: ControlFinished) -> None:
        self.tell(message.summary, title=self.policy.spec(message.action).title)
        self.reload_history(message.key)
        if message.action == "force_checkpoint":
            self.refresh_session(message.key, reassess=True)  # lost-decision share counts checkpoints

    def on_compaction_applied(self, message: CompactionApplied) -> None:
        self.compaction.applied(message)

    def on_compaction_failed(self, message: CompactionFailed) -> None:
        self.compaction.failed(message)

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if event.state == WorkerState.ERROR:
            self.tell(f"{type(worker.error).__name__}: {worker.error}", title=worker_failure_title(worker),
                      severity="error", timeout=10)

    # -- navigation ----------------------------------------------------------------------------------------

    def on_session_chosen(self, message: SessionChosen) -> None:
        snapshot = self.snapshots.get(message.key)
        # Only the list chooses a session: a choice that arrives once a session is open is a repeat from the same
        # burst of clicks or key presses, queued before the opened screen took them (each pushed one more screen).
        if snapshot is None or not isinstance(self.screen, SessionListScreen):
            return
        self.push_screen(
            SessionScreen(
                snapshot,
                with_follower=partial(self.tracker.with_follower, message.key),
                follower_now=partial(self.tracker.follower_now, message.key),
                config=self.config,
                clock=self.clock,
                captured_state=partial(self.tracker.captured_state, message.key),
                state_dir=self.tracker.state_dir(message.key),
                insight=self.insights.get(message.key),
            )
        )

    # -- control keys ----------------------------------------------------------------------------------------

    def tell(
        self, text: str, *, title: str = "", severity: SeverityLevel = "information", timeout: float | None = None,
        routine: bool = False,
    ) -> None:
        """Notify with plain text, an identical notice of the last minute held back (:class:`Notifier`)."""
        self.notifier.tell(text, title=title, severity=severity, timeout=timeout, routine=routine)

    def notify(
        self, message: str, *, title: str = "", severity: SeverityLevel = "information", timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """A notification from a screen or from Textual itself (``ctrl+c``'s hint) goes through the
        :class:`Notifier` to the notice lines like every other: Textual's toasts, where it went, are never drawn
        (tui/textual_compat.py, ``ToastsOff``). Plain text: markup only styled, and the message may quote session
        data. Queued, so any thread may call it, as it may Textual's."""
        if markup:
            with suppress(MarkupError):  # not markup after all: shown as written
                message = Content.from_markup(message).plain
        self.call_later(partial(self.notifier.tell, message, title=title, severity=severity, timeout=timeout))

    def clear_notifications(self) -> None:
        super().clear_notifications()
        self.toasts.clear()

    def current_notices(self) -> list[Notification]:
        """The notices the notice lines show (none where Textual's notifications are off: ``run_test`` without
        them, as the snapshot tests run, where the toasts were not drawn either)."""
        return self.toasts.current() if notifications_enabled(self) else []

    def action_notices(self) -> None:
        """List every notice of this run, routine ones included."""
        push_once(self, NoticesScreen(self.notifier.history))

    def action_dismiss_notices(self) -> None:
        """Take the current notices off the notice line (they stay in the history)."""
        self.toasts.dismiss_all()

    def label(self, key: str) -> str:
        """The short name of session ``key`` (its key, or its file name when the key is a path)."""
        follower = self.tracker.follower(key)
        return session_label(follower.source) if follower else key

    @work(group="refresh", exit_on_error=False)
    async def refresh_session(self, key: str, *, reassess: bool = False) -> None:
        """Step one session now (after our own write) instead of waiting for the watcher."""
        await follow.refresh_session(self.tracker, key, self.post_message, reassess=reassess)

    def current_snapshot(self, screen: Screen[object] | None = None) -> SessionSnapshot | None:
        """The session the user is looking at: the open session, or the one under the list's cursor."""
        screen = screen or self.screen
        key = screen.key if isinstance(screen, SessionScreen) else (
            screen.selected_key if isinstance(screen, SessionListScreen) else None
        )
        return self.snapshots.get(key) if key is not None else None

    def unavailable(self, action: str, screen: Screen[object] | None = None) -> str | None:
        """Why ``action`` cannot run on the current session right now (the policy's answer), or ``None``."""
        snapshot = self.current_snapshot(screen)
        insight = self.insights.get(snapshot.key) if snapshot else None  # the lock as of the last refresh
        label = self.label(snapshot.key) if snapshot else ""
        return self.policy.unavailable(action, snapshot, insight.lock if insight else None, label)

    def refresh_controls(self) -> None:
        """Refresh the footer's keys when a control action's availability has changed, and only then.

        Called on every session update. Each ``refresh_bindings`` recomposes Textual's Footer, and (Textual 8.2)
        the old keys stay referenced by the Footer's data bindings: refreshing on every append kept ~28 widgets
        per append alive and made full GC passes grow past 150 ms, which showed as screen-update stalls.
        """
        shown = tuple((action, self.unavailable(action) is None) for action in sorted(CONTROL_ACTIONS))
        if shown != self._shown_controls:
            self._shown_controls = shown
            self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if isinstance(self.screen, ModalScreen) and action in _SCREEN_KEYS:
            return False  # a dialog's keys are its own: the screen's do nothing there, so its footer hides them
        if action in CONTROL_ACTIONS:
            return None if self.unavailable(action) else True
        return True

    def on_key(self, event: events.Key) -> None:
        """A control key whose action is disabled reaches here unhandled: say why instead of doing nothing."""
        action = next((b.action for b in self.BINDINGS if isinstance(b, Binding) and b.key == event.key
                       and b.action in CONTROL_ACTIONS), None)
        if action is None or isinstance(self.screen, ModalScreen):
            return
        reason = self.unavailable(action)
        if reason is None:
            return
        event.stop()
        snapshot = self.current_snapshot()
        if action in ("compact", "prune") and snapshot is not None and self.policy.unavailable(
                action, snapshot, None, self.label(snapshot.key)) is None:
            # Only the lock as last seen stands in the way, and its holder may have exited since: look again.
            self.compaction.open(snapshot, "prune" if action == "prune" else None)
            return
        self.tell(f"{self.policy.spec(action).title}: {reason}.", severity="warning")

    def run_control(self, action: str) -> None:
        """Run a control action on the current session, or say why it cannot run."""
        spec = self.policy.spec(action)
        snapshot = self.current_snapshot()
        reason = self.unavailable(action)
        if snapshot is None or reason is not None:
            self.tell(f"{spec.title}: {reason}.", severity="warning")
            return
        if action in ("compact", "prune"):
            self.compaction.open(snapshot, "prune" if action == "prune" else None)
            return
        self.apply_control(action, snapshot, self.runners[action])

    @work(thread=True, group="controls", exit_on_error=False)
    def apply_control(self, action: str, snapshot: SessionSnapshot, runner: ControlRunner) -> None:
        """Run an engine control off the UI thread and report its one-line result."""
        self.post_message(ControlFinished(action, snapshot.key, runner(snapshot, self.config)))

    def action_help(self) -> None:
        """Show the keys of the current screen and the gauge legend."""
        push_once(self, HelpScreen(keys_of(self, lambda a: self.unavailable(a) if a in CONTROL_ACTIONS else None)))

    def action_force_checkpoint(self) -> None:
        """Write a checkpoint of the current session now."""
        self.run_control("force_checkpoint")

    def action_enriched_checkpoint(self) -> None:
        """Write a checkpoint of the current session now, with the configured LLM's decisions merged in."""
        self.run_control("enriched_checkpoint")

    def action_compact(self) -> None:
        """Preview and apply a compaction of the current session."""
        self.run_control("compact")

    def action_prune(self) -> None:
        """Preview and apply pruning of the current session's old tool outputs."""
        self.run_control("prune")

    def action_usage(self) -> None:
        """Show tokens, cost and compactions of every session by day, model and project."""
        push_once(self, UsageScreen(self._read_usage, tz=self.usage_timezone))

    def _read_usage(self) -> tuple[tuple[SessionUsage, ...], tuple[str, ...]]:
        """Every discovered session's usage through the index cache (blocking: the Usage screen's worker)."""
        discovery = discover_sessions(list(self.tracker.paths) or None)
        return collect_usage(discovery, self.manager.index)

    def on_prune_chosen(self, message: PruneChosen) -> None:
        snapshot = self.snapshots.get(message.key)
        reason = self.unavailable("prune")
        if snapshot is None or reason is not None:
            self.tell(f"{self.policy.spec('prune').title}: {reason or 'the session is gone'}.", severity="warning")
            return
        self.compaction.open(snapshot, "prune", targets=message.entry_ids)

    def action_diff(self) -> None:
        """Show the Checkpoints tab and diff the latest checkpoint against the previous one (from the list, the
        session under the cursor opens on it: a one-line notice was all the list showed)."""
        if isinstance(self.screen, SessionListScreen) and self.unavailable("diff") is None:
            snapshot = self.current_snapshot()
            if snapshot is not None:
                self.on_session_chosen(SessionChosen(snapshot.key))
                if isinstance(self.screen, SessionScreen):
                    self.call_after_refresh(self.screen.show_latest_diff)  # once the opened screen is mounted
                self.run_control("diff")
                return
        if isinstance(self.screen, SessionScreen):
            self.screen.show_latest_diff()
        self.run_control("diff")

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield from app_commands(self.action_help, self.action_usage, self.run_control,
                                partial(self.unavailable, screen=screen))
        yield from screen_commands(screen, self.pop_screen)


_SCREEN_KEYS = frozenset(b.action for b in CtxscopeApp.BINDINGS if isinstance(b, Binding)) - {
    "notices", "dismiss_notices"}
"""The App's own keys (quit, help, the controls): hidden and inert while a dialog is open (the notices' keys work
everywhere: a dialog has its notice line too)."""
