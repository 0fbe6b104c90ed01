"""The ``ctxscope`` command line (docs/architecture.md, Command line).

Exit codes: :class:`tui.cli.exit_codes.ExitCode` (``ctxscope help-exit-codes``).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from engine import ConfigError, load_config
from tui.cli.exit_codes import ExitCode, exit_codes_help, missing_path_message
from tui.cli.terminal_output import cell, guarded_output

if TYPE_CHECKING:
    from engine import Config

__all__ = [
    "EXIT_FAILED", "EXIT_NOT_FOUND", "EXIT_OK", "EXIT_REFUSED", "EXIT_UNCONFIRMED", "EXIT_USAGE", "ExitCode", "main",
]

# The names tests and embedding programs imported before the enum; each is the enum's member.
EXIT_OK, EXIT_FAILED, EXIT_USAGE = ExitCode.OK, ExitCode.FAILED, ExitCode.USAGE
EXIT_NOT_FOUND, EXIT_REFUSED, EXIT_UNCONFIRMED = ExitCode.NOT_FOUND, ExitCode.REFUSED, ExitCode.UNCONFIRMED

Handler = Callable[[argparse.Namespace, "Config"], int]

REPORT_GROUPINGS = ("day", "week", "month", "model", "project", "agent", "session")
"""``report --by`` choices: :data:`engine.usage.model.GROUPINGS`, spelled out so that parsing arguments does not
import the usage engine (tested equal)."""


def _add_paths(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths", nargs="*", type=Path, metavar="PATH",
        help="transcripts, sessions dirs, sessions.json or openclaw-agent.sqlite (default: discover)",
    )


def _add_session(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("session", metavar="SESSION", help="a transcript path, session key or session id (prefix)")
    parser.add_argument(
        "--in", dest="search", action="append", type=Path, default=[], metavar="PATH",
        help="where to look for SESSION when it is a key (default: the discovered locations)",
    )


def _day(text: str) -> date:
    """``YYYY-MM-DD`` or ``YYYYMMDD`` (as ccusage takes them)."""
    for layout in ("%Y-%m-%d", "%Y%m%d"):
        try:
            return datetime.strptime(text, layout).date()
        except ValueError:
            continue
    raise argparse.ArgumentTypeError(f"{text!r} is not a date (YYYY-MM-DD or YYYYMMDD)")


def launch(paths: Sequence[Path], config: Config, *, force_polling: bool | None = None) -> int:
    """Run the TUI until the user quits; with no place to watch at all, print a hint instead and return 0.

    With a place to watch and no session in it yet, the TUI opens on an empty list that says where it looks,
    and sessions appear as the agent creates them: ctxscope can be started before the agent.
    """
    from engine import discover_sessions
    from tui.app import DEFAULT_WHERE, CtxscopeApp  # Textual loads only for the TUI, not for `status` and friends
    from tui.changes import watch_targets

    paths = list(paths)
    if not watch_targets(paths):  # nothing exists to watch: the agent has never run here
        discovery = discover_sessions(paths or None)
        if not discovery.sessions:
            for problem in discovery.problems:  # the TUI's path is not guarded (Textual draws): one line each here
                print(f"ctxscope: {cell(problem)}", file=sys.stderr)
            where = ", ".join(cell(p) for p in paths) if paths else DEFAULT_WHERE
            print(f"No sessions found in {where}, and none of it exists to watch.\n"
                  "Try `ctxscope demo` to watch a simulated agent, or `ctxscope tui PATH` on a sessions directory.")
            return ExitCode.OK
    refused = terminal_missing()
    if refused is not None:
        print(f"ctxscope: {refused}", file=sys.stderr)
        return ExitCode.USAGE
    CtxscopeApp(paths, config, force_polling=force_polling).run()
    return ExitCode.OK


def terminal_missing() -> str | None:
    """Why the TUI cannot run here, or ``None``: without a terminal on stdin and stdout Textual never sees a key
    and draws into a file (it ran ten minutes at 81% CPU with stdin on /dev/null)."""
    if sys.stdin.isatty() and sys.stdout.isatty():
        return None
    return ("the TUI needs a terminal (stdin and stdout are not one); for scripts use `ctxscope status`, "
            "`ctxscope watch` or `ctxscope report`")


def _run_tui(args: argparse.Namespace, config: Config) -> int:
    if args.paths:
        from tui.cli.read_commands import refuse_named_files  # what `status` refuses, the TUI refuses too

        failed = refuse_named_files(args.paths, config)
        if failed:
            return ExitCode.FAILED
    if getattr(args, "no_auto_checkpoints", False):
        config = replace(config, auto_checkpoints=False)
    return launch(args.paths, config, force_polling=args.force_polling)


def _run_demo(args: argparse.Namespace, config: Config) -> int:
    from tui.demo import run_demo  # Textual and the simulator load only for the demo

    return run_demo(args, config)


def _add_demo(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    demo = sub.add_parser(
        "demo", help="watch a simulated agent: it writes a session into a temporary state dir, the TUI follows it",
        description="A simulated OpenClaw agent writes a pi-format session (tool calls, decisions, a model switch, "
                    "its own compactions) into a temporary OpenClaw-like state dir, and the TUI opens on it. At the "
                    "default pace it crosses 70% and 80% after about 75 s and compacts itself at about 100 s.",
    )
    speed = demo.add_mutually_exclusive_group()
    speed.add_argument("--pace", type=float, default=1.0, metavar="X",
                       help="speed factor of the simulated agent (default: 1.0; 0 = as fast as it can write)")
    speed.add_argument("--fast", action="store_true", help="pace 4: every feature within about 30 s")
    demo.add_argument("--seed", type=int, default=7, help="seed of the simulated session (default: 7)")
    demo.add_argument("--window", type=int, metavar="TOKENS",  # default: sim.simulate.DEMO_WINDOW (128k)
                      help="context window of the simulated model (default: 128k)")
    demo.add_argument("--keep", action="store_true", help="keep the temporary state dir on exit")
    demo.add_argument("--state-dir", type=Path, default=argparse.SUPPRESS, metavar="PATH",
                      help="run in this directory instead of a temporary one (it is kept)")
    demo.add_argument("--no-tui", action="store_true",
                      help="only run the simulated agent, in the foreground (watch it from another terminal)")
    demo.add_argument("--force-polling", action="store_true", default=None,
                      help="poll for changes instead of OS notifications (WSL, network filesystems)")
    demo.set_defaults(handler=_run_demo)


def _add_write_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dry-run", action="store_true", help="show what would be written and change nothing")
    parser.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")


def _add_compaction_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--keep-recent", type=int, metavar="N",
                        help="tokens of recent messages kept verbatim (overrides the layer's budget)")
    parser.add_argument("--controller", choices=("jsonl", "gateway"),
                        help="how to apply it (default: jsonl for JSONL transcripts, gateway for SQLite stores)")
    parser.add_argument("--lock-timeout", type=float, default=10.0, metavar="SECONDS",
                        help="how long to wait for the agent's session lock (default: 10)")
    parser.add_argument("--timeout", type=float, metavar="SECONDS",
                        help="how long OpenClaw's gateway may take to compact (default: config gateway_timeout, 600)")
    parser.add_argument("--json", action="store_true", help="print the plan (and the result) as JSON")
    _add_write_flags(parser)


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, set up when it first formats something. argparse makes one for every argument
    added, only to check its metavar (a method that reads none of its state), and setting one up asks for the
    terminal's width through ``shutil``, whose import (with ``bz2`` and ``lzma``) was about 1.8 ms of every report's
    CPU (docs/usage.md, Speed). Help and usage come out as argparse's own: the same set-up, done later."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        self.__dict__["_deferred"] = (prog, indent_increment, max_help_position, width)

    def __getattr__(self, name: str) -> Any:
        deferred = self.__dict__.pop("_deferred", None)
        if deferred is None:
            raise AttributeError(name)
        super().__init__(*deferred)
        return getattr(self, name)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line that says where the usage is (exit 2, as argparse's)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)  # sub-command parsers are made with this class too
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        # argparse prints the whole usage block first; the one line that matters scrolled past it.
        self.exit(ExitCode.USAGE, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")

    def _check_value(self, action: argparse.Action, value: object) -> None:
        # A mistyped command or choice names the nearest one ("stat" → status) before the list of all of them.
        choices = action.choices
        if choices is None or value in choices or not isinstance(value, str):
            return
        names = [str(choice) for choice in choices]
        import difflib  # only a mistyped command pays for it

        near = difflib.get_close_matches(value, names, n=1, cutoff=0.6)
        hint = f"; did you mean {near[0]}?" if near else ""
        what = "command" if isinstance(action, argparse._SubParsersAction) else "choice"
        raise argparse.ArgumentError(action, f"unknown {what} {value!r}{hint} (choose from {', '.join(names)})")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser with every subcommand; with ``command="report"``, with that one alone (the same parser
    for that command line: its help, its errors and the root's; a report does not pay for building the others:
    docs/usage.md, Speed)."""
    # Subcommand parsers are made with the root parser's class, so they share its one-line errors.
    parser: argparse.ArgumentParser = _Parser(
        prog="ctxscope",
        description="Watch, inspect and control the context window of long-running agent sessions.",
        epilog="Run `ctxscope demo` to see it on a simulated agent. Exit codes: see `ctxscope help-exit-codes`.",
    )
    _add_global_options(parser, default=None)
    # prog: what argparse would work out by formatting the usage of the positionals before the command (there are
    # none), which would set a formatter up.
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", prog=parser.prog)
    if command == "report":
        _add_report(sub)
        return _with_global_options(parser, sub)

    status = sub.add_parser("status", help="one line per session: tokens, window, utilization, compactions")
    _add_paths(status)
    status.add_argument("--json", action="store_true", help="print a JSON list")
    status.add_argument("--full", action="store_true", help="index every line (reports malformed lines; slower)")
    status.set_defaults(handler="tui.cli.read_commands:status")

    inspect = sub.add_parser("inspect", help="the messages in context with ids, roles, tokens, protected/compactable")
    _add_session(inspect)
    inspect.add_argument("--json", action="store_true", help="print a JSON object")
    inspect.add_argument("--keep-recent", type=int, help="protected budget in tokens (default: config, 20000)")
    inspect.set_defaults(handler="tui.cli.read_commands:inspect")

    tui = sub.add_parser("tui", help="the live terminal UI on the given paths (default: discovered sessions)")
    _add_paths(tui)
    tui.add_argument("--force-polling", action="store_true", default=None,
                     help="poll for changes instead of OS notifications (WSL, network filesystems)")
    tui.add_argument("--no-auto-checkpoints", action="store_true",
                     help="write checkpoints only when asked (c); by default the sidecar writes them on triggers")
    tui.set_defaults(handler=_run_tui)

    _add_demo(sub)

    checkpoint = sub.add_parser("checkpoint", help="capture the session and write a checkpoint now (trigger manual)")
    _add_session(checkpoint)
    checkpoint.add_argument("--json", action="store_true", help="print a JSON object")
    checkpoint.add_argument("--enrich", action="store_true",
                            help="merge in decisions found by the LLM in the config's `llm:` section (sends the "
                                 "redacted context to it); written from the heuristics alone if the call fails")
    checkpoint.set_defaults(handler="tui.cli.checkpoint_commands:checkpoint")

    history = sub.add_parser("history", help="checkpoints and compactions of a session")
    _add_session(history)
    history.add_argument("--json", action="store_true", help="print a JSON object")
    history.set_defaults(handler="tui.cli.checkpoint_commands:history")

    diff = sub.add_parser("diff", help="what changed between two checkpoints (default: the last two)")
    _add_session(diff)
    diff.add_argument("a", nargs="?", metavar="A", help="older checkpoint id (cp_003 or 3)")
    diff.add_argument("b", nargs="?", metavar="B", help="newer checkpoint id")
    diff.add_argument("--raw", action="store_true", help="also print the unified YAML diff")
    diff.add_argument("--json", action="store_true", help="print a JSON object (includes the raw diff)")
    diff.set_defaults(handler="tui.cli.checkpoint_commands:diff")

    inject = sub.add_parser("inject", help="append the latest checkpoint to the transcript as a custom message")
    _add_session(inject)
    _add_write_flags(inject)
    inject.set_defaults(handler="tui.cli.checkpoint_commands:inject")

    compact = sub.add_parser("compact", help="compact the context: plan, preview, confirm, then apply")
    _add_session(compact)
    compact.add_argument("--layer", default="summarize", choices=("auto", "prune", "summarize", "full", "drop-only"),
                         help="how to compact (default: summarize; auto picks by utilization)")
    compact.add_argument("--focus", help="what the summary must preserve (goes into its header)")
    compact.add_argument("--llm", action="store_true",
                         help="have the configured LLM (config `llm:`) write the summary; costs a call")
    _add_compaction_flags(compact)
    compact.set_defaults(handler="tui.cli.compact_commands:compact")

    prune = sub.add_parser("prune", help="compact with the prune layer: old tool outputs cleared or trimmed")
    _add_session(prune)
    _add_compaction_flags(prune)
    prune.set_defaults(handler="tui.cli.compact_commands:prune", layer="prune", focus=None)

    watch = sub.add_parser("watch", help="follow sessions live: capture state and write checkpoints on triggers")
    _add_paths(watch)
    watch.add_argument("--once", action="store_true", help="one pass over the sessions, then exit")
    watch.add_argument("--force-polling", action="store_true", help="poll instead of inotify (WSL, network mounts)")
    watch.add_argument("--auto-compact", action="store_true", default=None,
                       help="compact automatically past the configured threshold (config auto_compact; off by default)")
    watch.add_argument("--metrics", metavar="HOST:PORT",
                       help="serve Prometheus metrics at http://HOST:PORT/metrics (a bare PORT listens on 127.0.0.1; "
                            "0.0.0.0:PORT on every interface); see docs/fleet.md")
    watch.set_defaults(handler="tui.cli.watch_command:watch")

    _add_report(sub)

    codes = sub.add_parser("help-exit-codes", help="list the exit codes")
    codes.set_defaults(handler=lambda args, config: print("\n" + exit_codes_help()) or ExitCode.OK)
    return _with_global_options(parser, sub)


