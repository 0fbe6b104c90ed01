"""Handlers of ``checkpoint``, ``history``, ``diff`` and ``inject``."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from engine import (
    AppendError,
    AppendRefusedError,
    CheckpointDiff,
    Config,
    ContextManager,
    InjectRefusedError,
    LockError,
    LockHeldError,
    SessionNotFoundError,
    SessionSource,
    TranscriptError,
    apply_inject,
    compaction_count,
    diff_checkpoints,
    list_checkpoints,
    missing_extra,
    own_compactions,
    plan_inject,
    raw_diff,
    read_checkpoint,
    read_checkpoints,
    resolve_state_dir,
)
from engine.config.llm_settings import NEEDS_LLM
from tui.cli.exit_codes import ExitCode
from tui.cli.index_cache import stderr_cache
from tui.cli.read_commands import not_found_message, print_json, resolve_session
from tui.cli.terminal_output import cell
from tui.confirm import confirm


def _source(args: argparse.Namespace) -> SessionSource | None:
    try:
        return resolve_session(args)
    except SessionNotFoundError as exc:
        print(f"ctxscope: {not_found_message(args.session, exc)}", file=sys.stderr)
        return None


def checkpoint(args: argparse.Namespace, config: Config) -> int:
    """``ctxscope checkpoint SESSION [--enrich]``: capture the session and write a checkpoint now (``manual``)."""
    if args.enrich and config.llm is None:
        print(f"ctxscope: --enrich {NEEDS_LLM}", file=sys.stderr)
        return ExitCode.USAGE
    if args.enrich and (problem := missing_extra("llm")) is not None:
        print(f"ctxscope: {problem}", file=sys.stderr)
        return ExitCode.USAGE
    source = _source(args)
    if source is None:
        return ExitCode.NOT_FOUND
    manager = ContextManager(config, auto_checkpoints=False)
    manager.add(source)
    _, events = manager.step(source.follow_key)
    errors = [e.message for e in events if e.kind == "error"]
    if errors:
        for message in errors:
            print(f"ctxscope: {message}", file=sys.stderr)
        return ExitCode.FAILED
    event = manager.write(source.follow_key, "manual", enrich=config.llm if args.enrich else None)
    if args.json:
        print_json({"kind": event.kind, "message": event.message,
                    "checkpoint_id": event.checkpoint.checkpoint_id if event.checkpoint else None,
                    "path": str(event.checkpoint.path) if event.checkpoint else None})
    elif event.kind == "error":
        print(f"ctxscope: {event.message}", file=sys.stderr)
    else:
        print(event.message)
    return ExitCode.OK if event.kind == "checkpoint" else ExitCode.FAILED


def history(args: argparse.Namespace, config: Config) -> int:
    """``ctxscope history SESSION``: the session's checkpoints and the compactions in its transcript."""
    source = _source(args)
    if source is None:
        return ExitCode.NOT_FOUND
    state_dir = resolve_state_dir(source.state_dir, config)
    rows: list[dict[str, Any]] = []
    # The files the TUI's Checkpoints tab lists, read the same way (engine/queries/checkpoints.py).
    for stored in read_checkpoints(state_dir, source.identity, render=False):
        cp = stored.checkpoint
        if cp is None:
            rows.append({"checkpoint_id": stored.checkpoint_id, "path": str(stored.path), "error": stored.problem})
            continue
        usage = cp.meta.token_usage
        rows.append({
            "checkpoint_id": stored.checkpoint_id, "created_at": cp.meta.created_at, "trigger": cp.meta.trigger,
            "input_tokens": usage.input_tokens, "utilization": usage.utilization,
            "compaction_count": cp.meta.compaction_count, "decisions": len(cp.decisions),
            "open_items": len(cp.open_items), "path": str(stored.path),
        })
    from engine.usage.collect import index_source  # the persistent index: a second run reads only new bytes

    try:
        indexed = index_source(source, stderr_cache())
    except (TranscriptError, OSError) as exc:
        print(f"ctxscope: {exc}", file=sys.stderr)
        return ExitCode.FAILED
    compactions = [
        {"entry_id": c.entry_id, "timestamp": c.timestamp, "line": c.line, "tokens_before": c.tokens_before,
         "first_kept_entry_id": c.first_kept_entry_id, "fallback_summary": c.fallback_summary,
         "from_hook": c.from_hook}
        for c in indexed.compactions
    ]
    store = (source.store_entry or {}).get("compactionCount")
    store_count = store if isinstance(store, int) and not isinstance(store, bool) else None
    own = own_compactions(state_dir, source.key) if store_count is not None else 0
    total = compaction_count(len(compactions), store_count, own)
    if args.json:
        print_json({"key": source.key, "state_dir": str(state_dir), "checkpoints": rows, "compactions": compactions,
                    "compaction_count": total})
        return ExitCode.OK
    where = "" if total == len(compactions) else f" ({len(compactions)} in this transcript)"
    print(f"{cell(source.key)}: {len(rows)} checkpoint(s) in {cell(state_dir)}, {total} compaction(s){where}")
    for row in rows:
        if "error" in row:
            print(f"  {cell(row['checkpoint_id'])}  unreadable: {cell(row['error'])}")
            continue
        print(f"  {cell(row['checkpoint_id'])}  {cell(row['created_at'])}  {cell(row['trigger']):<22} "
              f"{row['input_tokens']:>9,} tokens "
              f"({row['utilization'] * 100:.0f}%)  {row['decisions']} decision{'' if row['decisions'] == 1 else 's'}, "
              f"{row['open_items']} open item{'' if row['open_items'] == 1 else 's'}")
    for c in compactions:
        note = "  fallback summary" if c["fallback_summary"] else ""
        before = f"{c['tokens_before']:,}" if c["tokens_before"] is not None else "?"
        print(f"  compaction {cell(c['entry_id'])}  {cell(c['timestamp'])}  line {c['line']}  {before} tokens "
              f"before{note}")
    return ExitCode.OK


