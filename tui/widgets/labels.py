"""Short human labels for sessions and times, shared by the tables and cards."""

from __future__ import annotations

from datetime import datetime

from engine import SessionSource
from engine import money as rounded_money

__all__ = ["ago", "duration", "money", "session_label", "shorten", "shorten_middle"]


def shorten(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` cells with an ellipsis."""
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


def shorten_middle(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` cells by dropping its middle, so both ends (name, id, suffix) stay."""
    if len(text) <= limit:
        return text
    head = (limit - 1) // 2
    return text[:head] + "…" + text[len(text) - (limit - 1 - head):]


def session_label(source: SessionSource, limit: int = 32) -> str:
    """The session key, or the file name when the key is only a path (headerless transcripts); a copy's key with
    the folder it is in."""
    key = source.key
    if key == str(source.path) or "/" in key:
        key = source.path.name.removesuffix(".jsonl")
    if source.shared_key:  # one of several copies with this key: its folder tells it apart, as `status` does
        where = f" in {source.path.parent.name}/"
        return shorten(key, max(limit - len(where), 8)) + where
    return shorten(key, limit)


def ago(then: datetime | None, now: datetime) -> str:
    """How long before ``now`` ``then`` was: ``just now``, ``5m ago``, ``3h ago``, ``4d ago``, else the date."""
    if then is None:
        return "-"
    seconds = (now - then).total_seconds()
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)}m ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)}h ago"
    if seconds < 30 * 86400:
        return f"{int(seconds // 86400)}d ago"
    return then.strftime("%Y-%m-%d")


def money(usd: float | None, *, short: bool = False) -> str:
    """US dollars as every view rounds them (:func:`engine.accounting.rounding.money`); ``short`` is accepted for
    narrow columns and rounds the same (a list that says "$11" beside a header's "$10.62" reads as two figures)."""
    del short
    return rounded_money(usd)


def duration(seconds: float) -> str:
    """A span of time in its largest unit: ``42s``, ``5m``, ``3h``, ``4d``."""
    seconds = max(seconds, 0.0)
    if seconds < 120:
        return f"{int(seconds)}s"
    if seconds < 7200:
        return f"{int(seconds // 60)}m"
    if seconds < 2 * 86400:
        return f"{int(seconds // 3600)}h"
    return f"{int(seconds // 86400)}d"
