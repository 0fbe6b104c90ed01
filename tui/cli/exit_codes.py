"""The exit codes of every ``ctxscope`` command, defined once (``ctxscope help-exit-codes`` prints them)."""

from __future__ import annotations

from enum import IntEnum

__all__ = ["ExitCode", "exit_codes_help", "looks_like_path", "missing_path_message"]


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
    ExitCode.UNCONFIRMED: "not confirmed (declined at the prompt, or no terminal to ask and no --yes)",
}


_PATH_SUFFIXES = (".jsonl", ".json", ".sqlite", ".db")


def looks_like_path(spec: str) -> bool:
    """Whether a SESSION argument names a file rather than a key or id: a separator, ``~``, ``.`` or a store suffix.

    Keys and ids never end in a store's suffix; a key with a ``/`` that matches is still found first (the caller
    asks only after the lookup failed).
    """
    return "/" in spec or spec.startswith(("~", ".")) or spec.lower().endswith(_PATH_SUFFIXES)


def missing_path_message(path: object) -> str:
    """The one wording of a path that does not exist, whichever command was given it (exit :attr:`NOT_FOUND`)."""
    return f"{path}: no such file or directory"


def exit_codes_help() -> str:
    """One line per code, as ``help-exit-codes`` prints them."""
    return "\n".join(f"    {code.value}  {code.meaning}" for code in ExitCode)
