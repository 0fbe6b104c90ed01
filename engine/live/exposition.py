"""The Prometheus metrics of ``ctxscope watch --metrics``: their definitions, the collector, and the text rendering.

:class:`SidecarCollector` is a ``prometheus_client`` custom collector: at scrape time it reads the tracker's
current snapshots and insights (:mod:`engine.live.metrics`) and the sidecar's counters (:mod:`engine.live.activity`)
and yields metric families. Its :meth:`~SidecarCollector.render` writes the same families in the Prometheus text
format (version 0.0.4) directly: ``prometheus_client.generate_latest`` validates every label name of every
sample, which makes a scrape of 1,000 sessions about ten times slower than formatting the lines (``docs/fleet.md``
has the figures). The two outputs are byte-identical; the tests hold them to it.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

from engine.config.metrics_settings import MetricsSettings
from engine.live.activity import Activity, ActivityRecorder
from engine.live.metrics import (
    Reuse,
    SessionMetrics,
    SidecarHealth,
    TrackerView,
    default_host,
    exported_sessions,
    sidecar_health,
)

__all__ = [
    "CONTENT_TYPE",
    "EXPORTED_NAMES",
    "SESSION_LABELS",
    "SESSION_METRICS",
    "Scrape",
    "SessionMetric",
    "SidecarCollector",
    "render_text",
    "session_lines",
]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
SESSION_LABELS = ("agent", "host", "model", "session")
"""Labels of every per-session series, in the sorted order the text format writes them."""

Value = float | int | None
_go_number: Callable[[float], str] = floatToGoString


def _number(value: float) -> str:
    """``prometheus_client``'s number format (Go's), so both renderings agree to the byte; numbers below a million
    (most values here) take a shortcut that writes the same text."""
    kind = type(value)
    if kind is int and -10**15 < value < 1_000_000:
        return f"{value}.0"
    if kind is float and -1e15 < value < 1_000_000:  # finite, and short of Go's switch to an exponent
        return repr(value)
    return _go_number(value)


@dataclass(frozen=True, slots=True)
class SessionMetric:
    """One per-session gauge: a value per session, or with ``label`` one value per value of that label."""

    name: str
    help: str
    field: str | None = None
    """The :class:`~engine.live.metrics.SessionMetrics` field holding the value."""
    label: str | None = None
    values: Callable[[SessionMetrics], Sequence[tuple[str, Value]]] | None = None

    def samples(self, row: SessionMetrics) -> Sequence[tuple[str | None, Value]]:
        """``(extra label value or None, value)`` pairs of ``row``."""
        if self.values is not None:
            return self.values(row)
        assert self.field is not None
        return ((None, getattr(row, self.field)),)


def _degradation(row: SessionMetrics) -> Sequence[tuple[str, Value]]:
    return () if row.degradation is None else ((row.degradation, row.degradation_level),)


def _cost(row: SessionMetrics) -> Sequence[tuple[str, Value]]:
    return (("estimated", row.cost_estimated_usd), ("recorded", row.cost_recorded_usd))


SESSION_METRICS: tuple[SessionMetric, ...] = (
    SessionMetric("ctxscope_session_context_tokens", "Tokens the next request of the session carries (absent after "
                  "a compaction until the agent reports the size).", "context_tokens"),
    SessionMetric("ctxscope_session_context_window_tokens", "Context window of the session's model.",
                  "window_tokens"),
    SessionMetric("ctxscope_session_context_utilization_ratio", "Context tokens over the window (0-1, may exceed 1).",
                  "utilization"),
    SessionMetric("ctxscope_session_compaction_line_tokens", "Context size at which the agent compacts by itself.",
                  "compaction_line_tokens"),
    SessionMetric("ctxscope_session_compactions", "Compactions of the session so far.", "compactions"),
    SessionMetric("ctxscope_session_degradation_level", "Degradation after compactions: 0 low, 1 medium, 2 high, "
                  "3 critical; the level label names it.", label="level", values=_degradation),
    SessionMetric("ctxscope_session_checkpoints_written", "Checkpoints written for the session (highest sequence "
                  "number).", "checkpoints_written"),
    SessionMetric("ctxscope_session_last_activity_timestamp_seconds", "Unix time of the session's last entry.",
                  "last_activity"),
    SessionMetric("ctxscope_session_cost_usd", "Spend of the session in USD: recorded by the agent, or estimated "
                  "from list prices for calls that recorded none.", label="basis", values=_cost),
    SessionMetric("ctxscope_session_cache_read_tokens", "Prompt-cache read tokens of the session's calls.",
                  "cache_read_tokens"),
    SessionMetric("ctxscope_session_cache_write_tokens", "Prompt-cache write tokens of the session's calls.",
                  "cache_write_tokens"),
)

_COUNTERS = (
    ("ctxscope_checkpoints_written", "Checkpoints the sidecar wrote, by trigger.", ("trigger",)),
    ("ctxscope_compactions", "Compactions that appeared in followed transcripts (outcome ok; controller agent: the "
     "agent's own) and automatic compactions refused or failed, by layer, controller and outcome.",
     ("layer", "controller", "outcome")),
    ("ctxscope_refusals", "Actions the sidecar refused (the compaction guard, a live lock), by action.", ("action",)),
    ("ctxscope_errors", "Session steps that failed: a session could not be read, captured or checkpointed.", ()),
)
_HEALTH = (
    ("ctxscope_sessions_followed", "Sessions the sidecar follows."),
    ("ctxscope_sessions_exported", "Sessions in this exposition (active within metrics.idle_after)."),
    ("ctxscope_parse_errors", "Malformed lines in the followed sessions' files."),
    ("ctxscope_event_loop_lag_seconds", "Worst lateness of the sidecar's event loop over the last minute."),
)

EXPORTED_NAMES: tuple[str, ...] = (
    *(m.name for m in SESSION_METRICS), *(f"{name}_total" for name, _, _ in _COUNTERS), *(name for name, _ in _HEALTH)
)
"""Every metric name in the exposition (besides ``prometheus_client``'s ``process_*``), as a query spells it."""


def _escape(value: str) -> str:
    if "\\" in value or '"' in value or "\n" in value:
        return value.replace("\\", r"\\").replace("\n", r"\n").replace('"', r"\"")
    return value


def _labels(pairs: Sequence[tuple[str, str]]) -> str:
    return "{" + ",".join(f'{name}="{_escape(value)}"' for name, value in sorted(pairs)) + "}" if pairs else ""


def _header(name: str, doc: str, kind: str) -> str:
    text = doc.replace("\\", r"\\").replace("\n", r"\n")
    return f"# HELP {name} {text}\n# TYPE {name} {kind}\n"


@dataclass(frozen=True, slots=True)
class Scrape:
    """Everything one scrape exports, read once so the families are consistent with each other."""

    host: str
    sessions: list[SessionMetrics]
    health: SidecarHealth
    activity: Activity

    def counter_samples(self) -> Iterator[tuple[str, str, tuple[str, ...], list[tuple[tuple[str, ...], int]]]]:
        """``(name, help, label names, [(label values, count)])`` of every counter (``host`` comes first)."""
        activity = self.activity
        rows: tuple[list[tuple[tuple[str, ...], int]], ...] = (
            [((t,), n) for t, n in activity.checkpoints],
            [(k, n) for k, n in activity.compactions],
            [((a,), n) for a, n in activity.refusals],
            [((), activity.errors)],
        )
        for (name, doc, labels), samples in zip(_COUNTERS, rows, strict=True):
            yield name, doc, labels, samples

    def health_values(self) -> Iterator[tuple[str, str, Value]]:
        """``(name, help, value)`` of every health gauge."""
        health = self.health
        values = (health.sessions_followed, health.sessions_exported, health.parse_errors,
                  self.activity.loop_lag_seconds)
        for (name, doc), value in zip(_HEALTH, values, strict=True):
            yield name, doc, value


class SidecarCollector(Collector):
    """Renders the tracker's current state at scrape time; nothing is computed beyond reading values.

    Args:
        tracker: the sidecar's :class:`~engine.live.tracker.SessionTracker` (read from the scraping thread).
        recorder: the counters the watch loop feeds.
        settings: ``metrics.idle_after`` and the ``host`` label.
        clock: the current time (injectable for tests).
    """

    def __init__(
        self,
        tracker: TrackerView,
        recorder: ActivityRecorder,
        settings: MetricsSettings | None = None,
        *,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.tracker = tracker
        self.recorder = recorder
        self.settings = settings or MetricsSettings()
        self.host = self.settings.host or default_host()
        self.clock = clock or (lambda: datetime.now(UTC))
        self._lock = threading.Lock()
        self._values: Reuse = {}
        self._lines: dict[str, tuple[SessionMetrics, tuple[str, ...]]] = {}

    def scrape(self) -> Scrape:
        """Read the values of one scrape (a session unchanged since the previous scrape is not read again)."""
        with self._lock:
            sessions = exported_sessions(self.tracker, now=self.clock(), host=self.host,
                                         idle_after_seconds=self.settings.idle_after_seconds, reuse=self._values)
        return Scrape(self.host, sessions, sidecar_health(self.tracker, len(sessions)), self.recorder.totals())

    def collect(self) -> Iterator[Metric]:
        """The metric families, for ``prometheus_client`` registries (``generate_latest``, OpenMetrics)."""
        scrape = self.scrape()
        for metric in SESSION_METRICS:
            labels = [*SESSION_LABELS, metric.label] if metric.label else list(SESSION_LABELS)
            family = GaugeMetricFamily(metric.name, metric.help, labels=labels)
            for row in scrape.sessions:
                base = [row.agent, row.host, row.model, row.session]
                for extra, value in metric.samples(row):
                    if value is not None:
                        family.add_metric([*base, extra] if extra is not None else base, value)
            yield family
        for name, doc, names, samples in scrape.counter_samples():
            counter = CounterMetricFamily(name, doc, labels=["host", *names])
            for values, count in samples:
                counter.add_metric([scrape.host, *values], count)
            yield counter
        for name, doc, value in scrape.health_values():
            gauge = GaugeMetricFamily(name, doc, labels=["host"])
            if value is not None:
                gauge.add_metric([scrape.host], value)
            yield gauge

    def render(self) -> bytes:
        """The families of :meth:`collect` in the text format, as ``generate_latest`` writes them.

        The lines of a session whose values did not change since the previous scrape are kept, not written again:
        on an idle fleet a scrape is mostly joining strings.
        """
        scrape = self.scrape()
        with self._lock:
            kept, self._lines = self._lines, {}

            def lines_of(row: SessionMetrics) -> tuple[str, ...]:
                found = kept.get(row.session)
                lines = found[1] if found is not None and found[0] is row else session_lines(row)
                self._lines[row.session] = (row, lines)
                return lines

            return render_text(scrape, lines_of)

    def forget(self) -> None:
        """Drop what was kept from previous scrapes (the next one reads and writes every session again)."""
        with self._lock:
            self._values.clear()
            self._lines.clear()


_PLAIN = tuple((i, m.name, SessionMetrics._fields.index(m.field))
               for i, m in enumerate(SESSION_METRICS) if m.field is not None)
_LABELLED = tuple((i, m.name, m.label, m.values, bisect.bisect(SESSION_LABELS, m.label))
                  for i, m in enumerate(SESSION_METRICS) if m.values is not None and m.label is not None)
assert all(0 < at < len(SESSION_LABELS) for *_, at in _LABELLED), "an extra label sorts among the session's"


def session_lines(row: SessionMetrics) -> tuple[str, ...]:
    """The sample lines of one session, one string per :data:`SESSION_METRICS` entry (``""`` when it has none).

    Written for speed (a scrape of 1,000 changed sessions calls it 1,000 times): the session's labels are escaped
    once and shared by all of its series, and whole numbers take :func:`_number`'s shortcut inline.
    """
    parts = (f'agent="{_escape(row.agent)}"', f'host="{_escape(row.host)}"', f'model="{_escape(row.model)}"',
             f'session="{_escape(row.session)}"')
    plain = "{" + ",".join(parts) + "}"
    chunks = [""] * len(SESSION_METRICS)
    value: Any
    for index, name, field in _PLAIN:
        value = row[field]
        if value is None:
            continue
        if type(value) is int and -10**15 < value < 1_000_000:
            chunks[index] = f"{name}{plain} {value}.0\n"
        else:
            chunks[index] = f"{name}{plain} {_number(value)}\n"
    for index, name, label, values, at in _LABELLED:
        head, tail = ",".join(parts[:at]), ",".join(parts[at:])
        chunks[index] = "".join(f'{name}{{{head},{label}="{_escape(extra)}",{tail}}} {_number(value)}\n'
                                for extra, value in values(row) if value is not None)
    return tuple(chunks)


def render_text(scrape: Scrape, lines_of: Callable[[SessionMetrics], tuple[str, ...]] = session_lines) -> bytes:
    """``scrape`` in the Prometheus text format 0.0.4 (``lines_of`` may return lines kept from a previous scrape)."""
    out: list[str] = []
    rows = [lines_of(row) for row in scrape.sessions]
    for index, metric in enumerate(SESSION_METRICS):
        out.append(_header(metric.name, metric.help, "gauge"))
        out.extend(lines[index] for lines in rows)
    host = ("host", scrape.host)
    for name, doc, names, samples in scrape.counter_samples():
        out.append(_header(f"{name}_total", doc, "counter"))
        for values, count in samples:
            pairs = [host, *zip(names, values, strict=True)]
            out.append(f"{name}_total{_labels(pairs)} {_number(count)}\n")
    for name, doc, value in scrape.health_values():
        out.append(_header(name, doc, "gauge"))
        if value is not None:
            out.append(f"{name}{_labels([host])} {_number(value)}\n")
    return "".join(out).encode("utf-8")
