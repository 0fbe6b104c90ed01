"""The context gauge: utilization against the thresholds that matter (docs/context-accounting.md, Gauge).

Markers on the gauge: the 70% line where the agent is shown the gauge, the 80% checkpoint line, the
memory-flush points, and the agent's own compaction line (``window − reserve``), which on small windows can
sit far below 80% — the reason a checkpoint is also written within a margin of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from engine.accounting.thresholds import Thresholds
from engine.accounting.windows import ContextWindow
from engine.agents.pi.config import PI_DEFAULT_RESERVE

__all__ = [
    "GaugeLevel",
    "GaugeReading",
    "Marker",
    "Thresholds",
    "compaction_line",
    "format_tokens",
    "read_gauge",
]

GaugeLevel = Literal["unknown", "ok", "gauge", "checkpoint", "near-compaction", "over-compaction"]


@dataclass(frozen=True, slots=True)
class Marker:
    """A labelled position on the gauge."""

    name: str
    fraction: float
    tokens: int


@dataclass(frozen=True, slots=True)
class GaugeReading:
    """Utilization of one context, with the lines it is measured against."""

    tokens: int | None
    """Context tokens, ``None`` when unknown after a compaction."""
    window: ContextWindow
    compaction_line: int
    """Tokens above which the agent compacts on its own (``window − reserve``); the window when it never does."""
    markers: tuple[Marker, ...] = field(default=())
    compaction_enabled: bool = True
    """False when the agent's auto-compaction is switched off (pi's ``compaction.enabled``)."""
    line_known: bool = True
    """False when the agent compacts at a line its files do not say (Codex without ``model_auto_compact_token_limit``):
    no compaction marker is drawn, and the line is said to be unknown rather than never."""
    unknown_reason: str = "after compaction"
    """Why :attr:`tokens` is ``None``, as the gauge line says it: pi and OpenClaw know a context's size except right
    after a compaction; a Claude Code or Codex session has none before its first reported usage."""

    @property
    def utilization(self) -> float | None:
        """Fraction of the window in use, or ``None`` when unknown."""
        if self.tokens is None or self.window.tokens <= 0:
            return None
        return self.tokens / self.window.tokens

    @property
    def level(self) -> GaugeLevel:
        """The highest line crossed."""
        if self.tokens is None:
            return "unknown"
        if self.tokens > self.compaction_line:
            return "over-compaction"
        by_name = {m.name: m for m in self.markers}
        margin = by_name.get("pre-compaction")
        if margin is not None and self.tokens >= margin.tokens:
            return "near-compaction"
        if self.tokens >= by_name["checkpoint"].tokens:
            return "checkpoint"
        if self.tokens >= by_name["gauge"].tokens:
            return "gauge"
        return "ok"

    @property
    def compaction_text(self) -> str:
        """Where the agent compacts, as every view says it: tokens, ``never`` (switched off) or ``unknown``."""
        if not self.compaction_enabled:
            return "never" if self.line_known else "unknown"
        return f"{self.compaction_line:,}"

    @property
    def unknown_text(self) -> str:
        """What every view says when :attr:`tokens` is ``None``: ``unknown after compaction`` and the like."""
        return f"unknown {self.unknown_reason}"

    def line(self, status: str | None = None) -> str:
        """The gauge line as the agent would see it: ``[Context: 81% | 162k/200k tokens | Checkpoint saved]``."""
        window = format_tokens(self.window.tokens)
        if self.tokens is None:
            core = f"[Context: {self.unknown_text} | ?/{window} tokens"
        else:
            util = self.utilization or 0.0
            core = f"[Context: {round(util * 100)}% | {format_tokens(self.tokens)}/{window} tokens"
        return f"{core} | {status}]" if status else f"{core}]"


def compaction_line(window: int, *, reserve_tokens: int = PI_DEFAULT_RESERVE, reserve_floor: int = 0) -> int:
    """The agent's auto-compaction line: ``window − max(reserve, floor)`` (OpenClaw's floor is 20,000)."""
    return max(0, window - max(reserve_tokens, reserve_floor))


_DEFAULT_THRESHOLDS = Thresholds()


def read_gauge(
    tokens: int | None,
    window: ContextWindow,
    *,
    thresholds: Thresholds = _DEFAULT_THRESHOLDS,
    reserve_floor: int = 0,
    compaction_enabled: bool = True,
    line_known: bool = True,
    unknown_reason: str = "after compaction",
) -> GaugeReading:
    """Place ``tokens`` on the gauge of ``window`` with every marker (no compaction marker when it is disabled)."""
    size = window.tokens
    markers = [
        Marker("gauge", thresholds.gauge, round(size * thresholds.gauge)),
        Marker("checkpoint", thresholds.checkpoint, round(size * thresholds.checkpoint)),
        *(Marker(f"flush-{round(f * 100)}", f, round(size * f)) for f in thresholds.flush),
    ]
    if compaction_enabled:
        line = compaction_line(size, reserve_tokens=thresholds.reserve_tokens, reserve_floor=reserve_floor)
        markers.append(Marker("compaction", line / size if size else 0.0, line))
        margin_tokens = line - round(size * thresholds.pre_compaction_margin)
        if margin_tokens > 0:
            markers.append(Marker("pre-compaction", margin_tokens / size, margin_tokens))
    else:
        line = size
    markers.sort(key=lambda m: m.tokens)
    return GaugeReading(tokens, window, line, tuple(markers), compaction_enabled, line_known, unknown_reason)


def format_tokens(tokens: int) -> str:
    """Compact token figure: ``950``, ``12k``, ``162k``, ``1M``, ``1.5M``."""
    if tokens < 1000:
        return str(tokens)
    if tokens < 1_000_000:
        return f"{round(tokens / 1000)}k"
    millions = tokens / 1_000_000
    return f"{millions:.1f}".rstrip("0").rstrip(".") + "M"
