"""``ctxscope report``: tokens, cost, cache hits and compactions by day, week, month, model, project, agent or
session."""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING

from engine import money, percent
from tui.cli.exit_codes import ExitCode
from tui.cli.index_cache import stderr_cache
from tui.cli.report_memo import (
    Walk,
    invocation_key,
    load_output,
    save_invocation,
    save_output,
    stamp_of,
    take_listing,
)
from tui.cli.terminal_output import cell, guarded_buffers, json_text, spreadsheet_cell

if TYPE_CHECKING:  # the engine's usage modules are imported when a report runs, not when its memo answers
    from engine import Config, IndexCache, UsageReport, UsageTotals

__all__ = ["expect_invocation", "report", "report_table"]

_SOURCE = {"recorded": "recorded", "estimated": "estimated", "price-table": "table", "mixed": "mixed",
           "unknown": "unknown", "none": "-"}


def _money(value: float) -> str:
    return money(value)


def _cells(key: str, t: UsageTotals) -> list[str]:
    hit = t.cache_hit_ratio
    unpriced = f" +{t.unpriced_calls} unpriced" if t.unpriced_calls else ""
    compaction_cost = _money(t.compaction_cost_usd) + (f" +{t.unpriced_compactions}?" if t.unpriced_compactions
                                                       else "")
    return [key, f"{t.calls:,}", f"{t.input:,}", f"{t.output:,}", f"{t.cache_read:,}", f"{t.cache_write:,}",
            f"{t.tokens:,}", _money(t.cost_usd) + unpriced, _SOURCE[t.cost_source],
            percent(hit), f"{t.compactions:,}", compaction_cost if t.compactions else "-"]


def report_table(result: UsageReport) -> str:
    """The report as an aligned text table with a total line."""
    header = [result.by.upper(), "CALLS", "INPUT", "OUTPUT", "CACHE READ", "CACHE WRITE", "TOTAL", "COST", "SOURCE",
              "CACHE HIT", "COMPACTIONS", "COMPACTION COST"]
    body = [_cells(cell(row.key), row.totals) for row in result.rows]  # a model or project is one line
    total = _cells("TOTAL", result.total)
    rows = [header, *body, total]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(widths[i]) if i in (0, 8) else c.rjust(widths[i]) for i, c in enumerate(cells))

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), rule, *(line(r) for r in body), rule, line(total)])


def _csv(result: UsageReport) -> None:
    import csv  # only --csv pays for it

    writer = csv.writer(sys.stdout, lineterminator="\n")
    fields = list(result.total.to_dict())
    writer.writerow([result.by, *fields])
    for row in [*((r.key, r.totals) for r in result.rows), ("TOTAL", result.total)]:
        values = row[1].to_dict()
        writer.writerow([spreadsheet_cell(row[0]),
                         *(spreadsheet_cell("" if values[f] is None else values[f]) for f in fields)])


def _zone(utc: bool, name: str | None) -> tzinfo:
    """The zone days are cut in. Raises ValueError: ``name`` is no IANA zone this machine knows."""
    if name == "UTC":
        return UTC
    if name is not None:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError  # the zone database only when a zone is named

        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError) as exc:  # ValueError: a path-like or empty key
            raise ValueError(name) from exc
    return UTC if utc else datetime.now().astimezone().tzinfo or UTC


_invocation: list[str] | None = None
"""The command line as typed, when the console script ran it (:func:`expect_invocation`)."""


def expect_invocation(argv: list[str]) -> None:
    """The console script is about to run ``argv`` (a report its invocation record did not answer): the report
    stores one for the next time (:mod:`tui.cli.report_memo`)."""
    global _invocation
    _invocation = list(argv)


