"""Handlers of the read-only subcommands: ``status`` and ``inspect``."""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from engine import (
    AGENT_FORMATS,
    Config,
    IndexCache,
    SessionNotFoundError,
    SessionSource,
    TranscriptError,
    agent_estimate_text,
    discover_sessions,
    find_session,
    format_tokens,
    glance_session,
    layer_budgets,
    money,
    pi_branch,
    session_cost,
)
from engine.session.pi_tree import entry_rows, labels, pi_model, session_tree, thinking_level
from engine.stores.source import shared_keys
from tui.cli.exit_codes import ExitCode, looks_like_path, missing_path_message
from tui.cli.index_cache import stderr_cache
from tui.cli.terminal_output import cell, json_text

if TYPE_CHECKING:
    from engine import SessionFollower, SessionSnapshot



def print_json(value: Any) -> None:
    sys.stdout.write(json_text(value, orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS) + "\n")


def _status_row(row: dict[str, Any]) -> list[str]:
    tokens = "?" if row["context_tokens"] is None else format_tokens(row["context_tokens"])
    util = row["utilization"]
    flags = [row["agent"]] if row.get("agent") else []
    if row.get("sidechain"):
        flags.append("sub-agent")
    if row.get("agent_writing"):
        flags.append(f"writing: {row['agent_writing']}")
    if row["malformed_lines"]:
        flags.append(f"{len(row['malformed_lines'])} bad lines")
    if row["headerless"]:
        flags.append("headerless")
    if row.get("pi_loadable", True) is False:
        flags.append("pi will not load it")
    if row["version"] is not None and row["version"] < 3:
        flags.append(f"v{row['version']}")
    if row["kind"] == "archive":
        flags.append("archive")
    elif row["kind"] == "legacy":
        flags.append("legacy JSONL, not read by OpenClaw ≥ 2026.8")
    if row["gauge_level"] in ("near-compaction", "over-compaction"):
        flags.append(row["gauge_level"])
    if row.get("shared_key"):  # last: the path is long, and it tells this copy from the others
        flags.append(f"one of several with this key: {row['path']}")
    when = (row["last_activity"] or "-")[:16].replace("T", " ")
    key = row["key"] if len(row["key"]) <= 48 else row["key"][:22] + "…" + row["key"][-25:]
    return [
        key,
        row["model"] or "-",
        f"{tokens}/{format_tokens(row['context_window'])}",
        "unknown" if util is None else f"{util * 100:.0f}%",
        "-" if row["compaction_threshold_tokens"] is None else format_tokens(row["compaction_threshold_tokens"]),
        "?" if row["compactions"] is None else str(row["compactions"]),
        when,
        ", ".join(flags),
    ]


def _table(header: list[str], rows: list[list[str]]) -> str:
    rows = [[cell(value) for value in row] for row in rows]  # a key holding a newline must not start a row
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in [header, *rows]]
    return "\n".join(lines)


class NotASessionError(TranscriptError):
    """The file holds no session header and no entry: pi calls it invalid, and so does ctxscope."""


def _not_a_session(source: SessionSource) -> NotASessionError:
    return NotASessionError(f"{source.path} is not a session: no session header and no entry (pi would not load it)")


def _status_of(source: SessionSource, config: Config, full: bool, index: IndexCache) -> dict[str, Any]:
    if source.format in AGENT_FORMATS:  # Claude Code, Codex: read through engine/agents (docs/claude-code.md)
        from engine import agent_glance

        found = agent_glance(source, config)
        if not found.reading.is_session:
            raise NotASessionError(f"{source.path} is not a {found.reading.agent} session ctxscope can read")
        return found.to_status()
    glance = None if full or source.in_database else glance_session(source, config, index)
    if glance is None or glance.quick.needs_full:
        # Imported here: the default tail path never indexes a whole file (docs/architecture.md, Performance).
        from engine import SessionFollower

        snapshot = SessionFollower(source, config).refresh()
        if not snapshot.is_session:
            raise _not_a_session(source)
        return {**snapshot.to_status(), "scan": "full"}
    if not glance.is_session:
        raise _not_a_session(source)
    return glance.to_status()


