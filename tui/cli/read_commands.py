"""Handlers of the read-only subcommands: ``status`` and ``inspect``."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

import orjson

from engine.accounting.context import find_cut_point
from engine.accounting.gauge import format_tokens
from engine.accounting.measure import message_tokens
from engine.config.loader import Config
from engine.session.glance import glance_session
from engine.stores.discovery import SessionNotFoundError, discover_sessions, find_session
from engine.stores.source import SessionSource
from engine.stores.transcript import TranscriptError

if TYPE_CHECKING:
    from engine.session.snapshot import SessionFollower, SessionSnapshot

EXIT_OK, EXIT_FAILED, EXIT_NOT_FOUND = 0, 1, 3


def print_json(value: Any) -> None:
    sys.stdout.write(orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode() + "\n")


def _status_row(row: dict[str, Any]) -> list[str]:
    tokens = "?" if row["context_tokens"] is None else format_tokens(row["context_tokens"])
    util = row["utilization"]
    flags = []
    if row["malformed_lines"]:
        flags.append(f"{len(row['malformed_lines'])} bad lines")
    if row["headerless"]:
        flags.append("headerless")
    if row["version"] < 3:
        flags.append(f"v{row['version']}")
    if row["kind"] == "archive":
        flags.append("archive")
    if row["gauge_level"] in ("near-compaction", "over-compaction"):
        flags.append(row["gauge_level"])
    when = (row["last_activity"] or "-")[:16].replace("T", " ")
    key = row["key"] if len(row["key"]) <= 48 else row["key"][:22] + "…" + row["key"][-25:]
    return [
        key,
        row["model"] or "-",
        f"{tokens}/{format_tokens(row['context_window'])}",
        "unknown" if util is None else f"{util * 100:.0f}%",
        format_tokens(row["compaction_threshold_tokens"]),
        "?" if row["compactions"] is None else str(row["compactions"]),
        when,
        ", ".join(flags),
    ]


def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in [header, *rows]]
    return "\n".join(lines)


def _status_of(source: SessionSource, config: Config, full: bool) -> dict[str, Any]:
    if full or source.in_database:
        # Imported here: the default tail path never indexes a whole file, and `status` is budgeted (SPEC §9).
        from engine.session.snapshot import SessionFollower

        return {**SessionFollower(source, config).refresh().to_status(), "scan": "full"}
    return glance_session(source, config).to_status()


def status(args: argparse.Namespace, config: Config) -> int:
    """``ctxscope status [PATH…] [--json] [--full]``: one row per discovered session.

    By default each session is read from its tail (the gauge, the model, the compaction count), which keeps a
    thousand sessions under a second; ``--full`` indexes every line and also reports malformed ones.
    """
    discovery = discover_sessions(args.paths or None)
    for problem in discovery.problems:
        print(f"ctxscope: {problem}", file=sys.stderr)
    rows: list[dict[str, Any]] = []
    failed = False
    for source in discovery.sessions:
        try:
            rows.append(_status_of(source, config, args.full))
        except (TranscriptError, OSError) as exc:
            failed = True
            print(f"ctxscope: {source.path}: {exc}", file=sys.stderr)
    rows.sort(key=lambda r: r["last_activity"] or "", reverse=True)
    if args.json:
        print_json(rows)
    elif not rows and discovery.problems:
        print(f"No session could be read ({len(discovery.problems)} problem(s) above).", file=sys.stderr)
        return EXIT_FAILED
    elif not rows:
        defaults = "~/.openclaw, ~/.clawdbot, ~/.pi/agent/sessions"
        where = ", ".join(str(p) for p in args.paths) if args.paths else defaults
        print(f"No sessions found in {where}. Try `ctxscope demo`, or pass a sessions directory.")
    else:
        header = ["KEY", "MODEL", "TOKENS", "UTIL", "COMPACTS AT", "COMPACTIONS", "LAST ACTIVITY", "NOTES"]
        print(_table(header, [_status_row(r) for r in rows]))
        if discovery.archives:
            print(f"\n{len(discovery.archives)} archived transcript(s) not shown (pass one as PATH to read it).")
    return EXIT_FAILED if (failed or discovery.problems) and not rows else EXIT_OK


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


def open_session(args: argparse.Namespace, config: Config) -> tuple[SessionFollower, SessionSnapshot] | int:
    """Resolve ``args.session`` and read it: the follower and its snapshot, or an exit code (message printed)."""
    try:
        source = resolve_session(args)
    except SessionNotFoundError as exc:
        print(f"ctxscope: {exc}", file=sys.stderr)
        return EXIT_NOT_FOUND
    from engine.session.snapshot import SessionFollower

    follower = SessionFollower(source, config)
    try:
        return follower, follower.refresh()
    except TranscriptError as exc:
        print(f"ctxscope: {exc}", file=sys.stderr)
        return EXIT_FAILED


def inspect(args: argparse.Namespace, config: Config) -> int:
    """``ctxscope inspect SESSION [--json]``: the context, message by message."""
    opened = open_session(args, config)
    if isinstance(opened, int):
        return opened
    follower, snapshot = opened
    keep_recent = args.keep_recent if args.keep_recent is not None else config.keep_recent_tokens
    view = snapshot.view
    cut = find_cut_point(view.path, keep_recent)
    rows: list[dict[str, Any]] = []
    for message in view.messages:
        protected = message.role != "compactionSummary" and message.path_index >= cut.first_kept_index
        rows.append(
            {
                "entry_id": message.entry_id,
                "role": message.role,
                "tokens": message_tokens(message, follower.objects, cache=follower.token_cache),
                "pi_estimate": message.entry.pi_tokens,
                "line": message.entry.line_no,
                "protected": protected,
                "compactable": not protected,
                "tools": list(message.entry.tool_calls) or None,
            }
        )
    first_kept = view.path[cut.first_kept_index] if cut.first_kept_index < len(view.path) else None
    protected_tokens = sum(r["tokens"] for r in rows if r["protected"])
    compactable_tokens = sum(r["tokens"] for r in rows if r["compactable"])
    result = {
        **snapshot.to_status(),
        "keep_recent_tokens": keep_recent,
        "cut_point": {
            "first_kept_entry_id": first_kept.id if first_kept else None,
            "split_turn": cut.is_split_turn,
            "protected_tokens": protected_tokens,
            "compactable_tokens": compactable_tokens,
        },
        "context": rows,
    }
    if args.json:
        print_json(result)
        return EXIT_OK
    print(f"{snapshot.key}  ({snapshot.source.path})")
    print(f"  {snapshot.gauge.line()}  model {snapshot.model or '-'}  window {snapshot.window.tokens:,} "
          f"({snapshot.window.source})")
    tokens = snapshot.tokens
    known = "unknown" if tokens.tokens is None else f"{tokens.tokens:,}"
    print(f"  context {known} tokens ({tokens.source}); agent's estimate {tokens.agent_estimate:,}; "
          f"compacts at {snapshot.gauge.compaction_line:,}; compactions {snapshot.compactions}")
    print(f"  keep-recent {keep_recent:,}: {protected_tokens:,} protected, "
          f"{compactable_tokens:,} compactable, first kept {first_kept.id if first_kept else '-'}\n")
    table = [
        [r["entry_id"], r["role"], f"{r['tokens']:,}", "protected" if r["protected"] else "compactable",
         ", ".join(r["tools"] or [])]
        for r in rows
    ]
    print(_table(["ENTRY", "ROLE", "TOKENS", "STATE", "TOOLS"], table))
    return EXIT_OK
