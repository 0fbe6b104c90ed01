"""The index cache as the command line uses it: the user's cache, whose problems are said once on stderr."""

from __future__ import annotations

import sys

from engine import IndexCache, default_cache

__all__ = ["stderr_cache"]


def stderr_cache() -> IndexCache:
    """The user's index cache; if it cannot be written, ``ctxscope`` says so once on stderr and goes on without it."""
    return default_cache(warn=lambda problem: print(f"ctxscope: {problem}", file=sys.stderr))