def report(args: argparse.Namespace, config: Config) -> int:
    """``ctxscope report``: aggregate every session's calls (each request once) and print them grouped; the same
    output as last time when nothing it reads has changed (:mod:`tui.cli.report_memo`)."""
    cache = stderr_cache()
    # Beside the index, not in it: the index directory holds index files only.
    directory = cache.directory.parent / "reports" if cache.enabled and cache.directory is not None else None
    if args.paths:
        roots = [Path(p) for p in args.paths]
    else:
        from engine.agents.discovery import default_roots

        roots = list(default_roots())
    try:
        tz = _zone(args.utc, args.timezone)
        zone = f"{tz}|{tz.utcoffset(datetime.now())}|{tz.tzname(datetime.now())}"
    except ValueError:
        zone = "not a zone"  # the run itself says so
    options = [f"{k}={v}" for k, v in sorted(vars(args).items()) if k not in ("handler", "paths")]
    options += [f"zone={zone}", *sorted(f"{k}={v}" for k, v in os.environ.items() if k.startswith("CTXSCOPE_"))]
    files = (str(args.config.expanduser() if args.config is not None else _config_file()),)
    # One walk of the roots serves both records — the stamp of the output and the invocation's listing — and
    # discovery, when the report runs (docs/usage.md, Speed).
    walk: Walk = ({}, {})
    listing = take_listing([str(r) for r in roots], files, walk) if directory is not None else None
    stamp = stamp_of(listing, options) if listing is not None else None
    global _invocation
    invocation, _invocation = _invocation, None  # one command line, one report
    fast = (listing if listing is not None and not listing[3] and invocation is not None
            and args.timezone in (None, "UTC") and not config.warnings else None)
    stored = load_output(directory, options, stamp) if stamp is not None and directory is not None else None
    if stored is None:
        # Guarded as they are written (docs/hostile-input.md): what is stored is what the terminal was shown, each
        # stderr message one line, so a replay by the entry path, which imports no guard, shows the same.
        out, err, shown_out, shown_err = guarded_buffers()
        # No cyclic garbage collection while the report runs: it allocates hundreds of thousands of containers
        # (each parsed line, each call) that hold no cycles, and the collector's passes over them were 4–6 % of a
        # cold report's CPU and freed nothing (docs/usage.md, Speed). Reference counting still frees them.
        collecting = gc.isenabled()
        gc.disable()
        try:
            with contextlib.redirect_stdout(shown_out), contextlib.redirect_stderr(shown_err):
                code = _report(args, cache, walk if listing is not None else None)
        finally:
            if collecting:
                gc.enable()
        stored = (code, out.getvalue().encode(), err.getvalue().encode())
        if stamp is not None and directory is not None and cache.enabled:  # a run that lost its cache says so once
            save_output(directory, options, stamp, stored)
        else:
            fast = None
    sys.stdout.write(stored[1].decode())
    for message in stored[2].decode().splitlines(keepends=True):
        sys.stderr.write(message)
    if fast is not None and invocation is not None and directory is not None:
        save_invocation(directory, invocation_key(invocation, os.environ), fast,
                        (int(stored[0]), stored[1].decode(), stored[2].decode()))
    return stored[0]


def _config_file() -> Path:
    from engine.config.loader import config_path

    return config_path()


def _split_at() -> int | None:
    """From how many files the index cannot answer a report reads them over two processes (docs/usage.md,
    Speed): ``CTXSCOPE_SPLIT_AT`` (a count; ``0``: never), else the engine's default."""
    from engine.usage.collect import SPLIT_AT

    value = os.environ.get("CTXSCOPE_SPLIT_AT", "").strip()
    if not value.isdigit():
        return SPLIT_AT
    return int(value) or None


def _report(args: argparse.Namespace, cache: IndexCache, walk: Walk | None = None) -> int:
    from engine import aggregate_usage, catalog_info, collect_usage, discover_sessions

    if args.since is not None and args.until is not None and args.since > args.until:
        # Both dates are inclusive: reversed, they select nothing, and an empty table reads as "no usage".
        print(f"ctxscope report: --since {args.since} is after --until {args.until}; swap them "
              "(both days are included)", file=sys.stderr)
        return ExitCode.USAGE
    try:
        tz = _zone(args.utc, args.timezone)
    except ValueError:
        print(f"ctxscope report: --timezone {args.timezone!r} is not an IANA time zone (e.g. UTC, Europe/Paris, "
              "America/New_York)", file=sys.stderr)
        return ExitCode.USAGE
    discovery = discover_sessions(args.paths or None, walked=walk)
    for problem in discovery.problems:
        print(f"ctxscope: {problem}", file=sys.stderr)
    usages, problems = collect_usage(discovery, cache, archives=not args.no_archives, split_at=_split_at())
    for problem in problems:
        print(f"ctxscope: {problem}", file=sys.stderr)
    result = aggregate_usage(usages, args.by, tz=tz, since=args.since, until=args.until,
                             recorded_only=args.recorded_only)
    if args.json:
        sys.stdout.write(json_text(result.to_dict()) + "\n")
    elif args.csv:
        _csv(result)
    elif not usages and (problems or discovery.problems):
        print(f"No session could be read ({len(problems) + len(discovery.problems)} problem(s) above).",
              file=sys.stderr)
    elif not usages:
        print("No sessions found. Try `ctxscope demo`, or pass a sessions directory.")
    else:
        print(report_table(result))
        notes = [f"{result.sessions:,} session{'s' if result.sessions != 1 else ''}",
                 f"days in {result.timezone}"]
        if result.duplicate_calls:
            notes.append(f"{result.duplicate_calls:,} calls found in more than one file counted once")
        if result.recorded_only:
            left_out = result.total.unpriced_calls
            print("\n" + "; ".join(notes) + ". Cost: only what the agents recorded; estimates (OpenClaw's, list "
                  f"prices, compactions' cache writes) left out: {left_out:,} call{'s' if left_out != 1 else ''} "
                  "with no recorded cost count as unpriced.")
        else:
            print("\n" + "; ".join(notes) + ". Cost: recorded by the agent, else OpenClaw's estimate, else list "
                  f"prices from the model catalogue ({catalog_info().source.split(' (')[0]}, "
                  f"{catalog_info().retrieved}; 5-minute cache writes); compaction cost = the cache write of the new "
                  "prefix (part of COST).")
    if problems and usages:
        # A file that could not be read is never a session with no cost: it is named above and the run fails.
        print(f"{len(problems)} file(s) could not be read and are not counted (named above).", file=sys.stderr)
    return ExitCode.FAILED if problems or (discovery.problems and not usages) else ExitCode.OK