def status(args: argparse.Namespace, config: Config) -> int:
    """``ctxscope status [PATH…] [--json] [--full]``: one row per discovered session.

    By default each session is read from its persistent index and its tail (the gauge, the model, the compaction
    count): a second run reads only what was appended; ``--full`` indexes every line and also reports malformed
    ones.
    """
    discovery = discover_sessions(args.paths or None)
    for problem in discovery.problems:
        print(f"ctxscope: {problem}", file=sys.stderr)
    rows: list[dict[str, Any]] = []
    failed = False
    given_files = {Path(p).expanduser().resolve() for p in args.paths or () if Path(p).expanduser().is_file()}
    index = stderr_cache()
    shared = shared_keys(discovery.sessions)  # copies of one session: each named by its path, as the TUI does
    with index.batch():  # each shard of the index written once, at the end
        for source in discovery.sessions:
            try:
                rows.append({**_status_of(source, config, args.full, index), "shared_key": source.key in shared})
            except NotASessionError as exc:
                print(f"ctxscope: {exc}", file=sys.stderr)
                # A file asked for by name that is no session is a failure; one found in a directory is skipped.
                failed = failed or Path(source.path).resolve() in given_files
            except (TranscriptError, OSError) as exc:
                failed = True
                print(f"ctxscope: {source.path}: {exc}", file=sys.stderr)
    rows.sort(key=lambda r: r["last_activity"] or "", reverse=True)
    if args.json:
        print_json(rows)
    elif not rows and discovery.problems:
        print(f"No session could be read ({len(discovery.problems)} problem(s) above).", file=sys.stderr)
        return ExitCode.FAILED
    elif not rows and failed:
        return ExitCode.FAILED  # each file given was refused, and the line above says why
    elif not rows:
        defaults = "~/.openclaw, ~/.clawdbot, ~/.pi/agent/sessions"
        where = ", ".join(str(p) for p in args.paths) if args.paths else defaults
        print(f"No sessions found in {where}. Try `ctxscope demo`, or pass a sessions directory.")
    else:
        header = ["KEY", "MODEL", "TOKENS", "UTIL", "COMPACTS AT", "COMPACTIONS", "LAST ACTIVITY", "NOTES"]
        print(_table(header, [_status_row(r) for r in rows]))
        if shared:  # the count the TUI's title gives, with why two rows can carry one key
            print(f"\n{_count(len(rows), 'session')}, {len(shared)} key(s) held by several files (named by path)")
        if discovery.archives:
            print(f"\n{len(discovery.archives)} archived transcript(s) not shown (pass one as PATH to read it).")
    return ExitCode.FAILED if (failed or discovery.problems) and not rows else ExitCode.OK


def refuse_named_files(paths: list[Path], config: Config) -> bool:
    """Whether a file named in ``paths`` is no session (each one said on stderr, as ``status`` says it).

    Directories are not judged here: a file found in one that is no session is left out, not refused.
    """
    files = [Path(p).expanduser() for p in paths if Path(p).expanduser().is_file()]
    if not files:
        return False
    discovery = discover_sessions(files)
    refused = False
    for problem in discovery.problems:
        print(f"ctxscope: {problem}", file=sys.stderr)
        refused = True
    index = stderr_cache()
    with index.batch():
        for source in discovery.sessions:
            try:
                _status_of(source, config, False, index)
            except (TranscriptError, OSError) as exc:  # NotASessionError included
                print(f"ctxscope: {exc}", file=sys.stderr)
                refused = True
    return refused


def resolve_session(args: argparse.Namespace) -> SessionSource:
    """The session named by ``args.session``, searched in ``--in`` paths, the path itself, or the defaults.

    Raises:
        SessionNotFoundError: nothing matches.
    """
    from pathlib import Path

    spec = args.session
    path = Path(spec).expanduser()
    search = list(args.search) or ([path] if path.exists() else None)
    discovery = discover_sessions(search)
    return find_session(discovery, spec)


def not_found_message(spec: str, exc: SessionNotFoundError) -> str:
    """Why SESSION named nothing: a path that does not exist reads as ``status`` says it, else the lookup's words."""
    if looks_like_path(spec) and not Path(spec).expanduser().exists():
        return missing_path_message(spec)
    return str(exc)


def open_session(args: argparse.Namespace, config: Config) -> tuple[SessionFollower, SessionSnapshot] | int:
    """Resolve ``args.session`` and read it: the follower and its snapshot, or an exit code (message printed)."""
    try:
        source = resolve_session(args)
    except SessionNotFoundError as exc:
        print(f"ctxscope: {not_found_message(args.session, exc)}", file=sys.stderr)
        return ExitCode.NOT_FOUND
    from engine import SessionFollower

    follower = SessionFollower(source, config)
    try:
        snapshot = follower.refresh()
    except TranscriptError as exc:
        print(f"ctxscope: {exc}", file=sys.stderr)
        return ExitCode.FAILED
    if not snapshot.is_session:
        print(f"ctxscope: {_not_a_session(source)}", file=sys.stderr)
        return ExitCode.FAILED
    return follower, snapshot


