"""Usage reports: each request once across copies, forks, branches and stores; costs from the right source."""

from __future__ import annotations

import shutil
import sqlite3
from datetime import UTC, date, timedelta, timezone
from pathlib import Path
from typing import Any

import orjson
import pytest

from bench.usage_reference import reference_report
from engine.agents.discovery import discover_sessions
from engine.index.cache import IndexCache
from engine.index.records import CompactionRecord, UsageRecord
from engine.session.cost import price_for
from engine.usage.aggregate import aggregate_usage, call_prices
from engine.usage.collect import collect_usage
from engine.usage.model import SessionUsage
from sim.session_generator import generate_session_file
from tests.conftest import MAIN_SESSION, OPENCLAW
from tests.engine._transcripts import HEADER, assistant, compaction, user, write
from tests.engine.test_sqlite_store import SCHEMA

FIGURES = ("calls", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "compactions")


def _report(paths: list[Path], by: str = "day", cache: IndexCache | None = None, **kwargs: Any) -> dict[str, Any]:
    usages, problems = collect_usage(discover_sessions(paths), cache)
    assert problems == ()
    return aggregate_usage(usages, by, tz=UTC, **kwargs).to_dict()  # type: ignore[arg-type]


def _same_as_reference(paths: list[Path], by: str, cache: IndexCache | None = None) -> None:
    ours = _report(paths, by, cache)
    reference = reference_report(paths, by)
    assert {row[by] for row in ours["rows"]} == set(reference["rows"])
    for row in ours["rows"]:
        theirs = reference["rows"][row[by]]
        assert {f: row[f] for f in FIGURES} == {f: theirs[f] for f in FIGURES}
        assert row["cost_usd"] == pytest.approx(theirs["cost_usd"], abs=1e-5)
        assert row["compaction_cost_usd"] == pytest.approx(theirs["compaction_cost_usd"], abs=1e-5)
    assert {f: ours["total"][f] for f in FIGURES} == {f: reference["total"][f] for f in FIGURES}


@pytest.mark.parametrize("by", ["day", "model"])
def test_report_equals_the_full_parse_reference_on_the_fixtures(by: str, tmp_path: Path) -> None:
    _same_as_reference([OPENCLAW], by)
    cache = IndexCache(tmp_path / "cache")
    _same_as_reference([OPENCLAW], by, cache)  # cold, then from the cache: the same figures
    _same_as_reference([OPENCLAW], by, IndexCache(tmp_path / "cache"))


@pytest.mark.parametrize("by", ["day", "model"])
def test_report_equals_the_reference_on_generated_sessions(by: str, tmp_path: Path) -> None:
    sessions = tmp_path / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    for seed in range(4):  # distinct sessions, branches, model switches, compactions
        generate_session_file(sessions / f"s{seed}.jsonl", target_bytes=400_000 + seed * 150_000, seed=seed,
                              branches=seed % 2 == 1, window=60_000)
    shutil.copy(sessions / "s1.jsonl", sessions / "s1.jsonl.reset.2026-03-03T10-00-00.000Z")  # an archive copy
    _same_as_reference([tmp_path], by, IndexCache(tmp_path / "cache"))