def diff_to_dict(diff: CheckpointDiff) -> dict[str, Any]:
    """A JSON-friendly structured diff."""
    return {
        "old": diff.old_id, "new": diff.new_id,
        "trigger": {"old": diff.trigger.old, "new": diff.trigger.new},
        "topic": {"old": diff.topic.old, "new": diff.topic.new, "changed": diff.topic.changed},
        "status": {"old": diff.status.old, "new": diff.status.new, "changed": diff.status.changed},
        "token_delta": diff.token_delta, "utilization_delta": diff.utilization_delta,
        "compaction_delta": diff.compaction_delta,
        **{name.replace(" ", "_"): {"added": list(c.added), "removed": list(c.removed)} for name, c in diff.lists},
    }


def diff(args: argparse.Namespace, config: Config) -> int:
    """``ctxscope diff SESSION [A B]``: what changed between two checkpoints (default: the last two)."""
    source = _source(args)
    if source is None:
        return ExitCode.NOT_FOUND
    state_dir = resolve_state_dir(source.state_dir, config)
    refs = {r.checkpoint_id: r for r in list_checkpoints(state_dir, source.identity)}
    ids = sorted(refs, key=lambda cid: refs[cid].number)
    if args.a and args.b:
        wanted = [_normalise_id(args.a), _normalise_id(args.b)]
    elif args.a or args.b:
        print("ctxscope: give two checkpoint ids (A B), or none for the last two", file=sys.stderr)
        return ExitCode.USAGE
    else:
        if len(ids) < 2:
            print(f"ctxscope: {source.key} has {len(ids)} checkpoint{'s' if len(ids) != 1 else ''}; a diff needs "
                  f"two. Write one with `ctxscope checkpoint {source.key}`.", file=sys.stderr)
            return ExitCode.FAILED
        wanted = ids[-2:]
    missing = [cid for cid in wanted if cid not in refs]
    if missing:
        print(f"ctxscope: no checkpoint {', '.join(missing)} for {source.key} (have: {', '.join(ids) or 'none'})",
              file=sys.stderr)
        return ExitCode.NOT_FOUND
    old_ref, new_ref = refs[wanted[0]], refs[wanted[1]]
    old_cp, new_cp = read_checkpoint(old_ref), read_checkpoint(new_ref)
    structured = diff_checkpoints(old_cp, new_cp)
    raw = raw_diff(old_ref.path.read_text(encoding="utf-8"), new_ref.path.read_text(encoding="utf-8"),
                   a_name=old_ref.checkpoint_id, b_name=new_ref.checkpoint_id)
    if args.json:
        print_json({**diff_to_dict(structured), "raw": raw})
        return ExitCode.OK
    print(f"{cell(source.key)}: {cell(old_ref.checkpoint_id)} ({cell(structured.trigger.old)}) → "
          f"{cell(new_ref.checkpoint_id)} ({cell(structured.trigger.new)})")
    print(f"  tokens {structured.token_delta:+,}  utilization {structured.utilization_delta * 100:+.0f} points  "
          f"compactions {structured.compaction_delta:+d}")
    for label, change in (("topic", structured.topic), ("status", structured.status)):
        if change.changed:
            print(f"  {label}: {cell(change.old.strip() or '-')} → {cell(change.new.strip() or '-')}")
    for name, list_change in structured.lists:
        for item in list_change.added:
            print(f"  + {name}: {cell(item)}")
        for item in list_change.removed:
            print(f"  - {name}: {cell(item)}")
    if args.raw:
        print("\n" + raw)
    return ExitCode.OK


def _normalise_id(value: str) -> str:
    return f"cp_{int(value):03d}" if value.isdigit() else value


def inject(args: argparse.Namespace, config: Config) -> int:
    """``ctxscope inject SESSION``: append the rendered latest checkpoint as a custom message."""
    source = _source(args)
    if source is None:
        return ExitCode.NOT_FOUND
    state_dir = resolve_state_dir(source.state_dir, config)
    try:
        plan = plan_inject(source, state_dir)
    except InjectRefusedError as exc:
        print(f"ctxscope: {exc}", file=sys.stderr)
        return ExitCode.REFUSED
    print(f"Inject {plan.checkpoint.ref.checkpoint_id} into {source.path} "
          f"({plan.rendered.tokens} tokens by {plan.rendered.token_method}):\n")
    print(plan.rendered.text + "\n")
    if args.dry_run:
        print("Dry run: nothing written.")
        return ExitCode.OK
    if not confirm("Append it to the transcript?", yes=args.yes):
        return ExitCode.UNCONFIRMED
    try:
        result = apply_inject(plan)
    except (LockHeldError, AppendRefusedError) as exc:
        print(f"ctxscope: {exc}", file=sys.stderr)
        return ExitCode.REFUSED
    except (AppendError, LockError) as exc:
        print(f"ctxscope: {exc}", file=sys.stderr)
        return ExitCode.FAILED
    print(f"Appended {', '.join(result.entry_ids)} after {result.parent_id} ({result.bytes_written} bytes).")
    if result.agent_active_warning:
        print(f"Warning: {result.agent_active_warning}", file=sys.stderr)
    return ExitCode.OK
