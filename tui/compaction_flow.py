"""How ``k`` and ``p`` reach the engine: the dialog's planner, the dialog itself, applying the confirmed plan.

:class:`CompactionFlow` is the App's part that opens the dialog and applies what the user confirmed (composed into
the App, not inherited); the functions are blocking where they touch files (called from workers). Whether ``k``
may run at all is :class:`tui.controls.ControlPolicy`'s answer. Every decision is the engine's:
:func:`engine.compaction.planner.choose_controller`
refuses archives and read-only stores, :mod:`engine.fs.session_lock` says who holds the lock,
:func:`~engine.compaction.planner.plan_compaction` plans and
:func:`~engine.compaction.controllers.apply_compaction` writes.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from engine import (
    AppendError,
    AppendRefusedError,
    CompactionError,
    CompactionPlan,
    CompactionRefusedError,
    Config,
    LockError,
    LockHeldError,
    LockInfo,
    SessionFollower,
    SessionSnapshot,
    SessionTracker,
    UnsafePathError,
    apply_compaction,
    default_layer,
    plan_compaction,
    record_action,
)
from engine.compaction.planner import LAYERS
from engine.live.insight import blocking_lock, read_lock
from tui.controls import compaction_refusal
from tui.dialog_stack import push_once
from tui.dialogs.compact import DEBOUNCE_SECONDS, CompactDialog, FirstPlan, Planner, PlanRequest
from tui.messages import CompactionApplied, CompactionDetected, CompactionFailed
from tui.notices import applied_text, compaction_detected_text

if TYPE_CHECKING:
    from tui.app import CtxscopeApp as FlowHost

__all__ = ["CompactionFlow", "apply_plan", "make_planner"]


def make_planner(
    tracker: SessionTracker, key: str, config: Config, clock: Callable[[], datetime],
    targets: tuple[str, ...] | None = None,
) -> Planner:
    """The dialog's dry run for ``key``: the engine's plan on the follower's latest snapshot, under its lock
    (``targets``: prune exactly these entry ids)."""
    state_dir = tracker.state_dir(key)

    def plan(request: PlanRequest) -> CompactionPlan:
        def run(follower: SessionFollower) -> CompactionPlan:
            snapshot = follower.snapshot  # never refresh here: the sidecar must see every new entry first
            if snapshot is None:
                raise RuntimeError("the session has not been read yet")
            return plan_compaction(
                snapshot, request.layer, request.focus, keep_recent=request.keep_recent, config=config,
                load=follower.reader.read_object, state_dir=state_dir, now=clock(), token_cache=follower.token_cache,
                targets=targets,
            )

        return tracker.with_follower(key, run)

    return plan


def apply_plan(
    plan: CompactionPlan, config: Config, state_dir: Path, lock_timeout: float
) -> CompactionApplied | CompactionFailed:
    """Apply a confirmed plan with its controller (the engine audits it); the outcome as a message (blocking)."""
    try:
        # Exactly the plan the user confirmed, or nothing: the dialog re-plans live as the agent writes.
        result = apply_compaction(plan, config=config, state_dir=state_dir, lock_timeout=lock_timeout, exact=True)
    except (CompactionRefusedError, LockHeldError, AppendRefusedError) as exc:
        return CompactionFailed(plan, str(exc), refused=True)
    except (CompactionError, AppendError, LockError, OSError) as exc:
        return CompactionFailed(plan, f"{type(exc).__name__}: {exc}", refused=False)
    return CompactionApplied(result)


def _holder(lock: LockInfo | None) -> tuple[int | None, str | None] | None:
    held = blocking_lock(lock)
    return (held.pid, held.created_at) if held is not None else None


class CompactionFlow:
    """Opens the compaction dialog on ``k``/``p``, applies the plan the user confirmed in the App's workers, and says
    what came of it (a compaction someone else made, too)."""

    def __init__(self, app: FlowHost, *, lock_timeout: float, debounce: float = DEBOUNCE_SECONDS) -> None:
        self.app = app
        self.lock_timeout = lock_timeout
        """Seconds a confirmed compaction waits for a session lock that appeared after the preview."""
        self.debounce = debounce
        """Seconds the dialog waits after a change before planning again (tests set 0)."""
        self.own: set[str] = set()
        """Sessions with a compaction of ours in flight: its detection is not announced twice."""

    def open(
        self, snapshot: SessionSnapshot, fixed_layer: str | None, *, targets: tuple[str, ...] | None = None
    ) -> None:
        """Check the lock as it is now (in a worker), pick the layer the triggers call for, open the dialog
        (``targets``: a prune of exactly these entry ids)."""
        self.app.run_worker(partial(self._check_and_open, snapshot, fixed_layer, targets), thread=True,
                            group="controls", exit_on_error=False, name="open_compaction")

    def _check_and_open(self, snapshot: SessionSnapshot, fixed_layer: str | None,
                        targets: tuple[str, ...] | None = None) -> None:
        app = self.app
        action = "prune" if fixed_layer else "compact"
        lock = read_lock(snapshot.source)
        cached = app.insights.get(snapshot.key)
        if cached is not None and _holder(cached.lock) != _holder(lock):
            app.call_from_thread(app.refresh_session, snapshot.key)  # the footer and palette see it too
        reason = compaction_refusal(snapshot, action, lock, app.config, app.label(snapshot.key))
        if reason is not None:
            app.call_from_thread(app.tell, f"{app.policy.spec(action).title}: {reason}.", severity="warning")
            return
        layer = fixed_layer or default_layer(snapshot, app.config)
        planner = make_planner(app.tracker, snapshot.key, app.config, app.clock, targets)
        # The first plan is computed here, in the worker that already runs, so the dialog opens with it: planning
        # after the dialog mounted waited for a second worker and competed with the dialog's first frames.
        request = PlanRequest(layer, None, None)
        first: FirstPlan | None
        try:
            first = (request, planner(request))
        except Exception:  # noqa: BLE001 - the dialog plans again and shows the problem itself
            first = None
        app.call_from_thread(self._push, snapshot, layer, fixed_layer is not None, targets, planner, first)

    def _push(self, snapshot: SessionSnapshot, layer: str, fixed: bool, targets: tuple[str, ...] | None,
              planner: Planner, first: FirstPlan | None) -> None:
        app = self.app
        title = f"{'Prune' if fixed else 'Compact'} {app.label(snapshot.key)}"
        if targets:
            plural = "s" if len(targets) != 1 else ""
            title = f"Prune {len(targets)} chosen message{plural} of {app.label(snapshot.key)}"
        dialog = CompactDialog(title=title, layer=layer, layers=LAYERS, planner=planner, fixed_layer=fixed,
                               debounce=self.debounce, session_key=snapshot.key, first_plan=first,
                               targeted=bool(targets))
        push_once(app, dialog, partial(self._closed, dialog))

    def _closed(self, dialog: CompactDialog, confirmed: bool | None) -> None:
        """Every close says what came of it: applied (said when written), refused, or cancelled — and a cancel is
        audited like any other outcome of the user's decision."""
        if confirmed and dialog.plan is not None:
            plan = dialog.plan
            self.own.add(plan.session_key)
            self.app.run_worker(partial(self._apply, plan), thread=True, group="compaction", exit_on_error=False,
                                name="apply_compaction_plan")
            return
        key = dialog.session_key
        verb = dialog.verb
        label = self.app.label(key) if key else "the session"
        self.app.tell(f"{label}: the {verb.lower()} dialog was closed without confirming.",
                      title=f"{verb} cancelled — nothing written", timeout=6)
        if key is not None:
            self.app.run_worker(partial(self._audit_cancel, key, dialog.chosen_layer, dialog.plan), thread=True,
                                group="compaction", exit_on_error=False, name="audit_cancel")

    def _audit_cancel(self, key: str, layer: str, plan: CompactionPlan | None) -> None:
        """Record the cancel in the audit log (blocking: a worker)."""
        try:
            state_dir = self.app.tracker.state_dir(key)
            record_action(state_dir, "prune" if layer == "prune" else "compact", key, params={"layer": layer},
                          plan={"leaf_id": plan.leaf_id} if plan is not None else {}, result="cancelled",
                          now=self.app.clock())
        except (OSError, UnsafePathError, KeyError) as exc:
            self.app.call_from_thread(self.app.tell, f"the cancel could not be audited: {exc}", severity="warning")

    def _apply(self, plan: CompactionPlan) -> None:
        """Apply a confirmed plan with its controller (audited by the engine) and report the outcome."""
        state_dir = self.app.tracker.state_dir(plan.session_key)
        self.app.post_message(apply_plan(plan, self.app.config, state_dir, self.lock_timeout))

    def applied(self, message: CompactionApplied) -> None:
        """Ours was written: say what it wrote and read the session again."""
        app = self.app
        title = "Pruned" if message.result.plan.layer == "prune" else "Compacted"
        app.tell(applied_text(message.result, app.label), title=title, timeout=10)
        app.refresh_session(message.key, reassess=True)
        app.reload_history(message.key)

    def failed(self, message: CompactionFailed) -> None:
        """Ours was refused or failed: nothing (refused) or nothing complete (failed) was written."""
        app = self.app
        self.own.discard(message.key)
        verb = "Pruning" if message.plan.layer == "prune" else "Compaction"
        app.tell(message.error, title=f"{verb} refused: nothing written" if message.refused else f"{verb} failed",
                 severity="warning" if message.refused else "error", timeout=10)
        app.reload_history(message.key)

    def session_moved(self, key: str) -> None:
        """The agent wrote to ``key``: an open dialog for it plans again."""
        for screen in self.app.screen_stack:
            if isinstance(screen, CompactDialog) and screen.session_key == key:
                screen.session_moved()

    def detected(self, message: CompactionDetected) -> None:
        """The session was compacted since its last snapshot: announced unless it is ours (already said)."""
        snapshot = message.snapshot
        if snapshot.key in self.own:
            self.own.discard(snapshot.key)
            return
        self.app.tell(compaction_detected_text(snapshot, message.previous_count, self.app.label),
                      title="Compaction detected", severity="warning")
