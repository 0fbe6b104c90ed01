"""The Prometheus exposition of ``watch --metrics``: values read off the tracker, counters, idle sessions, format."""

from __future__ import annotations

import shutil
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.utils import floatToGoString

from engine.compaction.summarizer import SummaryHeader
from engine.config.loader import Config
from engine.config.metrics_settings import MetricsSettings
from engine.live.activity import ActivityRecorder, compaction_heads
from engine.live.exposition import SESSION_METRICS, SidecarCollector, _number, render_text
from engine.live.insight import SessionInsight
from engine.live.metrics import exported_sessions, session_metrics
from engine.live.tracker import Refreshed, SessionTracker
from engine.session.snapshot import SessionSnapshot
from engine.sidecar import ContextManager, SidecarEvent
from tests.conftest import ENDS_ON_COMPACTION, MAIN_SESSION, SESSIONS_JSON, SUBAGENT
from tests.tui.transcript_lines import Entry, append, compaction, reply

KEY = "3003a4e2-a8c1-417d-9ebc-76480d47d0c0"
LEAF = "562b10c7"
NOW = datetime(2026, 5, 5, 16, 0, tzinfo=UTC)
"""An hour after the appended entries: every session touched by a test is active."""


def _tracker(tmp_path: Path, *, auto_checkpoints: bool = True) -> tuple[SessionTracker, Path]:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    for fixture in (SUBAGENT, MAIN_SESSION, ENDS_ON_COMPACTION, SESSIONS_JSON):
        shutil.copy(fixture, sessions / fixture.name)
    config = Config(state_dir=tmp_path / "state", auto_checkpoints=auto_checkpoints)
    tracker = SessionTracker([sessions], config, manager=ContextManager(config, clock=lambda: NOW), clock=lambda: NOW)
    tracker.discover()
    for key in tracker.keys:
        tracker.step(key)
    return tracker, sessions / SUBAGENT.name


def _collector(tracker: SessionTracker, recorder: ActivityRecorder | None = None, *, now: datetime = NOW,
               idle: float = 24 * 3600) -> SidecarCollector:
    return SidecarCollector(tracker, recorder or ActivityRecorder(), MetricsSettings(idle, host="box-1"),
                            clock=lambda: now)


def _samples(body: bytes) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(body.decode())
        for sample in family.samples
    }


def _value(samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, session: str,
           **extra: str) -> float | None:
    for (sample, labels), value in samples.items():
        found = dict(labels)
        if sample == name and found.get("session") == session and all(found.get(k) == v for k, v in extra.items()):
            return value
    return None


def test_every_exported_value_is_the_snapshots_or_the_insights(tmp_path: Path) -> None:
    tracker, transcript = _tracker(tmp_path)
    append(transcript, reply("r1", LEAF, 220_000, when="15:02:00"))
    tracker.step(KEY)
    samples = _samples(_collector(tracker).render())
    checked = 0
    for key in tracker.keys:
        snapshot, insight = tracker.snapshot(key), tracker.insight(key)
        assert snapshot is not None and insight is not None
        if snapshot.last_activity is None or NOW - snapshot.last_activity > timedelta(hours=24):
            assert _value(samples, "ctxscope_session_context_window_tokens", key) is None
            continue
        checked += 1
        labels = {"host": "box-1", "model": snapshot.model or "unknown"}
        assert _value(samples, "ctxscope_session_context_tokens", key, **labels) == snapshot.tokens.tokens
        assert _value(samples, "ctxscope_session_context_window_tokens", key) == snapshot.window.tokens
        assert _value(samples, "ctxscope_session_context_utilization_ratio", key) == pytest.approx(
            snapshot.gauge.utilization)
        assert _value(samples, "ctxscope_session_compaction_line_tokens", key) == snapshot.gauge.compaction_line
        assert _value(samples, "ctxscope_session_compactions", key) == snapshot.compactions
        level = insight.degradation.report.level
        assert _value(samples, "ctxscope_session_degradation_level", key, level=level) == (
            ["low", "medium", "high", "critical"].index(level))
        assert _value(samples, "ctxscope_session_checkpoints_written", key) == insight.checkpoints_written
        assert snapshot.last_activity is not None
        assert _value(samples, "ctxscope_session_last_activity_timestamp_seconds", key) == (
            snapshot.last_activity.timestamp())
        assert _value(samples, "ctxscope_session_cost_usd", key, basis="recorded") == pytest.approx(
            insight.cost.recorded_usd)
        assert _value(samples, "ctxscope_session_cost_usd", key, basis="estimated") == pytest.approx(
            insight.cost.estimated_usd)
        assert _value(samples, "ctxscope_session_cache_read_tokens", key) == insight.cost.cache_read_tokens
        assert _value(samples, "ctxscope_session_cache_write_tokens", key) == insight.cost.cache_write_tokens
    assert checked == 1  # the session the test appended to; the fixtures' own entries are months old
    assert _value(samples, "ctxscope_session_context_tokens", KEY) == 220_000  # the reply's usage, exactly
    assert _value(samples, "ctxscope_session_checkpoints_written", KEY) == 1  # auto-80pct fired at 84%


