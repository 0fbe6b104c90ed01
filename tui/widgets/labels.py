"""Short human labels for sessions and times, shared by the tables and cards."""

from __future__ import annotations

from datetime import datetime

from engine import SessionSource

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
    """The session key, or the file name when the key is only a path (headerless transcripts)."""
    key = source.key
    if key == str(source.path) or "/" in key:
        key = source.path.name.removesuffix(".jsonl")
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
    """US dollars: ``$4.29``, ``$0.0081`` (small sums keep two significant digits; ``short``: cents at most)."""
    if usd is None:
        return "-"
    if usd >= 100 or (short and usd >= 10):
        return f"${usd:,.0f}"
    if usd >= 0.1 or usd == 0 or (short and usd >= 0.005):
        return f"${usd:.2f}"
    if short:
        return "<1¢"
    return f"${usd:.2g}" if usd >= 0.0001 else "<$0.0001"


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
