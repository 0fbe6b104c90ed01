"""The ``metrics:`` config section: what ``ctxscope watch --metrics`` exports (see ``docs/fleet.md``).

Example::

    metrics: {idle_after: 24h, host: build-runner-7}
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["DEFAULT_IDLE_AFTER_SECONDS", "MetricsSettings", "metrics_settings_from", "parse_duration"]

DEFAULT_IDLE_AFTER_SECONDS = 24 * 3600.0
"""Sessions quiet for longer than this leave the exposition: label cardinality stays bounded on busy hosts."""

_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_DURATION = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*")
_HOST_LABEL_MAX = 128


@dataclass(frozen=True, slots=True)
class MetricsSettings:
    """Settings of the Prometheus exporter."""

    idle_after_seconds: float = DEFAULT_IDLE_AFTER_SECONDS
    """Sessions whose last activity is older than this are not exported."""
    host: str | None = None
    """The ``host`` label; ``None`` = this machine's host name."""


def parse_duration(name: str, value: Any) -> float:
    """Seconds from a number of seconds or a string such as ``90s``, ``15m``, ``24h``, ``7d``.

    Raises:
        ValueError: not a positive duration (the message names the key).
    """
    seconds: float | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        seconds = float(value)
    elif isinstance(value, str) and (match := _DURATION.fullmatch(value)):
        seconds = float(match.group(1)) * _UNITS[match.group(2) or "s"]
    if seconds is None or not seconds > 0 or seconds == float("inf"):
        raise ValueError(f"{name}: expected a positive duration such as 3600, 90m, 24h or 7d, got {value!r}")
    return seconds


def metrics_settings_from(data: Mapping[str, Any]) -> tuple[MetricsSettings, list[str]]:
    """The settings of the ``metrics:`` section and warnings about unknown keys.

    Raises:
        ValueError: a value has the wrong type or range (the message names the key).
    """
    settings = MetricsSettings()
    notes: list[str] = []
    for key, value in data.items():
        if key == "idle_after":
            settings = MetricsSettings(parse_duration("metrics.idle_after", value), settings.host)
        elif key == "host":
            if not isinstance(value, str) or not value.strip() or len(value) > _HOST_LABEL_MAX:
                raise ValueError(f"metrics.host: expected a non-empty name of at most {_HOST_LABEL_MAX} characters, "
                                 f"got {value!r}")
            settings = MetricsSettings(settings.idle_after_seconds, value.strip())
        else:
            notes.append(f"unknown key metrics.{key} (ignored)")
    return settings, notes
