"""The length of a value as JavaScript's ``JSON.stringify`` prints it, which is what pi measures tool-call
arguments by (docs/context-accounting.md, The agent's estimate).

orjson prints the same text as ``JSON.stringify`` for strings, integers, booleans, null, arrays and objects
(compact, non-ASCII unescaped, the same control-character escapes). Only numbers that parse as floats differ:
JavaScript has one number type and prints ``1.0`` as ``1``, ``1e21`` as ``1e+21``, ``1e-5`` as ``0.00001`` and
``-0`` as ``0`` (ECMAScript's Number::toString), where orjson keeps a float's ``.0`` and its own exponent style.
"""

from __future__ import annotations

import math
from typing import Any

import orjson

__all__ = ["js_json_length", "js_number"]


def js_number(x: float) -> str:
    """``JSON.stringify(x)`` for a number: ECMAScript's Number::toString, ``null`` for NaN and infinities."""
    if not math.isfinite(x):
        return "null"
    if x == 0:
        return "0"  # also -0
    sign = "-" if x < 0 else ""
    # repr gives the shortest digits that round-trip, as JavaScript does; only the layout differs.
    mantissa, _, exponent = repr(abs(x)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    point = len(whole) + (int(exponent) if exponent else 0)  # x = 0.<digits> × 10^point
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    k, n = len(digits), point
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * -n + digits
    e = n - 1
    tail = "." + digits[1:] if k > 1 else ""
    return f"{sign}{digits[0]}{tail}e{'+' if e >= 0 else '-'}{abs(e)}"


def _float_difference(value: Any) -> int:
    """How many characters longer ``JSON.stringify`` prints the floats inside ``value`` than orjson does."""
    if type(value) is float:
        return len(js_number(value)) - len(orjson.dumps(value))
    if type(value) is dict:
        return sum(_float_difference(v) for v in value.values() if type(v) in (float, dict, list))
    if type(value) is list:
        return sum(_float_difference(v) for v in value if type(v) in (float, dict, list))
    return 0


def js_json_length(value: Any) -> int | None:
    """``JSON.stringify(value).length`` in UTF-16 units, or ``None`` when the value is not JSON data."""
    try:
        text = orjson.dumps(value).decode()
    except TypeError:
        return None
    units = len(text) if text.isascii() else len(text.encode("utf-16-le")) // 2
    return units + _float_difference(value)
