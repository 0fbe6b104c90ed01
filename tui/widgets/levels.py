"""How levels look: the theme variable and the words for each gauge level and degradation risk level.

Levels are the engine's (:data:`~engine.accounting.gauge.GaugeLevel`, :data:`~engine.compaction.degradation.Level`);
colours are
theme variables so every theme works.
"""

from __future__ import annotations

from engine import GaugeLevel

__all__ = ["LEVEL_COLOR", "LEVEL_SHORT", "LEVEL_TEXT", "RISK_COLOR", "marker_glyph"]

LEVEL_COLOR: dict[GaugeLevel, str] = {
    "unknown": "primary",
    "ok": "success",
    "gauge": "warning",
    "checkpoint": "warning",
    "near-compaction": "error",
    "over-compaction": "error",
}
"""Theme variable (without ``$``) that colours a gauge at this level."""

LEVEL_TEXT: dict[GaugeLevel, str] = {
    "unknown": "unknown after compaction",
    "ok": "below the gauge line",
    "gauge": "gauge shown to the agent",
    "checkpoint": "past the checkpoint line",
    "near-compaction": "near the agent's compaction line",
    "over-compaction": "over the agent's compaction line",
}

LEVEL_SHORT: dict[GaugeLevel, str] = {
    "unknown": "unknown",
    "ok": "below gauge",
    "gauge": "gauge shown",
    "checkpoint": "past checkpoint",
    "near-compaction": "near compaction",
    "over-compaction": "over compaction",
}

RISK_COLOR: dict[str, str] = {
    "low": "success",
    "medium": "warning",
    "high": "error",
    "critical": "error",
}
"""Theme variable (without ``$``) of each degradation level (``evaluate_degradation``)."""

_GLYPHS = {"gauge": "G", "checkpoint": "C", "compaction": "K", "pre-compaction": "M"}


def marker_glyph(name: str) -> str:
    """The one-letter tick of an engine gauge marker (``flush-50`` → ``F``)."""
    return "F" if name.startswith("flush-") else _GLYPHS.get(name, "·")
