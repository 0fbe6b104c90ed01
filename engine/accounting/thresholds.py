"""The gauge's thresholds: the part of the gauge the config holds (docs/context-accounting.md, Gauge).

A module of its own so that loading the config does not import the gauge and the window resolution behind it:
a report loads the config and never draws a gauge (docs/usage.md, Speed).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.agents.pi.config import PI_DEFAULT_RESERVE

__all__ = ["Thresholds"]


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Gauge thresholds as fractions of the window (all configurable)."""

    gauge: float = 0.70
    checkpoint: float = 0.80
    rolling: tuple[float, ...] = (0.25, 0.50, 0.75)
    flush: tuple[float, ...] = (0.50, 0.75, 0.90)
    pre_compaction_margin: float = 0.05
    """Write a checkpoint once utilization is within this fraction of the window below the compaction line."""
    reserve_tokens: int = PI_DEFAULT_RESERVE
    """pi's ``compaction.reserveTokens``."""
