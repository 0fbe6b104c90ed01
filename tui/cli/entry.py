"""The ``ctxscope`` console script: a repeated ``report`` is answered before anything else is imported.

A warm report's work is a ``stat`` of every file it covers; importing the command line and the engine took longer
than that (docs/usage.md, Speed). So this entry looks for the report's invocation record
(:mod:`tui.cli.report_memo`) first, importing nothing else, and hands every other command line — and a report
the record cannot answer — to :func:`tui.cli.main.main`.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing itself is not imported on the way to a warm report
if TYPE_CHECKING:
    from typing import NoReturn

__all__ = ["main", "run_command"]


def _answered(args: list[str]) -> int | None:
    """Print a repeated report from its invocation record and give its exit code, or ``None`` when the record
    cannot answer ``args``."""
    from tui.cli.report_memo import answer_invocation

    found = answer_invocation(args, os.environ)
    if found is None:
        return None
    code, out, err = found
    try:
        # Stored as the guarded streams showed it (tui/cli/terminal_output.py): shown again as it is.
        sys.stdout.write(out)
        sys.stdout.flush()
        sys.stderr.write(err)
        sys.stderr.flush()
    except BrokenPipeError:
        # The reader went away (`ctxscope report | head`): no failure, as for the full command line; the
        # exit's own flush must not complain either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return code


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``ctxscope`` command."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args[:1] == ["report"]:
        code = _answered(args)
        if code is not None:
            return code
        from tui.cli.report_command import expect_invocation

        expect_invocation(args)
    from tui.cli.main import main as run

    return run(args)


def run_command() -> NoReturn:
    """What the installed ``ctxscope`` script runs: :func:`main`, except that a report ends the process as soon as
    its output is flushed. A report answered from its record ran nothing else (no thread, no file open, no exit
    handler), and the interpreter's own teardown was a tenth of a warm report's time; a report that ran has
    written its index and memo files whole (atomic writes) and reaped its worker, and freeing the calls it read
    one object at a time took about 14 ms of a cold report's 250 (docs/usage.md, Speed)."""
    args = sys.argv[1:]
    if args[:1] != ["report"]:
        sys.exit(main(args))
    code = _answered(args)
    if code is None:
        # The collector off from the first import on (report_command.report turns it off while reading): class
        # creation and the report allocate many containers and no cycles a short process needs freed; about 2 ms
        # of the imports' 45 (docs/usage.md, Speed).
        import gc  # not before: a replayed report does not load it

        gc.disable()
        code = main(args)
        if not _alone():
            sys.exit(code)
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BrokenPipeError:
            code = 0  # as the full command line says when the reader went away (`ctxscope report | head`)
    os._exit(code)


def _alone() -> bool:
    """Whether nothing but this thread runs and nothing waits for the interpreter's exit: an exit handler or
    another thread (the TUI's, a library's) keeps the ordinary exit."""
    import atexit

    threading = sys.modules.get("threading")
    return (threading is None or threading.active_count() == 1) and atexit._ncallbacks() == 0