def _with_global_options(
    parser: argparse.ArgumentParser, sub: argparse._SubParsersAction[argparse.ArgumentParser]
) -> argparse.ArgumentParser:
    for command in sub.choices.values():
        # Accepted after the subcommand too; SUPPRESS keeps a value given before it.
        _add_global_options(command, default=argparse.SUPPRESS)
    return parser


def _add_report(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    report = sub.add_parser(
        "report",
        help="usage and cost by day, week, month, model, project, agent or session (every store, each call once)",
        description="Input, output and cache tokens, cost (recorded by the agent, else OpenClaw's estimate, else the "
                    "price table — the source is shown), cache-hit ratio and compactions with what they cost, over "
                    "every discovered session and archive; a request found in several files is counted once.",
    )
    _add_paths(report)
    report.add_argument("--by", choices=REPORT_GROUPINGS, default="day", help="how to group (default: day)")
    report.add_argument("--since", type=_day, metavar="DATE", help="first day included (YYYY-MM-DD)")
    report.add_argument("--until", type=_day, metavar="DATE", help="last day included (YYYY-MM-DD)")
    zone = report.add_mutually_exclusive_group()
    zone.add_argument("--utc", action="store_true", help="cut days in UTC (default: the local time zone)")
    zone.add_argument("-z", "--timezone", metavar="ZONE",
                      help="cut days, weeks and months in this IANA time zone (e.g. Europe/Paris)")
    report.add_argument("--recorded-only", action="store_true",
                        help="cost only what the agents recorded: leave out OpenClaw's estimates and list prices "
                             "(calls without a recorded cost are counted as unpriced)")
    report.add_argument("--no-archives", action="store_true",
                        help="leave out archived transcripts (resets, deletions, backups, pre-compaction copies)")
    output = report.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print a JSON object")
    output.add_argument("--csv", action="store_true", help="print CSV (one row per group, then TOTAL)")
    report.set_defaults(handler="tui.cli.report_command:report")


def _add_global_options(parser: argparse.ArgumentParser, *, default: object) -> None:
    taken = {option for action in parser._actions for option in action.option_strings}
    if "--state-dir" not in taken:  # `demo --state-dir` has its own meaning (and the same destination)
        parser.add_argument("--state-dir", type=Path, default=default, metavar="PATH",
                            help="where checkpoints, state and the audit log go")
    parser.add_argument("--config", type=Path, default=default, metavar="PATH",
                        help="the config file (default: $XDG_CONFIG_HOME/ctxscope/config.yaml)")


def _missing_path(args: argparse.Namespace) -> Path | None:
    """The first PATH or --in PATH given on the command line that does not exist."""
    given: list[Path] = [*(getattr(args, "paths", None) or []), *(getattr(args, "search", None) or [])]
    for path in given:
        if not Path(path).expanduser().exists():
            return Path(path)
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ctxscope`` console script."""
    given = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser("report" if given[:1] == ["report"] else None)
    args = parser.parse_args(given)
    if getattr(args, "handler", None) in (None, _run_tui, _run_demo):
        return _run(args)  # the TUI draws the terminal itself, through Textual (docs/hostile-input.md)
    # Every other command's output shows session data, never sends it to the terminal (docs/hostile-input.md).
    with guarded_output():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    """Load the config and run the command ``args`` names."""
    config_file: Path | None = args.config.expanduser() if args.config is not None else None
    if config_file is not None and not config_file.is_file():
        print(f"ctxscope: config file {config_file} does not exist", file=sys.stderr)
        return ExitCode.USAGE
    missing = _missing_path(args)
    if missing is not None:
        print(f"ctxscope: {missing_path_message(missing)}", file=sys.stderr)
        return ExitCode.NOT_FOUND
    try:
        config = load_config(config_file)
    except ConfigError as exc:
        print(f"ctxscope: config error: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    for warning in config.warnings:
        print(f"ctxscope: {warning}", file=sys.stderr)
    if args.state_dir is not None:
        config = replace(config, state_dir=args.state_dir.expanduser())
    named: Handler | str | None = getattr(args, "handler", None)
    handler: Handler | None
    if isinstance(named, str):  # "module:function", imported only when that command runs (fast start-up)
        module_name, _, function = named.partition(":")
        handler = getattr(importlib.import_module(module_name), function)
    else:
        handler = named
    if handler is None:  # bare `ctxscope`: the TUI on discovered sessions
        args.paths, args.force_polling = [], None
        handler = _run_tui
    try:
        return handler(args, config)
    except BrokenPipeError:
        return ExitCode.OK
    except KeyboardInterrupt:
        return 130  # the shell's status for an interrupt (128 + SIGINT), not one of ctxscope's outcomes
    except _failures() as exc:  # evaluated only when an exception gets this far
        # Files changing or vanishing under a command (a transcript truncated or replaced mid-read, a state dir
        # that turned read-only, a .lock that is a directory) are reported in one line, never as a traceback.
        print(f"ctxscope: {_one_line(exc)}", file=sys.stderr)
        return ExitCode.FAILED


def _failures() -> tuple[type[BaseException], ...]:
    """What a command reports in one line. Imported when an exception needs it: the lock and transcript modules
    are not otherwise loaded by a report over Claude Code or Codex files (docs/usage.md, Speed)."""
    from engine import LockError, TranscriptError

    return OSError, RuntimeError, TranscriptError, LockError


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror and not str(exc).startswith(exc.strerror):
        return f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
    return " ".join(str(exc).split()) or type(exc).__name__


if __name__ == "__main__":
    sys.exit(main())