def test_the_fast_rendering_is_byte_identical_to_prometheus_clients(tmp_path: Path) -> None:
    tracker, transcript = _tracker(tmp_path)
    append(transcript, reply("r1", LEAF, 150_000))
    tracker.step(KEY)
    recorder = ActivityRecorder()
    when = NOW
    recorder.record_events([
        SidecarEvent("checkpoint", KEY, "", when, trigger="auto-80pct"),
        SidecarEvent("refused", KEY, "", when, layer="summarize"),
        SidecarEvent("error", KEY, "", when, layer="prune"),
        SidecarEvent("error", KEY, "cannot read", when),
    ])
    recorder.record_lag(0.25, at=1.0)
    collector = _collector(tracker, recorder, now=NOW + timedelta(days=400), idle=1e9)  # every fixture session
    # Label values that need escaping: a key with a quote, a backslash and a newline, a model with a space.
    odd = _Odd(tracker, 'agent:"main"\\sub\nline', "my model")
    for view in (tracker, odd):
        collector.tracker = view
        registry = CollectorRegistry(auto_describe=False)
        registry.register(collector)
        assert collector.render() == generate_latest(registry)
    assert b'session="agent:\\"main\\"\\\\sub\\nline"' in collector.render()


class _Odd:
    """The tracker's sessions, one of them renamed and re-modelled."""

    def __init__(self, tracker: SessionTracker, key: str, model: str) -> None:
        self._tracker, self._key, self._model = tracker, key, model

    @property
    def keys(self) -> tuple[str, ...]:
        return (*self._tracker.keys, self._key)

    def snapshot(self, key: str) -> SessionSnapshot | None:
        if key != self._key:
            return self._tracker.snapshot(key)
        snapshot = self._tracker.snapshot(KEY)
        assert snapshot is not None
        return replace(snapshot, source=replace(snapshot.source, key=self._key), model=self._model)

    def insight(self, key: str) -> SessionInsight | None:
        return self._tracker.insight(KEY if key == self._key else key)


def test_sessions_idle_longer_than_the_configured_age_leave_the_exposition(tmp_path: Path) -> None:
    tracker, transcript = _tracker(tmp_path)
    append(transcript, reply("r1", LEAF, 100_000, when="15:02:00"))
    tracker.step(KEY)
    active = datetime(2026, 5, 5, 15, 2, tzinfo=UTC)
    assert [r.session for r in exported_sessions(tracker, now=active + timedelta(hours=23), idle_after_seconds=86400,
                                                 host="h")] == [KEY]
    assert exported_sessions(tracker, now=active + timedelta(hours=25), idle_after_seconds=86400, host="h") == []
    samples = _samples(_collector(tracker, now=active + timedelta(hours=25)).render())
    assert not any(name.startswith("ctxscope_session_") for name, _ in samples)
    health = {name: value for (name, _), value in samples.items() if not name.startswith("ctxscope_session_")}
    assert health["ctxscope_sessions_followed"] == len(tracker.keys) == 3
    assert health["ctxscope_sessions_exported"] == 0


def test_unknown_values_are_left_out_not_reported_as_zero(tmp_path: Path) -> None:
    tracker, transcript = _tracker(tmp_path)
    append(transcript, reply("r1", LEAF, 100_000), compaction("c1", "r1", "r1"))
    tracker.step(KEY)
    snapshot = tracker.snapshot(KEY)
    assert snapshot is not None and snapshot.tokens.tokens is None  # unknown after a compaction
    samples = _samples(_collector(tracker).render())
    assert _value(samples, "ctxscope_session_context_tokens", KEY) is None
    assert _value(samples, "ctxscope_session_context_utilization_ratio", KEY) is None
    assert _value(samples, "ctxscope_session_context_window_tokens", KEY) == snapshot.window.tokens


def _ctxscope_compaction(entry_id: str, parent: str, first_kept: str) -> Entry:
    header = SummaryHeader("summarize", 12, 40_000, first_kept).lines()
    return {**compaction(entry_id, parent, first_kept), "summary": "\n".join([*header, "", "## Goal", "Go on."])}


