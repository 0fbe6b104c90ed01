"""Bounds on the numbers a transcript or an agent's config gives ctxscope: token counts, windows, costs.

Those numbers are hostile input (docs/formats.md, Number bounds): a ``usage.input`` of ``2**70`` overflowed the
persistent index's 64-bit JSON, a negative count subtracted from fleet totals, a cost of ``1e308`` summed to
``inf``. Every reader takes them through these functions; a value outside its bound counts as absent, and the
reader says so for that session instead of letting it reach a sum.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["MAX_COST_USD", "MAX_TOKENS", "cost_usd", "out_of_bounds", "token_count", "window_tokens"]

MAX_TOKENS = 1_000_000_000
"""The largest token count (one call's usage field, a window, ``tokensBefore``) taken as real: 1,000× the largest
windows sold today, and far enough below 2**63 that a million sessions' sums still fit 64-bit JSON."""

MAX_COST_USD = 1_000_000.0
"""The largest cost (USD) one call or one session may record."""


def token_count(value: Any) -> int | None:
    """``value`` as a token count: a non-negative whole number ≤ :data:`MAX_TOKENS` (a float is truncated),
    else ``None`` (absent, mistyped, negative, NaN, infinite or too large)."""
    if type(value) is int:  # exact type: excludes bool
        return value if 0 <= value <= MAX_TOKENS else None
    if type(value) is float and math.isfinite(value) and 0 <= value <= MAX_TOKENS:
        return int(value)
    return None


def window_tokens(value: Any) -> int | None:
    """``value`` as a context window: a positive token count ≤ :data:`MAX_TOKENS`, else ``None``."""
    tokens = token_count(value)
    return tokens if tokens else None


def cost_usd(value: Any) -> float | None:
    """``value`` as a cost in USD: a finite number in ``[0, MAX_COST_USD]``, else ``None``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, int):
        return float(value) if 0 <= value <= MAX_COST_USD else None
    return value if math.isfinite(value) and 0 <= value <= MAX_COST_USD else None


_USAGE_FIELDS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")


def out_of_bounds(message: Any) -> list[str]:
    """The usage fields of an assistant ``message`` that hold a number outside its bound (named for the report)."""
    usage = message.get("usage") if isinstance(message, dict) else None
    if not isinstance(usage, dict):
        return []
    bad = [f"usage.{name}" for name in _USAGE_FIELDS
           if _is_number(usage.get(name)) and token_count(usage.get(name)) is None]
    cost = usage.get("cost")
    total = cost.get("total") if isinstance(cost, dict) else None
    if _is_number(total) and cost_usd(total) is None:
        bad.append("usage.cost.total")
    return bad


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
