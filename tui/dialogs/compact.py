"""The compaction dialog: choose a layer and a focus, watch the engine's dry-run plan, edit the summary, then
confirm or cancel.

The plan is recomputed in a worker whenever the layer (at once), the focus or the protected budget (debounced:
typed) changes;
the dialog only renders it. The first plan may come with the dialog (``first_plan``, computed by the worker that
opens it), so the dialog's first frame shows it. The summary is shown in an editable text area: an edit
(debounced too) becomes the engine's plan with that text
(:func:`engine.compaction.summary_edit.with_edited_summary`: redacted, tokens counted again, refusals recomputed),
and applying it audits the edit. Changing the layer, focus or budget plans
afresh and replaces an edited text. Confirming is possible only for the plan on screen, when nothing blocks it,
and — at high or critical degradation — after ticking the explicit confirmation (docs/compaction.md). The dialog
returns ``True`` when the user confirmed; :attr:`CompactDialog.plan` is then the plan to apply.

The primary button is never disabled: Textual moves the focus off a widget that becomes disabled, and every agent
write re-plans, so the focus used to land on Cancel and the next Enter cancelled. Confirming (Enter on the button,
or :data:`CONFIRM_KEY` anywhere) either closes with the plan on screen or keeps the dialog open and says why not.
A re-plan caused by the agent's write leaves the plan on screen confirmable: applying it is exact (the engine keeps
that cut and summary when the agent only appended, and refuses otherwise).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Button, Checkbox, Input, Label, RadioSet, Static, TextArea
from textual.worker import get_current_worker

from engine import CompactionPlan, with_edited_summary
from tui.breakpoints import preset_breakpoints
from tui.dialogs.notice_keys import NOTICE_KEYS
from tui.shown import shown
from tui.textual_compat import bind_key
from tui.widgets.footer import KeyFooter
from tui.widgets.notice_line import NoticeLine
from tui.widgets.plan_preview import (
    LAYER_HELP,
    plan_blocked,
    plan_dropped,
    plan_figures,
    plan_warning_count,
    plan_warnings,
)
from tui.widgets.summary_editor import SummaryEditor
from tui.widgets.toggles import StateCheckbox, StateRadioButton

__all__ = ["CONFIRM_KEY", "DEBOUNCE_SECONDS", "RISK_KEY", "CompactDialog", "FirstPlan", "PlanRequest", "Planner"]

CONFIRM_KEY = "ctrl+s"
"""Confirms from any field of the dialog (Enter does so only on the primary button: it types in the editor)."""

RISK_KEY = "ctrl+t"
"""Ticks (or unticks) the explicit confirmation a high or critical degradation risk asks for, from any field: the
box sat two shift+tabs away from the focused button, so a keyboard user's confirm stayed refused."""

DEBOUNCE_SECONDS = 0.15
"""Typing pauses this long before the plan is recomputed."""


@dataclass(frozen=True, slots=True)
class PlanRequest:
    """What the user chose in the dialog."""

    layer: str
    focus: str | None
    keep_recent: int | None
    """Protected budget in tokens overriding the layer's, or ``None`` for the layer's own."""


Planner = Callable[[PlanRequest], CompactionPlan]
"""Computes the dry-run plan for a request (blocking: the dialog calls it from a worker thread)."""

FirstPlan = tuple[PlanRequest, CompactionPlan]
"""A plan computed before the dialog opened, with the request it answers."""