def inspect_result(follower: SessionFollower, snapshot: SessionSnapshot, keep_recent: int, keep_source: str,
                   config: Config) -> dict[str, Any]:
    """The ``inspect --json`` object: the status row, pi's session views and the context message by message."""
    from engine import context_cut, measure_rows  # with the follower: not on the path of `status`

    view = snapshot.view
    cut = context_cut(snapshot, keep_recent)
    # The rows the TUI's Context tab shows (engine/queries/context_rows.py), with the fields only JSON carries.
    rows: list[dict[str, Any]] = [
        {
            "entry_id": row.entry_id,
            "role": row.role,
            "tokens": row.tokens,
            "pi_estimate": row.pi_estimate,
            "sent": row.sent,
            "line": row.line,
            "protected": row.protected,
            "compactable": not row.protected,
            "tools": list(row.tools) or None,
        }
        for row in measure_rows(snapshot, follower, keep_recent)
    ]
    cut_point: dict[str, Any] | None = None
    if cut is not None:
        first_kept = view.path[cut.first_kept_index]
        cut_point = {
            "first_kept_entry_id": first_kept.id,
            "split_turn": cut.is_split_turn,
            "turn_start_entry_id": view.path[cut.turn_start_index].id if cut.is_split_turn else None,
            "tokens_before": snapshot.tokens.agent_estimate,
            "protected_tokens": sum(r["tokens"] for r in rows if r["protected"]),
            "compactable_tokens": sum(r["tokens"] for r in rows if r["compactable"]),
        }
    entries = follower.entries
    status = snapshot.to_status()
    return {
        **status,
        "model": pi_model(view.path),
        "model_id": status["model"],
        "entry_count": status["entries"],
        "entries": entry_rows(entries),
        "tree": session_tree(entries),
        "branch_ids": [e.id for e in pi_branch(view)],
        "labels": labels(entries),
        "thinking_level": thinking_level(view.path, follower.objects.read_object),
        "keep_recent_tokens": keep_recent,
        "keep_recent_source": keep_source,
        "layer_budgets": {b.layer: b.to_dict() for b in layer_budgets(snapshot.window.tokens, config.compaction)},
        "cut_point": cut_point,
        "context": rows,
    }


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def inspect(args: argparse.Namespace, config: Config) -> int:
    """``ctxscope inspect SESSION [--json]``: the context, message by message."""
    opened = open_session(args, config)
    if isinstance(opened, int):
        return opened
    follower, snapshot = opened
    if args.keep_recent is not None:
        keep_recent, keep_source = args.keep_recent, "--keep-recent"
    else:
        from engine import keep_recent_budget

        budget = keep_recent_budget(snapshot, config)
        keep_recent, keep_source = budget.tokens, budget.source
    result = inspect_result(follower, snapshot, keep_recent, keep_source, config)
    cost = session_cost(snapshot, now=datetime.now(UTC))
    result = {**result, "spend": {"usd": cost.spend_usd, "source": cost.spend_source, "calls": cost.calls,
                                  "unpriced_calls": cost.unpriced_calls}}
    if args.json:
        print_json(result)
        return ExitCode.OK
    rows = result["context"]
    cp = result["cut_point"]
    print(f"{cell(snapshot.source.key)}  ({cell(snapshot.source.path)})")
    if not snapshot.pi_loadable and snapshot.source.format not in AGENT_FORMATS:
        print("  pi will not load this file as is (its first entry is not a session header); left out of totals")
    print(f"  {snapshot.gauge.line()}  model {cell(snapshot.model or '-')}  window {snapshot.window.tokens:,} "
          f"({snapshot.window.source})")
    tokens = snapshot.tokens
    known = "unknown" if tokens.tokens is None else f"{tokens.tokens:,}"
    agent_files = snapshot.source.format in AGENT_FORMATS
    estimate = agent_estimate_text(tokens.agent_estimate) + (
        "" if tokens.agent_estimate_known else " at 4 characters a token" if agent_files else " (pi: unknown)")
    source = f" ({snapshot.limits.line_source})" if snapshot.limits is not None else ""
    print(f"  context {known} tokens ({tokens.source}); agent's estimate {estimate}; "
          f"compacts at {snapshot.gauge.compaction_text}{source}; compactions {snapshot.compactions}")
    budgets = layer_budgets(snapshot.window.tokens, config.compaction)
    print("  ctxscope protects (compact/prune --layer): "
          + " · ".join(f"{b.layer} {b.describe()}" for b in budgets))
    # Claude Code and Codex keep no recent tail of their own when they compact: the budget is ctxscope's compact's.
    mine = ("keep-recent" if args.keep_recent is not None else "ctxscope's compact keeps" if agent_files
            else "the agent's own compaction keeps")
    if not rows:
        print(f"  {mine} {keep_recent:,} ({keep_source}): no messages in the context yet\n")
    elif cp is None:
        print(f"  {mine} {keep_recent:,} ({keep_source}): no cut point (the session ends on a compaction)\n")
    else:
        kept = sum(1 for r in rows if r["protected"])
        print(f"  {mine} {keep_recent:,} tokens ({keep_source}): {_count(kept, 'message')} protected "
              f"({cp['protected_tokens']:,} tokens), {_count(len(rows) - kept, 'message')} compactable "
              f"({cp['compactable_tokens']:,} tokens), first kept {cell(cp['first_kept_entry_id'] or '-')}\n")
    spent = "unknown" if cost.spend_usd is None else money(cost.spend_usd)
    print(f"  spend {spent} ({cost.spend_source})" + (f", {cost.unpriced_calls} unpriced calls"
                                                      if cost.unpriced_calls else ""))
    table = [
        [r["entry_id"], r["role"], f"{r['tokens']:,}" if r["sent"] else "not sent",
         "protected" if r["protected"] else "compactable", ", ".join(r["tools"] or [])]
        for r in rows
    ]
    print(_table(["ENTRY", "ROLE", "TOKENS", "STATE", "TOOLS"], table))
    return ExitCode.OK
