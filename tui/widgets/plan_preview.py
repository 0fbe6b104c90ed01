"""How a :class:`~engine.compaction.plan.CompactionPlan` reads in the compaction dialog: figures, notes, dropped.

Everything shown is a field of the plan the engine computed (docs/compaction.md); nothing here estimates or counts.
"""

from __future__ import annotations

from textual.content import Content

from engine import CompactionPlan
from tui.shown import shown
from tui.widgets.labels import money, shorten

__all__ = ["LAYER_HELP", "plan_blocked", "plan_dropped", "plan_figures", "plan_warning_count", "plan_warnings"]

LAYER_HELP: dict[str, str] = {
    "prune": "old tool outputs cleared or trimmed; user and assistant text kept",
    "summarize": "a structured summary in the agent's format: the earlier summary's items kept whole, and the "
                 "decisions, open items and files of the messages it replaces added",
    "full": "the same summary, keeping fewer recent tokens verbatim",
    "drop-only": "a one-line placeholder; the dropped messages are archived verbatim to memory/",
}
"""What each layer does (docs/compaction.md, Layers), one line for the dialog."""

_LABEL_WIDTH = 8


def _row(label: str, *value: str | tuple[str, str] | Content) -> Content:
    # Paths, entry ids and the controller's words come from the session and its config: shown, never parsed.
    parts = [shown(v) if isinstance(v, str) else shown(*v) if isinstance(v, tuple) else v for v in value]
    return Content.assemble((f"{label:<{_LABEL_WIDTH}} ", "$text-muted"), *parts)


def _tokens_line(plan: CompactionPlan) -> Content:
    before, after = plan.context_tokens_before, plan.context_tokens_after
    saved = before - after
    share = f", {saved / before:.0%}" if before and saved > 0 else ""
    if saved > 0:
        delta = (f"  (−{saved:,}{share})", "$text-success")
    else:
        delta = ("  (saves nothing)", "$text-warning") if saved == 0 else (f"  (+{-saved:,}: grows)", "$text-error")
    return _row("tokens", (f"{before:,} → {after:,}", "bold"), delta)


def plan_figures(plan: CompactionPlan) -> Content:
    """Tokens before → after, messages summarized/kept, the cost of the rewrite, then the summary, the cut, files
    and archive: the first four lines are what must show without scrolling at 80×24."""
    extra = (f" + checkpoint {plan.checkpoint_tokens:,}" if plan.checkpoint_tokens else "") + (
        f" · prompt {plan.overhead_tokens:,}" if plan.overhead_tokens else "")
    rows = [
        _tokens_line(plan),
        _row("messages", f"{plan.messages_summarized:,} out ({plan.tokens_summarized:,} tokens) · "
             f"{plan.messages_kept:,} kept ({plan.tokens_kept:,})"),
    ]
    cost = plan.cost
    if cost is None or cost.cache_write_cost_usd is None:
        saved = f"saves {cost.tokens_saved_per_turn:,} tokens/turn, " if cost is not None else ""
        rows.append(_row("cost", f"{saved}price unknown for this model"))
    else:
        rows.append(_row("cost", f"write {money(cost.cache_write_cost_usd)} · saves "
                         f"{money(cost.saved_per_turn_usd)}/turn"))
        rows.append(_row("payback", cost.payback()))
    rows += [
        _row("summary", f"{plan.summary_tokens:,}{extra}"),
        _row("cut", f"from {plan.first_kept_entry_id} (line {plan.first_kept_line}), " if plan.first_kept_entry_id
             else "no cut, ", "protect " + (plan.protected.describe() if plan.protected is not None
                                      else f"{plan.keep_recent_tokens:,}")),
    ]
    if plan.budget_note:
        rows.append(_row("", (plan.budget_note, "$text-muted")))
    rows.append(_row("apply", f"via {plan.controller}" + (" (split turn)" if plan.split_turn else "")))
    if plan.read_files or plan.modified_files:
        rows.append(_row("files", f"{len(plan.read_files)} read, {len(plan.modified_files)} modified"))
    if plan.pinned:
        rows.append(_row("pinned", ", ".join(plan.pinned)))
    if plan.archive is not None:
        rows.append(_row("archive", f"{len(plan.archive.messages)} messages → {plan.archive.path}"))
    return Content("\n").join(rows)


def plan_blocked(plan: CompactionPlan) -> Content:
    """Why the plan cannot be applied, in ``$error`` (empty when it can)."""
    return Content("\n").join(
        Content.assemble(("✗ ", "bold $text-error"), shown(reason, "$text-error")) for reason in plan.blocked
    )


def plan_warnings(plan: CompactionPlan) -> Content:
    """Every warning of the plan, in ``$warning``."""
    return Content("\n").join(Content.assemble(("! ", "bold $text-warning"), shown(warning))
                             for warning in plan.warnings)


def plan_warning_count(plan: CompactionPlan) -> Content:
    """One line above the figures where the dialog is too short for the warnings below them (80×24): how many,
    and the first (the line is cut at the box's edge; every warning is listed whole below the figures)."""
    if not plan.warnings:
        return Content("")
    count = len(plan.warnings)
    head = f"! {count} warning{'s' if count != 1 else ''} below: "
    return Content.assemble((head, "bold $text-warning"), shown(plan.warnings[0]))


def plan_dropped(plan: CompactionPlan, limit: int = 40) -> Content:
    """The messages leaving the context, one line each: role, entry id, tokens, the start of the text."""
    if not plan.dropped:
        return Content.styled("Nothing leaves the context.", "$text-muted")
    if plan.layer == "prune":
        # A prune drops nothing: these messages stay, with their tool outputs cleared or trimmed.
        chosen = f"; {len(plan.targets):,} chosen" if plan.targets else ""
        head = f"Rewritten with tool outputs shortened ({len(plan.dropped):,} messages{chosen}); text kept"
    else:
        head = f"Dropped from the context ({len(plan.dropped):,} messages)"
    lines = [Content.styled(head, "bold")]
    for message in plan.dropped[:limit]:
        lines.append(Content.assemble(
            shown(f"{shorten(message.role, 11):<11} ", "$text-secondary"),
            shown(f"{shorten(message.entry_id, 10):<10} ", "$text-muted"),
            f"{message.tokens:>6,}  ",
            shown(message.first_line),
        ))
    if len(plan.dropped) > limit:
        lines.append(Content.styled(f"… and {len(plan.dropped) - limit:,} more", "$text-muted"))
    return Content("\n").join(lines)