def test_compactions_are_counted_by_who_wrote_them_and_refusals_by_action(tmp_path: Path) -> None:
    tracker, transcript = _tracker(tmp_path, auto_checkpoints=False)
    recorder = ActivityRecorder()

    def step() -> Refreshed:
        result = tracker.step(KEY)
        recorder.record(result, lambda a, b: tracker.with_follower(KEY, lambda f: compaction_heads(f, a, b)))
        return result

    append(transcript, reply("r1", LEAF, 100_000))
    step()
    append(transcript, compaction("c1", "r1", "r1"), reply("r2", "c1", 40_000))
    step()
    append(transcript, _ctxscope_compaction("c2", "r2", "r2"), reply("r3", "c2", 30_000),
           compaction("c3", "r3", "r3"))
    step()
    step()  # nothing new: nothing counted twice
    recorder.record_events([SidecarEvent("refused", KEY, "guard", NOW, layer="full"),
                            SidecarEvent("checkpoint", KEY, "", NOW, trigger="compaction"),
                            SidecarEvent("checkpoint", KEY, "", NOW, trigger="made-up")])
    totals = recorder.totals()
    assert dict(totals.compactions) == {
        ("agent", "agent", "ok"): 2, ("summarize", "jsonl", "ok"): 1, ("full", "jsonl", "refused"): 1,
    }
    assert dict(totals.refusals) == {"compact": 1}
    assert dict(totals.checkpoints) == {"compaction": 1, "other": 1}  # labels stay in a closed set
    samples = _samples(_collector(tracker, recorder).render())
    assert samples[("ctxscope_compactions_total", (("controller", "agent"), ("host", "box-1"), ("layer", "agent"),
                                                   ("outcome", "ok")))] == 2


def test_a_failed_read_counts_as_an_error(tmp_path: Path) -> None:
    tracker, transcript = _tracker(tmp_path)
    recorder = ActivityRecorder()
    transcript.unlink()
    transcript.mkdir()  # the path is there but can no longer be read as a transcript
    recorder.record(tracker.step(KEY))
    assert recorder.totals().errors == 1


def test_session_metrics_is_one_read_of_the_engine_values(tmp_path: Path) -> None:
    tracker, _ = _tracker(tmp_path)
    snapshot = tracker.snapshot(KEY)
    assert snapshot is not None
    row = session_metrics(snapshot, None, "h")
    assert (row.degradation, row.checkpoints_written, row.cost_recorded_usd) == (None, None, None)
    assert row.agent == snapshot.source.agent_id or row.agent in ("pi", "openclaw")
    assert {m.name for m in SESSION_METRICS} >= {"ctxscope_session_context_tokens", "ctxscope_session_cost_usd"}


def test_the_exposition_has_no_samples_of_unassessed_sessions_for_insight_values(tmp_path: Path) -> None:
    tracker, _ = _tracker(tmp_path)
    scrape = _collector(tracker, now=NOW + timedelta(days=400), idle=1e9).scrape()
    rows = [row._replace(degradation=None, checkpoints_written=None) for row in scrape.sessions]
    body = render_text(replace(scrape, sessions=rows)).decode()
    assert "ctxscope_session_degradation_level{" not in body and "ctxscope_session_checkpoints_written{" not in body


def test_checkpoints_written_keeps_counting_past_retention(tmp_path: Path) -> None:
    tracker, _ = _tracker(tmp_path, auto_checkpoints=False)
    for _ in range(7):
        assert tracker.write_checkpoint(KEY, "manual").kind == "checkpoint"
    insight = tracker.step(KEY, reassess=True).insight
    assert insight is not None
    assert (insight.checkpoints, insight.checkpoints_written) == (5, 7)  # retention keeps the newest five


def test_kept_lines_follow_every_change_and_match_a_fresh_rendering(tmp_path: Path) -> None:
    tracker, transcript = _tracker(tmp_path)
    collector = _collector(tracker, now=NOW + timedelta(days=400), idle=1e9)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(collector)
    first = collector.render()
    rows = {row.session: row for row in collector.scrape().sessions}
    assert collector.render() == first  # nothing changed: the same text from kept lines
    append(transcript, reply("r1", LEAF, 123_456))
    tracker.step(KEY)
    changed = collector.render()
    assert _value(_samples(changed), "ctxscope_session_context_tokens", KEY) == 123_456
    again = {row.session: row for row in collector.scrape().sessions}
    assert again[KEY] is not rows[KEY]  # re-read: its snapshot changed
    assert all(again[key] is rows[key] for key in rows if key != KEY)  # the others were kept
    assert changed == generate_latest(registry)
    collector.forget()
    assert collector.render() == changed


@given(st.one_of(st.integers(min_value=-(10**18), max_value=10**18),
                 st.floats(allow_nan=True, allow_infinity=True)))
def test_numbers_are_written_as_prometheus_client_writes_them(value: float) -> None:
    assert _number(value) == floatToGoString(value)
