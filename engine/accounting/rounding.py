"""How money and shares are rounded for display: one function each, for every view, command and JSON text.

Before, the session list rounded to whole dollars past $10 ("$11") while the header and ``report`` kept cents
("$10.62"), and the cache-hit ratio read 93.5% in ``report`` but 94% in the TUI.
"""

from __future__ import annotations

__all__ = ["money", "percent"]


def money(usd: float | None) -> str:
    """US dollars in cents with thousands separators (``$10.62``, ``$1,234.50``); below a cent, two significant
    digits (``$0.0081``); ``-`` when unknown."""
    if usd is None:
        return "-"
    if usd >= 0.01 or usd == 0:
        return f"${usd:,.2f}"
    return f"${usd:.2g}" if usd >= 0.0001 else "<$0.0001"


def percent(fraction: float | None) -> str:
    """A share (0–1) with one decimal, a whole one without it: ``93.5%``, ``40%``; ``-`` when unknown.

    Utilization keeps whole percents: it is the gauge's own figure.
    """
    if fraction is None:
        return "-"
    text = f"{fraction * 100:.1f}"
    return (text[:-2] if text.endswith(".0") else text) + "%"
