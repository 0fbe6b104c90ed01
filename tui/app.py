"""The ctxscope Textual app: follows every session live and routes engine values to the screens.

The App owns the one follow worker (so a modal never pauses ingestion) and the latest snapshot of each
session; screens get snapshots set on them (attributes down) and post what the user chose (messages up).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from engine.config import Config
from engine.session import SessionSnapshot
from engine.stores import discover_sessions
from tui import follow
from tui.controls import CONTROL_SPECS, ControlRunner, Controls, default_controls
from tui.messages import (
    CompactionDetected,
    ControlFinished,
    SessionReadFailed,
    SessionsDiscovered,
    SessionsLoaded,
    SessionUpdated,
    ThresholdCrossed,
)
from tui.screens.help import HelpScreen, KeyHelp
from tui.screens.session_list import SessionChosen, SessionListScreen
from tui.screens.session_view import SessionScreen
from tui.widgets.labels import session_label
from tui.widgets.levels import LEVEL_TEXT

__all__ = ["CtxscopeApp", "launch"]

Clock = Callable[[], datetime]
_CONTROL_ACTIONS = frozenset(spec.action for spec in CONTROL_SPECS)
_DEFAULT_WHERE = "~/.openclaw, ~/.clawdbot and ~/.pi/agent/sessions"


class CtxscopeApp(App[None]):
    """Watch sessions live; ``changes``, ``controls`` and ``clock`` are injectable for tests and the demo."""

    CSS_PATH = "app.tcss"
    TITLE = "ctxscope"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]  # noqa: RUF012 - Textual declares the type
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit"),
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("c", "force_checkpoint", "Checkpoint", tooltip="Write a checkpoint of the session now"),
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
    ) -> None:
        super().__init__()
        self.config = config or Config()
        self.tracker = follow.SessionTracker(paths, self.config)
        self.force_polling = force_polling
        self.changes = changes or follow.watch_changes(force_polling=force_polling)
        self.controls = controls or default_controls()
        self.clock: Clock = clock or (lambda: datetime.now(UTC))
        self.snapshots: dict[str, SessionSnapshot] = {}
        """The latest snapshot of every session read so far, by key."""
        self.sessions_loaded = False
        self._read_errors: dict[str, str] = {}
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

    def tell(
        self, text: str, *, title: str = "", severity: SeverityLevel = "information", timeout: float | None = None
    ) -> None:
        """Notify with plain text: engine messages and paths may contain ``[`` that is not markup."""
        self.notify(text, title=title, severity=severity, timeout=timeout, markup=False)

    # -- what the follower reports -------------------------------------------------------------------------

    def _label(self, key: str) -> str:
        follower = self.tracker.follower(key)
        return session_label(follower.source) if follower else key

    def on_sessions_discovered(self, message: SessionsDiscovered) -> None:
        self.session_list.problems = message.problems

    def on_session_updated(self, message: SessionUpdated) -> None:
        snapshot = message.snapshot
        self.snapshots[snapshot.key] = snapshot
        self._read_errors.pop(snapshot.key, None)
        self.session_list.snapshots = tuple(self.snapshots.values())
        for screen in self.screen_stack:
            if isinstance(screen, SessionScreen) and screen.key == snapshot.key:
                screen.snapshot = snapshot
        self.refresh_bindings()

    def on_sessions_loaded(self, message: SessionsLoaded) -> None:
        self.sessions_loaded = True
        self.session_list.loaded = True

    def on_session_read_failed(self, message: SessionReadFailed) -> None:
        if self._read_errors.get(message.key) != message.error:  # say it once, not on every change
            self._read_errors[message.key] = message.error
            self.tell(message.error, title=f"Can't read {self._label(message.key)}", severity="error")

    def on_compaction_detected(self, message: CompactionDetected) -> None:
        snapshot = message.snapshot
        after = "size unknown until the agent's next reply" if snapshot.tokens.tokens is None else (
            f"now {snapshot.tokens.tokens:,} tokens"
        )
        self.tell(
            f"{self._label(snapshot.key)}: compaction {message.previous_count} → {snapshot.compactions}; {after}.",
            title="Compaction detected",
            severity="warning",
        )

    def on_threshold_crossed(self, message: ThresholdCrossed) -> None:
        snapshot = message.snapshot
        util = snapshot.utilization
        figure = f" ({util:.0%})" if util is not None else ""
        severity: SeverityLevel = "error" if message.level in ("near-compaction", "over-compaction") else "warning"
        self.tell(f"{self._label(snapshot.key)}: {LEVEL_TEXT[message.level]}{figure}.",
                  title="Threshold crossed", severity=severity)

    def on_control_finished(self, message: ControlFinished) -> None:
        self.tell(message.summary, title=self.controls.spec(message.action).title)
        for screen in self.screen_stack:
            if isinstance(screen, SessionScreen) and screen.key == message.key and screen.snapshot is not None:
                screen.load_history(screen.snapshot)

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
            )
        )

    def action_help(self) -> None:
        """Show the keys of the current screen and the gauge legend."""
        keys = [
            KeyHelp(self.get_key_display(active.binding), active.binding.tooltip or active.binding.description,
                    self.unavailable(active.binding.action) if active.binding.action in _CONTROL_ACTIONS else None)
            for active in self.screen.active_bindings.values()
            if active.binding.show and active.binding.description
        ]
        keys.append(KeyHelp("ctrl+p", "Command palette: every action by name"))
        self.push_screen(HelpScreen(keys))

    # -- control actions -----------------------------------------------------------------------------------

    def current_snapshot(self, screen: Screen[object] | None = None) -> SessionSnapshot | None:
        """The session the user is looking at: the open session, or the one under the list's cursor."""
        screen = screen or self.screen
        key = screen.key if isinstance(screen, SessionScreen) else (
            screen.selected_key if isinstance(screen, SessionListScreen) else None
        )
        return self.snapshots.get(key) if key is not None else None

    def unavailable(self, action: str, screen: Screen[object] | None = None) -> str | None:
        """Why ``action`` cannot run on the current session right now, or ``None``."""
        snapshot = self.current_snapshot(screen)
        if snapshot is None:
            return "select a session first"
        if action in ("compact", "prune") and snapshot.source.kind == "archive":
            return "archived transcripts are read-only"
        return None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in _CONTROL_ACTIONS:
            return None if self.unavailable(action) else True
        return True

    def run_control(self, action: str) -> None:
        """Run a control action on the current session, or say why it cannot run."""
        spec = self.controls.spec(action)
        snapshot = self.current_snapshot()
        reason = self.unavailable(action)
        if snapshot is None or reason is not None:
            self.tell(f"{spec.title}: {reason}.", severity="warning")
            return
        runner = self.controls.runner(action)
        if runner is None:
            self.tell(self.controls.missing(action) or "", title=spec.title, severity="warning")
            return
        self.apply_control(action, snapshot, runner)

    @work(thread=True, group="controls", exit_on_error=False)
    def apply_control(self, action: str, snapshot: SessionSnapshot, runner: ControlRunner) -> None:
        """Run an engine control off the UI thread and report its one-line result."""
        self.post_message(ControlFinished(action, snapshot.key, runner(snapshot, self.config)))

    def action_force_checkpoint(self) -> None:
        """Write a checkpoint of the current session now."""
        self.run_control("force_checkpoint")

    def action_compact(self) -> None:
        """Preview and apply a compaction of the current session."""
        self.run_control("compact")

    def action_prune(self) -> None:
        """Preview and apply pruning of the current session's old tool outputs."""
        self.run_control("prune")

    def action_diff(self) -> None:
        """Show the Checkpoints tab and diff the latest checkpoint against the previous one."""
        if isinstance(self.screen, SessionScreen):
            self.screen.show_tab("checkpoints")
        self.run_control("diff")

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Help", "Keys of this screen and what the gauge markers mean", self.action_help)
        for spec in CONTROL_SPECS:
            reason = self.unavailable(spec.action, screen)
            help_text = f"{spec.help} (unavailable: {reason})" if reason else spec.help
            yield SystemCommand(spec.title, help_text, partial(self.run_control, spec.action))
        if isinstance(screen, SessionListScreen):
            yield SystemCommand("Filter sessions", "Show only sessions whose key, file or model matches",
                                screen.action_filter)
        if isinstance(screen, SessionScreen):
            yield SystemCommand("Back to sessions", "Return to the session list", self.pop_screen)
            for tab in ("overview", "context", "transcript", "checkpoints", "decisions", "audit"):
                yield SystemCommand(f"Show {tab}", f"Switch to the {tab.title()} tab", partial(screen.show_tab, tab))


def launch(paths: Sequence[Path], config: Config, *, force_polling: bool | None = None, bare: bool = False) -> int:
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
