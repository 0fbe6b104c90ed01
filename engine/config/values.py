"""How config errors quote the value they refuse: one line, whatever the value is."""

from __future__ import annotations

from typing import Any

__all__ = ["show", "show_key"]


def show(value: Any) -> str:
    """A ``repr`` of ``value`` cut to 60 characters (a refused value may be huge, or hold newlines)."""
    text = " ".join(repr(value).split())
    return text if len(text) <= 60 else text[:57] + "..."


def show_key(key: Any) -> str:
    """A config key as written (not quoted), cut to 60 characters on one line."""
    text = " ".join(str(key).split())
    return text if len(text) <= 60 else text[:57] + "..."
