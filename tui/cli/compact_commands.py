"""Handlers of ``compact`` and ``prune``: show the plan, ask, apply through a controller (docs/compaction.md)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from engine import (
    AppendError,
    AppendRefusedError,
    CompactionError,
    CompactionPlan,
    CompactionRefusedError,
    CompactionResult,
    Config,
    LockError,
    LockHeldError,
    NotCompactedError,
    agent_compaction_problem,
    apply_compaction,
    default_layer,
    format_tokens,
    missing_extra,
    plan_compaction,
    resolve_state_dir,
)
from engine.compaction.openclaw_gateway import GatewayOutcome
from engine.config.llm_settings import NEEDS_LLM
from tui.cli.exit_codes import ExitCode
from tui.cli.read_commands import open_session, print_json
from tui.confirm import confirm

_PREVIEW_ROWS = 8


def prune(args: argparse.Namespace, config: Config) -> int:
    """``ctxscope prune SESSION``: compact with the prune layer."""
    return compact(args, config)


def compact(args: argparse.Namespace, config: Config) -> int:
    """``ctxscope compact SESSION [--layer L] [--focus TEXT] [--keep-recent N] [--dry-run] [--yes] [--json]``."""
    if args.keep_recent is not None and args.keep_recent < 0:
        print("ctxscope: --keep-recent must be >= 0", file=sys.stderr)
        return ExitCode.USAGE
    opened = open_session(args, config)
    if isinstance(opened, int):
        return opened
    follower, snapshot = opened
    source = snapshot.source
    layer = args.layer
    if layer == "auto":
        layer = default_layer(snapshot, config)
    state_dir = resolve_state_dir(source.state_dir, config)
    plan = plan_compaction(snapshot, layer, args.focus, keep_recent=args.keep_recent, config=config,
                           load=follower.reader.read_object, state_dir=state_dir, controller=args.controller,
                           token_cache=follower.token_cache)
    if getattr(args, "llm", False):
        if config.llm is None:
            print(f"ctxscope: --llm {NEEDS_LLM}", file=sys.stderr)
            return ExitCode.USAGE
        if (problem := missing_extra("llm")) is not None:
            print(f"ctxscope: {problem}", file=sys.stderr)
            return ExitCode.USAGE
        from engine import LLMError
        from engine.llm.summary import with_llm_summary

        try:
            plan = with_llm_summary(plan, snapshot, follower.reader.read_object, config.llm)
        except LLMError as exc:
            print(f"ctxscope: LLM summary failed: {exc}", file=sys.stderr)
            return ExitCode.FAILED
    if args.json and (args.dry_run or plan.blocked):
        print_json({"plan": plan.to_dict(), "dry_run": args.dry_run})
    elif not args.json:
        print(render_plan(plan))
        if plan.controller in RESUME_NOTES:
            print(f"\n{RESUME_NOTES[plan.controller].format(session=source.session_id or source.key)}")
            problem = agent_compaction_problem(source, plan.layer)
            if problem is not None and args.dry_run:
                print(f"Not now: {problem}")
    if plan.blocked:
        for reason in plan.blocked:
            print(f"ctxscope: refused: {reason}", file=sys.stderr)
        return ExitCode.REFUSED
    if args.dry_run:
        if not args.json:
            print("\nDry run: nothing written.")
        return ExitCode.OK
    question = f"Append this {plan.layer} compaction to {source.path.name}?"
    if plan.controller == "gateway":
        question = f"Ask the OpenClaw gateway to compact {source.key}?"
    if plan.needs_confirmation and plan.guard is not None:
        question = f"{plan.guard.reason} {question}"
    if not confirm(question, yes=args.yes):
        return ExitCode.UNCONFIRMED
    timeout = args.timeout if getattr(args, "timeout", None) is not None else config.gateway_timeout
    if timeout <= 0:
        print("ctxscope: --timeout must be > 0", file=sys.stderr)
        return ExitCode.USAGE
    try:
        result = apply_compaction(plan, follower=follower, config=config, state_dir=state_dir,
                                  lock_timeout=args.lock_timeout, gateway_timeout=timeout)
    except NotCompactedError as exc:
        if args.json:
            print_json({"plan": plan.to_dict(), "result": {"controller": "gateway",
                                                            "gateway": outcome_to_dict(exc.outcome)}})
        print(f"ctxscope: not compacted: {exc.reason}", file=sys.stderr)
        return ExitCode.REFUSED
    except (CompactionRefusedError, LockHeldError, AppendRefusedError) as exc:
        print(f"ctxscope: refused: {exc}", file=sys.stderr)
        return ExitCode.REFUSED
    except (CompactionError, AppendError, LockError, OSError) as exc:
        print(f"ctxscope: compaction failed: {exc}", file=sys.stderr)
        return ExitCode.FAILED
    if args.json:
        print_json({"plan": result.plan.to_dict(), "result": result_to_dict(result)})
    else:
        print("\n" + render_result(result))
    for warning in result.warnings:
        print(f"Warning: {warning}", file=sys.stderr)
    return ExitCode.OK


RESUME_NOTES = {
    "claude-code": ("Claude Code reads this compaction when the session is resumed (claude --resume {session}); a "
                    "claude that is running it now keeps its own memory until then, so ctxscope refuses while one "
                    "runs."),
    "codex": ("Codex reads this compaction when the session is resumed (codex resume {session}); a codex that is "
              "running it now keeps its own history until then, so ctxscope refuses while one runs."),
}


def result_to_dict(result: CompactionResult) -> dict[str, Any]:
    """What the controller did, as JSON-friendly values."""
    return {
        "controller": result.controller,
        "entry_ids": list(result.entry_ids),
        "parent_id": result.parent_id,
        "offset": result.offset,
        "bytes_written": result.bytes_written,
        "replanned": result.replanned,
        "archive": None if result.archive is None else {
            "path": str(result.archive.path), "offset": result.archive.offset, "bytes": result.archive.length},
        "gateway_response": result.gateway_response,
        "gateway": outcome_to_dict(result.gateway) if result.gateway is not None else None,
        "warnings": list(result.warnings),
    }


def outcome_to_dict(outcome: GatewayOutcome) -> dict[str, Any]:
    """What the gateway did and how that was learned, as JSON-friendly values."""
    return {
        "compacted": outcome.compacted,
        "reason": outcome.reason,
        "verified_by": outcome.verified_by,
        "compaction_id": outcome.compaction_id,
        "tokens_before": outcome.tokens_before,
        "tokens_after": outcome.tokens_after,
        "store_compaction_count": outcome.store_compaction_count,
        "note": outcome.note,
        "answer": outcome.answer,
    }


def render_result(result: CompactionResult) -> str:
    """One or two lines saying what was written."""
    if result.controller == "gateway":
        return _render_gateway(result)
    lines = [f"Appended {', '.join(result.entry_ids)} after {result.parent_id} ({result.bytes_written:,} bytes)."]
    if result.replanned:
        lines.append("The agent wrote while we planned: the plan was recomputed under the lock before writing.")
    if result.archive is not None:
        lines.append(f"Archived the dropped messages to {result.archive.path} ({result.archive.length:,} bytes).")
    return "\n".join(lines)


def _render_gateway(result: CompactionResult) -> str:
    outcome = result.gateway
    key = result.plan.session_key
    if outcome is None:  # pragma: no cover - the gateway controller always reports an outcome
        return f"OpenClaw's gateway compacted {key}."
    figures = ""
    if outcome.tokens_before is not None and outcome.tokens_after is not None:
        figures = f": {outcome.tokens_before:,} → {outcome.tokens_after:,} tokens (OpenClaw's count)"
    which = f" (compaction {outcome.compaction_id})" if outcome.compaction_id else ""
    count = f"; OpenClaw now counts {outcome.store_compaction_count} compaction(s)" if (
        outcome.store_compaction_count is not None) else ""
    if outcome.verified_by == "none":
        return f"OpenClaw's gateway started compacting {key}: {outcome.note or 'its outcome is not known'}."
    line = f"OpenClaw's gateway compacted {key}{figures}{which}{count}."
    if outcome.note:
        line += f"\n{outcome.note[0].upper()}{outcome.note[1:]}."
    return line


def _delta(before: int, after: int) -> str:
    change = after - before
    sign = "+" if change > 0 else "−" if change < 0 else "±"
    share = f", {sign}{abs(change) / before:.0%}" if before else ""
    return f"{format_tokens(before)} → {format_tokens(after)} tokens ({sign}{format_tokens(abs(change))}{share})"


def _render_gateway_plan(plan: CompactionPlan) -> str:
    lines = [f"Compaction through OpenClaw's gateway for {plan.session_key} ({plan.path})",
             "  OpenClaw chooses the cut and writes the summary itself; ctxscope asks the gateway "
             "and reports what it did.",
             "  the gateway can: summarize (sessions.compact)"
             + (f", here with the focus: {plan.focus} (/compact)" if plan.focus else ", or /compact with --focus")]
    budget = plan.openclaw_budget or {}
    estimate, line = budget.get("estimatedPromptTokens"), budget.get("promptBudgetBeforeReserve")
    if isinstance(estimate, int) and isinstance(line, int):
        should = budget.get("shouldCompact")
        due = "yes" if should is True else "no" if should is False else "?"
        lines.append(f"  OpenClaw's figures: about {estimate:,} prompt tokens of a {line:,}-token budget "
                     f"({budget.get('reserveTokens', 0):,} reserved); compaction due: {due}")
    if isinstance(budget.get("totalTokens"), int):
        fresh = "" if budget.get("totalTokensFresh") else " (stale)"
        lines.append(f"  OpenClaw's last recorded prompt: {budget['totalTokens']:,} tokens{fresh}")
    if not budget:
        lines.append("  OpenClaw has recorded no figures for this session yet")
    for warning in plan.warnings:
        lines.append(f"  warning: {warning}")
    return "\n".join(lines)


def render_plan(plan: CompactionPlan) -> str:
    """The human preview of a plan: cut, what is dropped, tokens, cost, warnings, then the summary."""
    if plan.controller == "gateway":
        return _render_gateway_plan(plan)
    lines = [f"Compaction plan for {plan.session_key} ({plan.path})",
             f"  layer {plan.layer}, protecting the last {_protected(plan)} tokens; "
             f"controller {plan.controller}"]
    if plan.focus:
        lines.append(f"  focus: {plan.focus}")
    if plan.first_kept_entry_id:
        split = f"; splits the turn started at {plan.turn_start_entry_id}" if plan.split_turn else ""
        lines.append(f"  cut point: keep from entry {plan.first_kept_entry_id} (line {plan.first_kept_line}){split}")
    lines.append(f"  summarized {plan.messages_summarized} messages ({plan.tokens_summarized:,} tokens), "
                 f"kept {plan.messages_kept} ({plan.tokens_kept:,} tokens), by {plan.token_method}")
    if plan.budget_note:
        lines.append(f"  the cut {plan.budget_note}")
    lines.append(f"  messages: {_delta(plan.tokens_before, plan.tokens_after)}; summary {plan.summary_tokens:,}"
                 + (f", checkpoint message {plan.checkpoint_tokens:,}" if plan.checkpoint_tokens else ""))
    if plan.overhead_tokens:
        lines.append(f"  context with prompt overhead: {_delta(plan.context_tokens_before, plan.context_tokens_after)}")
    cost = plan.cost
    if cost is not None and cost.cache_write_cost_usd is not None:
        lines.append(f"  cost: cache write ${cost.cache_write_cost_usd:.4f} for the new prefix, saves "
                     f"${cost.saved_per_turn_usd or 0:.4f}/turn ({cost.price_source}); payback {cost.payback()}")
    elif cost is not None:
        lines.append(f"  cost: unknown price for this model; saves {cost.tokens_saved_per_turn:,} tokens per turn")
    if plan.read_files or plan.modified_files:
        lines.append(f"  files: {len(plan.read_files)} read, {len(plan.modified_files)} modified")
    if plan.pinned:
        lines.append(f"  pinned, carried verbatim: {', '.join(plan.pinned)}")
    if plan.archive is not None:
        lines.append(f"  archive: {len(plan.archive.messages)} messages → {plan.archive.path} "
                     f"(record {plan.archive.record_id})")
    if plan.dropped:
        lines.append("  dropped from the context:")
        for d in plan.dropped[:_PREVIEW_ROWS]:
            lines.append(f"    {d.role:<17} {d.entry_id:<22} {d.tokens:>7,}  {d.first_line}")
        if len(plan.dropped) > _PREVIEW_ROWS:
            lines.append(f"    … and {len(plan.dropped) - _PREVIEW_ROWS} more")
    for warning in plan.warnings:
        lines.append(f"  warning: {warning}")
    lines += ["", f"--- summary ({plan.summary_tokens:,} tokens) ---", plan.summary, "--- end of summary ---"]
    return "\n".join(lines)


def _protected(plan: CompactionPlan) -> str:
    """The protected budget with where it comes from (engine.compaction.budget), as the dialog and inspect say it."""
    return plan.protected.describe() if plan.protected is not None else f"{plan.keep_recent_tokens:,}"
