"""The exit codes of every ``ctxscope`` command, defined once (``ctxscope help-exit-codes`` prints them)."""

from __future__ import annotations

from enum import IntEnum

__all__ = ["ExitCode", "exit_codes_help"]


class ExitCode(IntEnum):
    """What a command's exit status means; scripts branch on these numbers, so they never change."""

    OK = 0
    FAILED = 1
    USAGE = 2
    NOT_FOUND = 3
    REFUSED = 4
    UNCONFIRMED = 5

    @property
    def meaning(self) -> str:
        return _MEANINGS[self]


_MEANINGS = {
    ExitCode.OK: "success",
    ExitCode.FAILED: "an operation failed (the message says why)",
    ExitCode.USAGE: "usage error (bad arguments, bad config)",
    ExitCode.NOT_FOUND: "no session matches the given SESSION, or a given PATH does not exist",
    ExitCode.REFUSED: "refused: read-only store, nothing to compact, lock held by a live process, guard tripped",
    ExitCode.UNCONFIRMED: "not confirmed (declined at the prompt, or no terminal to ask and no ``--yes``)",
}


def exit_codes_help() -> str:
    """One line per code, as ``help-exit-codes`` prints them."""
    return "\n".join(f"    {code.value}  {code.meaning}" for code in ExitCode)
