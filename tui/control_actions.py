"""The App's control keys — ``c`` checkpoint, ``k`` compact, ``p`` prune, ``d`` diff — and the command palette.

:class:`ControlActions` is the base of :class:`~tui.app.CtxscopeApp`: it decides whether an action can run on
the session the user is looking at (and says why not, on the key press, in the footer, help and palette), runs
engine controls in workers, and drives the compaction dialog (:mod:`tui.compaction_flow` holds the engine glue).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from functools import partial

from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.screen import ModalScreen, Screen

from engine.compaction.plan import CompactionPlan
from engine.compaction.planner import LAYERS, select_compaction_layer, tool_output_tokens
from engine.config.loader import Config
from engine.fs.session_lock import LockInfo
from engine.live.insight import SessionInsight, blocking_lock, read_lock
from engine.live.tracker import SessionTracker
from engine.session.snapshot import SessionSnapshot
from tui import follow
from tui.commands import NEEDS_LLM
from tui.compaction_flow import apply_plan, compaction_refusal, make_planner
from tui.controls import CONTROL_SPECS, ControlRunner, Controls
from tui.dialogs.compact import DEBOUNCE_SECONDS, CompactDialog
from tui.messages import ControlFinished
from tui.screens.help import HelpScreen, KeyHelp
from tui.screens.session_list import SessionListScreen
from tui.screens.session_view import TABS, SessionScreen
from tui.widgets.labels import session_label

__all__ = ["CONTROL_ACTIONS", "ControlActions"]

CONTROL_ACTIONS = frozenset(spec.action for spec in CONTROL_SPECS)


def _holder(lock: LockInfo | None) -> tuple[int | None, str | None] | None:
    held = blocking_lock(lock)
    return (held.pid, held.created_at) if held is not None else None


class ControlActions(App[None]):
    """Availability, palette and workers of the control actions; the App sets the attributes below."""

    compaction_debounce = DEBOUNCE_SECONDS
    """Seconds the compaction dialog waits after a change before planning again (tests set 0)."""

    config: Config
    clock: Callable[[], datetime]
    tracker: SessionTracker
    controls: Controls
    snapshots: dict[str, SessionSnapshot]
    insights: dict[str, SessionInsight]
    lock_timeout: float
    own_compactions: set[str]
    """Sessions with a compaction of ours in flight: its detection is not announced twice."""

    def tell(
        self, text: str, *, title: str = "", severity: SeverityLevel = "information", timeout: float | None = None
    ) -> None:
        """Notify with plain text: engine messages and paths may contain ``[`` that is not markup."""
        self.notify(text, title=title, severity=severity, timeout=timeout, markup=False)

    def label(self, key: str) -> str:
        """The short name of session ``key`` (its key, or its file name when the key is a path)."""
        follower = self.tracker.follower(key)
        return session_label(follower.source) if follower else key

    @work(group="refresh", exit_on_error=False)
    async def refresh_session(self, key: str, *, reassess: bool = False) -> None:
        """Step one session now (after our own write) instead of waiting for the watcher."""
        await follow.refresh_session(self.tracker, key, self.post_message, reassess=reassess)

    def action_help(self) -> None:
        """Show the keys of the current screen and the gauge legend."""
        keys = [
            KeyHelp(self.get_key_display(active.binding), active.binding.tooltip or active.binding.description,
                    self.unavailable(active.binding.action) if active.binding.action in CONTROL_ACTIONS else None)
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
        if action == "enriched_checkpoint" and self.config.llm is None:
            return f"it {NEEDS_LLM}"
        if action in ("compact", "prune"):
            insight = self.insights.get(snapshot.key)  # the lock as of the last refresh; rechecked on the key press
            lock = insight.lock if insight else None
            return compaction_refusal(snapshot, action, lock, self.config, self.label(snapshot.key))
        return None

    _shown_controls: tuple[tuple[str, bool], ...] | None = None

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
        if action in ("compact", "prune") and snapshot is not None and compaction_refusal(
                snapshot, action, None, self.config, self.label(snapshot.key)) is None:
            # Only the lock as last seen stands in the way, and its holder may have exited since: look again.
            self.open_compaction(snapshot, "prune" if action == "prune" else None)
            return
        self.tell(f"{self.controls.spec(action).title}: {reason}.", severity="warning")

    def run_control(self, action: str) -> None:
        """Run a control action on the current session, or say why it cannot run."""
        spec = self.controls.spec(action)
        snapshot = self.current_snapshot()
        reason = self.unavailable(action)
        if snapshot is None or reason is not None:
            self.tell(f"{spec.title}: {reason}.", severity="warning")
            return
        if action in ("compact", "prune") and self.controls.has_module(action):
            self.open_compaction(snapshot, "prune" if action == "prune" else None)
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

    def _write_checkpoint(self, snapshot: SessionSnapshot, config: Config, *, enrich: bool = False) -> str:
        """The runner of ``c`` (and of ``C`` with ``enrich``: the configured LLM's decisions merged in)."""
        event = self.tracker.write_checkpoint(snapshot.key, "manual", enrich=config.llm if enrich else None)
        if event.kind != "checkpoint":
            raise RuntimeError(event.message)
        return event.message

    # -- compaction ----------------------------------------------------------------------------------------

    @work(thread=True, group="controls", exit_on_error=False)
    def open_compaction(self, snapshot: SessionSnapshot, fixed_layer: str | None) -> None:
        """Check the lock as it is now, pick the layer the triggers call for, and open the dialog."""
        action = "prune" if fixed_layer else "compact"
        lock = read_lock(snapshot.source)
        cached = self.insights.get(snapshot.key)
        if cached is not None and _holder(cached.lock) != _holder(lock):
            self.call_from_thread(self.refresh_session, snapshot.key)  # the footer and palette see it too
        reason = compaction_refusal(snapshot, action, lock, self.config, self.label(snapshot.key))
        if reason is not None:
            self.call_from_thread(self.tell, f"{self.controls.spec(action).title}: {reason}.", severity="warning")
            return
        layer = fixed_layer or select_compaction_layer(
            snapshot.utilization, tool_output_tokens(snapshot), self.config) or "summarize"
        self.call_from_thread(self._push_compaction, snapshot, layer, fixed_layer is not None)

    def _push_compaction(self, snapshot: SessionSnapshot, layer: str, fixed: bool) -> None:
        title = f"{'Prune' if fixed else 'Compact'} {self.label(snapshot.key)}"
        planner = make_planner(self.tracker, snapshot.key, self.config, self.clock)
        dialog = CompactDialog(title=title, layer=layer, layers=LAYERS, planner=planner, fixed_layer=fixed,
                               debounce=self.compaction_debounce)
        self.push_screen(dialog, partial(self._compaction_closed, dialog))

    def _compaction_closed(self, dialog: CompactDialog, confirmed: bool | None) -> None:
        if confirmed and dialog.plan is not None:
            self.own_compactions.add(dialog.plan.session_key)
            self.apply_compaction_plan(dialog.plan)

    @work(thread=True, group="compaction", exit_on_error=False)
    def apply_compaction_plan(self, plan: CompactionPlan) -> None:
        """Apply a confirmed plan with its controller (audited by the engine) and report the outcome."""
        state_dir = self.tracker.state_dir(plan.session_key)
        self.post_message(apply_plan(plan, self.config, state_dir, self.lock_timeout))

    # -- the actions --------- -----------------------------------------------------------------------------

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

    def action_diff(self) -> None:
        """Show the Checkpoints tab and diff the latest checkpoint against the previous one."""
        if isinstance(self.screen, SessionScreen):
            self.screen.show_latest_diff()
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
            for tab in TABS:
                yield SystemCommand(f"Show {tab}", f"Switch to the {tab.title()} tab", partial(screen.show_tab, tab))
