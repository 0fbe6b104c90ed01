"""Bounded polling for the OpenClaw suite (never an unbounded wait, never a fixed sleep that races)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(probe: Callable[[], T | None], timeout_s: float, what: str, interval_s: float = 0.5) -> T:
    """Call ``probe`` until it returns something other than None or False; that value is returned.

    Raises:
        AssertionError: ``timeout_s`` passed first (the message names ``what``).
    """
    deadline = time.monotonic() + timeout_s
    while True:
        value = probe()
        if value is not None and value is not False:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout_s:g} s for {what}")
        time.sleep(interval_s)
