"""Asking before a write: yes with ``--yes``, a prompt on a terminal, a refusal without one (docs/architecture.md)."""

from __future__ import annotations

import sys


def confirm(question: str, *, yes: bool) -> bool:
    """True to go ahead. Without ``yes`` and without a terminal to ask on, refuse and say how to proceed."""
    if yes:
        return True
    if not sys.stdin.isatty():
        print("ctxscope: not confirmed: no terminal to ask on. Re-run with --yes to proceed, or --dry-run to "
              "preview.", file=sys.stderr)
        return False
    try:
        answer = input(f"{question} [y/N] ")
    except EOFError:
        answer = ""
    if answer.strip().lower() in ("y", "yes"):
        return True
    print("Not confirmed: nothing written.", file=sys.stderr)
    return False