class CompactDialog(ModalScreen[bool]):
    """Layer, focus and budget in; the live plan out; confirm applies it, escape cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding(RISK_KEY, "tick_risk", "Tick risk", key_display="^t", priority=True),
        *NOTICE_KEYS,
    ]
    AUTO_FOCUS = "#apply"
    """The primary action has the focus from the start, and keeps it: Enter confirms, arrows and Tab move on."""

    def __init__(
        self,
        *,
        title: str,
        layer: str,
        layers: Sequence[str],
        planner: Planner,
        fixed_layer: bool = False,
        debounce: float = DEBOUNCE_SECONDS,
        session_key: str | None = None,
        first_plan: FirstPlan | None = None,
        targeted: bool = False,
    ) -> None:
        super().__init__(id="compact-dialog")
        preset_breakpoints(self)
        self.session_key = session_key
        """The session planned for: the App calls :meth:`session_moved` when it changes."""
        self._title = title
        self._layers = tuple(layers)
        self._planner = planner
        self._fixed = fixed_layer
        self._debounce = debounce
        self._timer: Timer | None = None
        self._pending: PlanRequest | None = None
        self.chosen_layer = layer
        self.plan: CompactionPlan | None = None
        """The plan on screen (with the edited summary, if edited); once the dialog returns ``True``, the plan the
        user confirmed."""
        self.base_plan: CompactionPlan | None = None
        """The engine's plan for the current choices, before any edit of its summary."""
        self._edit_timer: Timer | None = None
        self._editing = False
        """An edit of the summary waits for its debounce: the plan on screen does not show it yet."""
        self.problem: str | None = None
        """Why no plan could be computed for the current choices, if so."""
        self._shown_before_move: CompactionPlan | None = None
        """The plan on screen when the agent last wrote (compared with the plan computed after it)."""
        self.plan_changed = False
        """The agent wrote while the dialog was open and the plan came out different: the user should look again."""
        self._first_plan = first_plan
        self._targeted = targeted
        """A prune of chosen messages: the cut follows the last of them, no protected budget applies."""
        self._computing: PlanRequest | None = None
        """The choices a plan is being computed for (``None`` when none is)."""
        self._moved_meanwhile = False
        """The agent wrote while that plan was computed: plan once more when it arrives."""
        self._shown_request: PlanRequest | None = None
        """The choices the plan on screen answers (a re-plan after the agent wrote keeps it confirmable)."""
        self._compactions_at_open: int | None = None
        """The session's compaction count in the first plan shown: a higher one later means the agent compacted
        the session itself while the dialog was open."""
        bind_key(self, CONFIRM_KEY, "confirm", self.verb, key_display="^s", priority=True)

    @property
    def verb(self) -> str:
        """The primary action's word, on its button, its key in the footer and the title: the prune layer writes no
        summary, so choosing it in the compact dialog makes it a prune dialog."""
        return "Prune" if self._fixed or self.chosen_layer == "prune" else "Compact"

    # -- layout --------------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Vertical(id="compact-box") as box:
            box.border_title = shown(self._titled())
            if self._fixed:
                yield Static(Content.assemble(("layer ", "$text-muted"), (self.chosen_layer, "bold")), id="layer-fixed")
            else:
                with RadioSet(id="layer", compact=True):
                    for name in self._layers:
                        yield StateRadioButton(name, value=name == self.chosen_layer, name=name)
            yield Static(self._layer_help(), id="layer-help")
            with Horizontal(id="compact-inputs"):
                # A prune writes no summary, so it has no focus; a prune of chosen messages cuts right after the
                # last of them, so no protected budget applies either (the planner ignores both).
                yield Label("focus", classes="input-label", id="focus-label")
                yield Input(placeholder="what the summary must keep (optional)", id="focus", compact=True)
                yield Label("keep recent", classes="input-label", id="keep-recent-label")
                yield Input(placeholder="layer default", id="keep-recent", type="integer", compact=True)
            with Horizontal(id="compact-body"):
                with VerticalScroll(id="plan-preview") as preview:
                    preview.border_title = "Dry run"
                    yield Static(id="plan-blocked")
                    yield Static(id="plan-warned")  # shown at 80 columns only, where the warnings are below the fold
                    yield Static(id="plan-figures")
                    yield Static(id="plan-notes")
                    yield Static(id="plan-dropped")
                with Vertical(id="plan-summary") as summary:
                    summary.border_title = Content(self._text_title)
                    yield SummaryEditor(id="summary-text", soft_wrap=True, compact=True, read_only=True,
                                        highlight_cursor_line=False, placeholder="(no plan yet)")
            yield StateCheckbox("", id="confirm-risk", compact=True)
            with Horizontal(id="compact-buttons"):
                yield Static(id="plan-status")
                yield Static(self._keys_hint(), id="dialog-keys")
                yield Button("Cancel", id="cancel", compact=True)
                yield Button(Content(self.verb), id="apply", variant="error", compact=True)
        yield NoticeLine()
        yield KeyFooter(compact=True)

    @property
    def _text_title(self) -> str:
        """What the editable text is: a prune rewrites the span with outputs shortened; it summarizes nothing."""
        return "Pruned span" if self.verb == "Prune" else "Summary"

    def _titled(self) -> str:
        """The title with the verb of the chosen layer (the flow names the dialog for the layer it opened with)."""
        for word in ("Compact ", "Prune "):
            if self._title.startswith(word):
                return f"{self.verb} {self._title[len(word):]}"
        return self._title

    def _keys_hint(self) -> Content:
        return Content.styled(f"^s {self.verb.lower()} · esc cancel", "$text-muted")

    def _relabel(self) -> None:
        """Say the chosen layer's verb everywhere the dialog names its action."""
        self.query_one("#compact-box", Vertical).border_title = shown(self._titled())
        self.query_one("#apply", Button).label = Content(self.verb)
        self.query_one("#dialog-keys", Static).update(self._keys_hint())
        self.query_one("#plan-summary", Vertical).border_title = Content(self._text_title)
        bind_key(self, CONFIRM_KEY, "confirm", self.verb, key_display="^s", priority=True)
        self.refresh_bindings()
        for selector in ("#focus-label", "#focus"):  # a prune writes no summary: nothing for a focus to steer
            self.query_one(selector).display = self.verb != "Prune"

    def on_mount(self) -> None:
        self.query_one("#confirm-risk", Checkbox).display = False
        if self.verb == "Prune":
            for selector in ("#focus-label", "#focus"):
                self.query_one(selector).display = False
        if self._targeted:
            for selector in ("#keep-recent-label", "#keep-recent", "#compact-inputs"):
                self.query_one(selector).display = False
        first, self._first_plan = self._first_plan, None
        if first is not None and first[0] == self.request():
            self._pending = first[0]
            self._show_plan(*first)  # shown in the first frame; a change of the choices plans afresh
        else:
            self._plan_now()

    def _layer_help(self) -> Content:
        return Content.styled(LAYER_HELP.get(self.chosen_layer, ""), "$text-muted")

    # -- the request -------------------------------------------------------------------------------------

    def request(self) -> PlanRequest | None:
        """The current choices, or ``None`` while the budget field holds no valid number."""
        focus = self.query_one("#focus", Input).value.strip() or None
        raw = self.query_one("#keep-recent", Input).value.strip()
        keep: int | None = None
        if raw:
            try:
                keep = int(raw)
            except ValueError:
                return None
            if keep < 0:
                return None
        return PlanRequest(self.chosen_layer, focus, keep)

    @on(RadioSet.Changed, "#layer")
    def _layer_changed(self, event: RadioSet.Changed) -> None:
        self.chosen_layer = event.pressed.name or str(event.pressed.label)
        self.query_one("#layer-help", Static).update(self._layer_help())
        self._relabel()
        self._schedule(wait=False)  # a choice, not typing: nothing to wait for

    @on(Input.Changed, "#focus, #keep-recent")
    def _input_changed(self) -> None:
        self._schedule()

    def session_moved(self) -> None:
        """The agent wrote to the session: plan again (debounced) and say so if the plan is not the same.

        A plan being computed is not cancelled for it (it is for the same choices): the next plan starts when it
        arrives. Cancelling let an agent that writes faster than a plan takes starve the dialog ("computing the
        plan…" for as long as it wrote).
        """
        if self._shown_before_move is None:
            self._shown_before_move = self.plan
        if self._computing is not None and self._computing == self.request():
            self._moved_meanwhile = True
            return
        self._schedule()

    @on(Checkbox.Changed, "#confirm-risk")
    def _confirmation_changed(self) -> None:
        self._update_apply()

    def _risk_box(self) -> Checkbox | None:
        """The risk confirmation while it is asked for; ``None`` otherwise, also while the dialog is composed or
        taken down (the footer checks the binding then too, and a missing box ended the app)."""
        boxes = self.query("#confirm-risk").results(Checkbox)
        box = next(boxes, None)
        return box if box is not None and box.display else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "tick_risk":  # shown in the footer only while the plan asks for the confirmation
            return self._risk_box() is not None
        return True

    def action_tick_risk(self) -> None:
        """Tick or untick the explicit confirmation of a risky compaction (it never confirms by itself)."""
        box = self._risk_box()
        if box is not None:
            box.value = not box.value

    # -- editing the summary -----------------------------------------------------------------------------

    @on(TextArea.Changed, "#summary-text")
    def _summary_changed(self) -> None:
        if self.base_plan is None or self.plan is None:
            return
        if self.query_one("#summary-text", TextArea).text == self.plan.summary:
            return  # the text the plan on screen already has (a plan just loaded, or an undo)
        self._editing = True
        self._update_apply()
        self._set_status(Content.styled("counting the edited summary…", "$text-muted"))
        self._stop_edit_timer()
        if self._debounce > 0:
            self._edit_timer = self.set_timer(self._debounce, self._apply_edit)
        else:
            self.call_later(self._apply_edit)

    def _stop_edit_timer(self) -> None:
        if self._edit_timer is not None:
            self._edit_timer.stop()
            self._edit_timer = None
        self._editing = False

    def _apply_edit(self) -> None:
        """The engine's plan with the text as edited: tokens, refusals and cost computed again."""
        self._edit_timer = None
        self._editing = False
        if self.base_plan is None:
            return
        self._render_plan(with_edited_summary(self.base_plan, self.query_one("#summary-text", TextArea).text))

    def _schedule(self, *, wait: bool = True) -> None:
        """Recompute once the user pauses (each change restarts the wait), or at once without ``wait``."""
        self._pending = None
        self._stop_edit_timer()
        self.query_one("#summary-text", TextArea).read_only = True
        self._update_apply()
        self._set_status(Content.styled("computing the plan…", "$text-muted"))
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self._debounce > 0 and wait:
            self._timer = self.set_timer(self._debounce, self._plan_now)
        else:
            self.call_later(self._plan_now)

    def _plan_now(self) -> None:
        request = self.request()
        self._pending = request
        if request is None:
            self._set_status(Content.styled("keep recent: a whole number of tokens, 0 or more", "$text-error"))
            self._update_apply()
            return
        self._set_status(Content.styled("computing the plan…", "$text-muted"))
        self._computing = request
        self.compute_plan(request)

    @work(thread=True, exclusive=True, group="compaction_preview", exit_on_error=False)
    def compute_plan(self, request: PlanRequest) -> None:
        """Run the engine's dry run for ``request`` off the UI thread."""
        try:
            plan = self._planner(request)
        except Exception as exc:  # noqa: BLE001 - shown in the dialog; the user can change the choices
            if not get_current_worker().is_cancelled:
                self.app.call_from_thread(self._show_problem, request, f"{type(exc).__name__}: {exc}")
            return
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show_plan, request, plan)

    # -- the preview -------------------------------------------------------------------------------------

    def _computed(self, request: PlanRequest) -> None:
        """A plan (or its problem) for ``request`` arrived: a write of the agent meanwhile plans once more."""
        if request == self._computing:
            self._computing = None
            if self._moved_meanwhile:
                self._moved_meanwhile = False
                self._schedule(wait=False)

    def _show_problem(self, request: PlanRequest, problem: str) -> None:
        self._computed(request)
        if request != self._pending:
            return
        self.plan, self.problem = None, problem
        self.query_one("#plan-blocked", Static).update(shown(f"Could not plan: {problem}", "$text-error"))
        self.query_one("#plan-blocked", Static).display = True
        self._set_status(Content.styled("no plan", "$text-error"))
        self._update_apply()

    def _show_plan(self, request: PlanRequest, plan: CompactionPlan) -> None:
        if request != self._pending:
            self._computed(request)
            return  # the user changed something meanwhile: a newer plan is on its way
        before, self._shown_before_move = self._shown_before_move, None
        self._shown_request = request
        if before is not None and _figures(before) != _figures(plan):
            self.plan_changed = True
        area = self.query_one("#summary-text", TextArea)
        edited = self.base_plan is not None and area.text != self.base_plan.summary  # applied or still pending
        self.base_plan, self.problem = plan, None
        self._stop_edit_timer()
        area.read_only = False
        if before is not None and edited:
            self._render_plan(with_edited_summary(plan, area.text))  # the user's edit survives the agent's turn
            self._computed(request)
            return
        if area.text != plan.summary:
            area.load_text(plan.summary)
        self._render_plan(plan)
        self._computed(request)

    def _render_plan(self, plan: CompactionPlan) -> None:
        self.plan = plan
        if self._compactions_at_open is None:
            self._compactions_at_open = _compactions(plan)
        blocked = self.query_one("#plan-blocked", Static)
        blocked.update(plan_blocked(plan))
        blocked.display = bool(plan.blocked)
        warned = self.query_one("#plan-warned", Static)
        warned.update(plan_warning_count(plan))
        warned.set_class(not plan.warnings, "-none")
        self.query_one("#plan-figures", Static).update(plan_figures(plan))
        self.query_one("#plan-notes", Static).update(plan_warnings(plan))
        self.query_one("#plan-dropped", Static).update(plan_dropped(plan))
        state = "edited" if plan.summary_edited else "editable"
        self.query_one("#plan-summary", Vertical).border_title = shown(
            f"{self._text_title} · {plan.summary_tokens:,} tokens · {state}")
        confirm = self.query_one("#confirm-risk", Checkbox)
        needs = plan.needs_confirmation and plan.applicable
        if needs and plan.guard is not None:
            confirm.label = shown(f"{self.verb} anyway: {plan.guard.reason}")
        confirm.display = needs
        self.refresh_bindings()
        self._update_apply()

    def agent_compacted(self) -> bool:
        """The agent compacted the session itself since the dialog opened (its own compaction, not ours)."""
        counted = _compactions(self.plan) if self.plan is not None else None
        opened = self._compactions_at_open
        return counted is not None and opened is not None and counted > opened

    def _plan_status(self, plan: CompactionPlan) -> Content:
        if plan.blocked and self.agent_compacted():
            return Content.styled("blocked: the agent compacted the session itself meanwhile — nothing will be written",
                                  "bold $text-error")
        if plan.blocked:
            return Content.styled("blocked: nothing will be written", "bold $text-error")
        if plan.needs_confirmation and not self.query_one("#confirm-risk", Checkbox).value:
            return Content.styled(f"tick the confirmation (^t) to {self.verb.lower()}", "$text-warning")
        edited = " · summary edited" if plan.summary_edited else ""
        ready = Content.styled(f"ready · {plan.layer} via {plan.controller}{edited}", "$text-success")
        if self.plan_changed:
            return Content.assemble(Content.styled("plan changed — review · ", "bold $text-warning"), ready)
        return ready

    def _set_status(self, text: Content) -> None:
        self.query_one("#plan-status", Static).update(text)

    @property
    def confirmable(self) -> bool:
        """Whether the plan on screen answers the current choices, applies, and is confirmed where the guard asks."""
        return self.not_confirmable() is None

    def not_confirmable(self) -> str | None:
        """Why confirming now would not apply the plan on screen, or ``None`` when it would."""
        plan = self.plan
        if plan is None:
            return f"no plan: {self.problem}" if self.problem else "no plan yet: wait for the dry run"
        if self._shown_request is None or self._shown_request != self.request():
            return "the plan for the changed choices is still being computed: review it, then confirm"
        if self._editing:
            return "the edited summary is still being counted"
        if not plan.applicable:
            meanwhile = "the agent compacted the session itself while this dialog was open; " if (
                self.agent_compacted()) else ""
            return f"blocked: {meanwhile}" + "; ".join(plan.blocked) if plan.blocked else "this plan cannot be applied"
        if plan.needs_confirmation and not self.query_one("#confirm-risk", Checkbox).value:
            return f"tick \"{self.verb} anyway\" first (^t): the risk needs an explicit confirmation"
        return None

    def _update_apply(self) -> None:
        """The primary button looks ready only for a confirmable plan (never disabled: it keeps the focus); the
        status line says what is missing."""
        self.query_one("#apply", Button).set_class(not self.confirmable, "-not-ready")
        current = self._pending is not None and self._pending == self.request()
        if self.plan is not None and current and self.problem is None:
            self._set_status(self._plan_status(self.plan))

    # -- closing -----------------------------------------------------------------------------------------

    @on(Button.Pressed, "#apply")
    def action_confirm(self) -> None:
        """Apply the plan on screen, or stay open and say why it cannot be applied yet."""
        if self._editing:
            self._stop_edit_timer()
            self._apply_edit()  # the text the user sees is the summary they confirm
        reason = self.not_confirmable()
        if reason is None:
            self.dismiss(True)
            return
        self.app.bell()
        done = "pruned" if self.verb == "Prune" else "compacted"
        self._set_status(Content.styled(f"not {done}: {reason}", "bold $text-warning"))

    @on(Button.Pressed, "#cancel")
    def _cancel_pressed(self) -> None:
        self.dismiss(False)

    def action_cancel(self) -> None:
        """Close without compacting."""
        self.dismiss(False)


def _compactions(plan: CompactionPlan) -> int | None:
    return plan.degradation.report.compaction_count if plan.degradation is not None else None


def _figures(plan: CompactionPlan) -> tuple[object, ...]:
    """What the user decides on: where the cut is, what it drops, and the sizes before and after."""
    return (plan.leaf_id, plan.first_kept_entry_id, plan.context_tokens_before, plan.context_tokens_after,
            plan.blocked, tuple(d.entry_id for d in plan.dropped))