def test_a_copy_fork_or_archive_counts_each_call_once(tmp_path: Path) -> None:
    base = _report([MAIN_SESSION])["total"]
    sessions = tmp_path / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    shutil.copy(MAIN_SESSION, sessions / "live.jsonl")
    lines = MAIN_SESSION.read_bytes().splitlines(keepends=True)
    (sessions / "fork.jsonl").write_bytes(b"".join(lines[: len(lines) // 2]))  # a /fork: the path copied
    shutil.copy(MAIN_SESSION, sessions / "live.jsonl.reset.2026-02-01T00-00-00.000Z")
    shutil.copy(MAIN_SESSION, sessions / "live.checkpoint.0f1e2d3c-0000-4000-8000-000000000000.jsonl")
    report = _report([tmp_path])
    assert {f: report["total"][f] for f in FIGURES} == {f: base[f] for f in FIGURES}
    assert report["duplicate_calls"] == base["calls"] * 2 + sum(
        1 for raw in lines[: len(lines) // 2] if b'"role":"assistant"' in raw and b'"provider":"openclaw"' not in raw)


def test_an_entry_on_two_branches_is_one_call(tmp_path: Path) -> None:
    objs = [user("u0", None, "hi"), assistant("a0", "u0", "shared", 100), user("u1", "a0", "left"),
            assistant("a1", "u1", "left", 200), user("u2", "a0", "right"), assistant("a2", "u2", "right", 300)]
    path = write(tmp_path / "tree.jsonl", objs)
    total = _report([path])["total"]
    assert total["calls"] == 3 and total["input_tokens"] == 600


def test_the_sqlite_import_of_a_transcript_is_counted_once(tmp_path: Path) -> None:
    sessions = tmp_path / "agents" / "main" / "sessions"
    agent_dir = tmp_path / "agents" / "main" / "agent"
    sessions.mkdir(parents=True)
    agent_dir.mkdir(parents=True)
    shutil.copy(MAIN_SESSION, sessions / "76cc5ab5-0425-4038-b41f-0af9f313d594.jsonl")
    db = agent_dir / "openclaw-agent.sqlite"
    connection = sqlite3.connect(db)
    connection.executescript(SCHEMA)
    connection.execute("INSERT INTO session_nodes VALUES ('agent:main:main', 's-1', '{}', 1, 1, 'done', 1)")
    lines = [raw for raw in MAIN_SESSION.read_bytes().splitlines() if raw.strip()]
    for seq, raw in enumerate(lines):
        connection.execute("INSERT INTO transcript_events VALUES ('s-1', ?, ?, 1, NULL, ?)", (seq, raw.decode(),
                                                                                              len(raw)))
    connection.commit()
    connection.close()
    alone = _report([db])["total"]
    assert {f: alone[f] for f in FIGURES} == {f: _report([MAIN_SESSION])["total"][f] for f in FIGURES}
    both = _report([tmp_path], cache=IndexCache(tmp_path / "cache"))
    assert both["total"]["calls"] == alone["calls"] and both["duplicate_calls"] == alone["calls"]


def test_the_sqlite_index_reads_only_new_events(tmp_path: Path) -> None:
    from engine.index.sqlite_index import index_sqlite_session

    db = tmp_path / "openclaw-agent.sqlite"
    connection = sqlite3.connect(db)
    connection.executescript(SCHEMA)
    lines = [raw for raw in MAIN_SESSION.read_bytes().splitlines() if raw.strip()]
    half = len(lines) // 2
    for seq, raw in enumerate(lines[:half]):
        connection.execute("INSERT INTO transcript_events VALUES ('s', ?, ?, 1, NULL, ?)", (seq, raw.decode(), 0))
    connection.commit()
    cache = IndexCache(tmp_path / "cache")
    first = index_sqlite_session(db, "s", cache)
    for seq, raw in enumerate(lines[half:], half):
        connection.execute("INSERT INTO transcript_events VALUES ('s', ?, ?, 1, NULL, ?)", (seq, raw.decode(), 0))
    connection.commit()
    grown = index_sqlite_session(db, "s", IndexCache(cache.root))
    assert (first.cache, grown.cache) == ("cold", "extended")
    assert grown.scanned_bytes == sum(len(raw) for raw in lines[half:])
    connection.execute("DELETE FROM transcript_events WHERE seq < 5")  # rewritten history: not trusted
    connection.commit()
    connection.close()
    again = index_sqlite_session(db, "s", IndexCache(cache.root))
    assert again.cache == "rebuilt"
    assert again.calls == index_sqlite_session(db, "s").calls  # what a read without any cache finds


def _call(line: int, model: str | None, tokens: tuple[int, int, int, int], *, cost: float | None = None,
          when: str = "2026-03-01T10:00:00.000Z", key: str | None = None) -> UsageRecord:
    return UsageRecord(line, key or f"k{line}@{when}", f"k{line}", when, model, "anthropic", *tokens, cost, "stop")


def test_costs_come_from_the_recording_then_the_estimate_then_the_table() -> None:
    calls = (
        _call(1, "claude-sonnet-4-5", (10, 20, 0, 0), cost=0.5),
        _call(2, "claude-sonnet-4-5", (1000, 100, 0, 0)),
        _call(3, "claude-sonnet-4-5", (3000, 300, 0, 0)),
        _call(4, "no-such-model", (7, 7, 0, 0)),
    )
    plain = call_prices(SessionUsage("s", "main", "/w", calls))
    assert plain[0] == (0.5, "recorded") and plain[1] is not None and plain[1][1] == "price-table"
    assert plain[3] is None  # no recorded cost, no estimate, no price: counted unpriced
    estimated = call_prices(SessionUsage("s", "main", "/w", calls, estimated_cost_usd=2.5))
    assert estimated[0] == (0.5, "recorded")
    shares = [e[0] for e in estimated[1:] if e is not None]
    assert sum(shares) == pytest.approx(2.0)  # the estimate less what was recorded, shared over the rest
    assert all(e is not None and e[1] == "estimated" for e in estimated[1:])
    assert shares[1] == pytest.approx(shares[0] * 3)  # in proportion to their table price


def test_a_compaction_costs_the_cache_write_of_the_prefix_after_it() -> None:
    calls = (_call(1, "claude-sonnet-4-5", (5, 10, 90_000, 1_000)),
             _call(3, "claude-sonnet-4-5", (5, 10, 0, 20_000)))
    compactions = (CompactionRecord(2, "c@t", "c", "2026-03-01T10:00:00.000Z", 91_000, "x", True, False),
                   CompactionRecord(4, "d@t", "d", "2026-03-01T10:00:00.000Z", 20_000, "x", True, False))
    report = aggregate_usage([SessionUsage("s", "main", "/w", calls, compactions)], "model")
    price = price_for("claude-sonnet-4-5")
    assert price is not None
    total = report.total
    assert total.compactions == 2 and total.unpriced_compactions == 1  # the last has no call after it yet
    assert total.compaction_cost_usd == pytest.approx(20_005 * price.cache_write_5m / 1e6)


def test_days_weeks_and_filters_follow_the_time_zone() -> None:
    calls = (_call(1, "m", (1, 0, 0, 0), when="2026-03-01T23:30:00.000Z"),
             _call(2, "m", (2, 0, 0, 0), when="2026-03-02T00:30:00.000Z"),
             _call(3, "m", (4, 0, 0, 0), when="2026-03-09T12:00:00.000Z"),
             UsageRecord(4, None, None, None, "m", None, 8, 0, 0, 0, None, "stop"))
    session = [SessionUsage("s", "main", "/w", calls)]
    utc = aggregate_usage(session, "day")
    assert [(r.key, r.totals.input) for r in utc.rows] == [("2026-03-01", 1), ("2026-03-02", 2),
                                                           ("2026-03-09", 4), ("unknown", 8)]
    east = aggregate_usage(session, "day", tz=timezone(timedelta(hours=2)))
    assert [(r.key, r.totals.input) for r in east.rows][:2] == [("2026-03-02", 3), ("2026-03-09", 4)]
    weeks = aggregate_usage(session, "week")
    assert [(r.key, r.totals.input) for r in weeks.rows] == [("2026-W09", 1), ("2026-W10", 2), ("2026-W11", 4),
                                                             ("unknown", 8)]
    window = aggregate_usage(session, "day", since=date(2026, 3, 2), until=date(2026, 3, 8))
    assert window.total.input == 2  # the undated call is left out once a range is asked for


def test_groupings_by_project_agent_and_session() -> None:
    a = SessionUsage("agent:main:main", "main", "/home/a/proj", (_call(1, "m", (1, 0, 0, 0)),))
    b = SessionUsage("pi-session", "pi", "/home/a/other", (_call(2, "m", (2, 0, 0, 0)),))
    c = SessionUsage("agent:ops:main", "ops", "/home/a/proj", (_call(3, "m", (4, 0, 0, 0)),))
    assert {r.key: r.totals.input for r in aggregate_usage([a, b, c], "project").rows} == {
        "/home/a/proj": 5, "/home/a/other": 2}
    assert {r.key: r.totals.input for r in aggregate_usage([a, b, c], "agent").rows} == {"main": 1, "pi": 2,
                                                                                       "ops": 4}
    sessions = aggregate_usage([a, b, c], "session").rows
    assert [r.key for r in sessions] == ["agent:ops:main", "pi-session", "agent:main:main"]  # unpriced: by tokens


def test_cache_hit_ratio_is_reads_over_prompt_tokens() -> None:
    report = aggregate_usage([SessionUsage("s", "main", "/w", (_call(1, "m", (10, 5, 80, 10)),))], "day")
    assert report.total.cache_hit_ratio == pytest.approx(80 / 100)


def test_openclaw_store_estimate_applies_to_the_live_session(tmp_path: Path) -> None:
    sessions = tmp_path / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    objs = [user("u0", None, "hi"), assistant("a0", "u0", "one", 1000), assistant("a1", "a0", "two", 3000)]
    for obj in objs[1:]:
        obj["message"]["model"] = "kimi-k2.5"  # no recorded cost (0) and a model with a catalogue price
    write(sessions / "s-1.jsonl", objs)
    store = {"agent:main:main": {"sessionId": "s-1", "updatedAt": 1, "estimatedCostUsd": 0.42}}
    (sessions / "sessions.json").write_bytes(orjson.dumps(store))
    total = _report([tmp_path])["total"]
    assert total["cost_usd"] == pytest.approx(0.42) and total["cost_source"] == "estimated"


def test_header_cwd_is_the_project(tmp_path: Path) -> None:
    path = write(tmp_path / "p.jsonl", [user("u0", None, "hi"), assistant("a0", "u0", "ok", 10)])
    assert [r["project"] for r in _report([path], "project")["rows"]] == [HEADER["cwd"]]


def test_an_empty_corpus_reports_zero() -> None:
    report = aggregate_usage([], "model")
    assert report.rows == () and report.total.calls == 0 and report.total.cost_source == "none"


def test_compaction_lines_in_a_headerless_file_are_counted(tmp_path: Path) -> None:
    path = write(tmp_path / "h.jsonl", [compaction("c0", "root", "u1"), user("u1", "c0", "hi"),
                                       assistant("a1", "u1", "ok", 50)], header=False)
    assert _report([path])["total"]["compactions"] == 1
