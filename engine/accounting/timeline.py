"""The series behind the session view's plot (docs/context-accounting.md, Utilization over turns).

One sample per authoritative usage on the context path (the same rule as :mod:`engine.accounting.measure`: not
aborted/error, not all-zero, not a synthetic ``openclaw`` mirror) and one per compaction, in path order. The
path runs from the root, so samples before a compaction are the history the summary replaced.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from engine.stores.entries import Entry

__all__ = ["PlotColumn", "Timeline", "TimelineSample", "plot_columns", "utilization_timeline"]

SampleKind = Literal["usage", "compaction"]


@dataclass(frozen=True, slots=True)
class TimelineSample:
    """One event on the timeline: a model reply's usage, or a compaction."""

    kind: SampleKind
    entry_id: str | None
    tokens: int | None
    """Context tokens the reply reported; for a compaction, its ``tokensBefore`` (``None`` when absent)."""
    utilization: float | None
    """:attr:`tokens` as a fraction of the window; ``None`` when either is unknown."""
    timestamp: str | None


@dataclass(frozen=True, slots=True)
class Timeline:
    """The utilization samples of one context path, against one window."""

    samples: tuple[TimelineSample, ...]
    window: int
    """Context window in tokens the fractions are measured against."""

    @property
    def turns(self) -> int:
        """Number of usage samples (model replies with an authoritative usage)."""
        return sum(1 for s in self.samples if s.kind == "usage")

    @property
    def compactions(self) -> int:
        return sum(1 for s in self.samples if s.kind == "compaction")

    @property
    def peak(self) -> float | None:
        """Highest utilization reached by a reply, or ``None`` without any usage."""
        values = [s.utilization for s in self.samples if s.kind == "usage" and s.utilization is not None]
        return max(values) if values else None


@dataclass(frozen=True, slots=True)
class PlotColumn:
    """One column of a plot ``width`` cells wide: the samples it covers, reduced to what is drawn."""

    utilization: float | None
    """Highest usage fraction among the covered samples; ``None`` when none of them is a usage."""
    compaction: bool
    """At least one compaction among the covered samples."""
    first: int
    """Index of the first covered sample."""
    last: int
    """Index of the last covered sample (inclusive)."""


def _fraction(tokens: int | None, window: int) -> float | None:
    return None if tokens is None or window <= 0 else tokens / window


def utilization_timeline(path: Sequence[Entry], window: int) -> Timeline:
    """The usage and compaction samples along ``path`` (root first), measured against ``window`` tokens."""
    samples: list[TimelineSample] = []
    for entry in path:
        if entry.type == "compaction":
            samples.append(
                TimelineSample("compaction", entry.id, entry.tokens_before, _fraction(entry.tokens_before, window),
                               entry.timestamp)
            )
        elif entry.has_valid_usage and entry.usage is not None:
            tokens = entry.usage.context_tokens
            samples.append(TimelineSample("usage", entry.id, tokens, _fraction(tokens, window), entry.timestamp))
    return Timeline(tuple(samples), window)


def plot_columns(timeline: Timeline, width: int) -> tuple[PlotColumn, ...]:
    """Reduce the samples to at most ``width`` columns, keeping each column's peak and every compaction.

    With no more samples than columns each sample gets its own column; otherwise consecutive samples share
    a column, so the plot always shows the whole history, oldest on the left.
    """
    samples = timeline.samples
    count = len(samples)
    if width <= 0 or count == 0:
        return ()
    columns = min(width, count)
    result: list[PlotColumn] = []
    for column in range(columns):
        first = column * count // columns
        last = (column + 1) * count // columns - 1
        covered = samples[first : last + 1]
        values = [s.utilization for s in covered if s.kind == "usage" and s.utilization is not None]
        result.append(
            PlotColumn(
                max(values) if values else None,
                any(s.kind == "compaction" for s in covered),
                first,
                last,
            )
        )
    return tuple(result)
