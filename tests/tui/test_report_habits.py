"""``ctxscope report`` where users know ccusage's habits: months, IANA zones, recorded costs only, cents, no empty
"unknown" row, and files no reader can read named (exit 1) instead of counted as $0 (docs/usage.md)."""

from __future__ import annotations

import shutil
from datetime import UTC, date
from pathlib import Path

import orjson
import pytest

from engine.accounting.rounding import money
from engine.index.records import UsageRecord
from engine.usage.aggregate import aggregate_usage
from engine.usage.model import SessionUsage, UsageRow, UsageTotals
from tests.conftest import ENDS_ON_COMPACTION, MAIN_SESSION, SESSIONS_JSON
from tests.engine._agent_files import SID, claude_session, codex_session
from tui.cli.main import EXIT_FAILED, EXIT_OK, EXIT_USAGE, main
from tui.cli.report_command import report_table


def _call(line: int, stamp: str, cost: float | None = None, model: str = "claude-sonnet-4-5") -> UsageRecord:
    return UsageRecord(line, f"k{line}", None, stamp, model, "anthropic", 1000, 100, 0, 0, cost, None)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    sessions = tmp_path / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    shutil.copy(MAIN_SESSION, sessions / "76cc5ab5-0425-4038-b41f-0af9f313d594.jsonl")
    shutil.copy(ENDS_ON_COMPACTION, sessions / "f8c3e7a8-7dc1-43cc-8ce0-a9d268c29be1.jsonl")
    shutil.copy(SESSIONS_JSON, sessions / "sessions.json")
    return tmp_path


def test_by_month_groups_calls_by_calendar_month_in_the_zone() -> None:
    from zoneinfo import ZoneInfo

    session = SessionUsage("s", "pi", "/w", (_call(1, "2026-01-31T23:30:00Z"), _call(2, "2026-02-01T10:00:00Z"),
                                            _call(3, "2026-02-20T10:00:00Z")))
    utc = aggregate_usage([session], "month", tz=UTC)
    assert [(r.key, r.totals.calls) for r in utc.rows] == [("2026-01", 1), ("2026-02", 2)]
    tokyo = aggregate_usage([session], "month", tz=ZoneInfo("Asia/Tokyo"))  # 23:30 UTC is Feb 1st in Tokyo
    assert [(r.key, r.totals.calls) for r in tokyo.rows] == [("2026-02", 3)]
    assert tokyo.timezone == "Asia/Tokyo"


def test_timezone_option_cuts_days_in_that_zone(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(store), "--json", "--timezone", "UTC"]) == EXIT_OK
    utc = orjson.loads(capsys.readouterr().out)
    assert main(["report", str(store), "--json", "--timezone", "Pacific/Kiritimati"]) == EXIT_OK  # UTC+14
    far = orjson.loads(capsys.readouterr().out)
    assert far["timezone"] == "Pacific/Kiritimati" and utc["timezone"] == "UTC"
    assert far["total"]["calls"] == utc["total"]["calls"] > 0
    assert [r["day"] for r in far["rows"]] != [r["day"] for r in utc["rows"]]


@pytest.mark.parametrize("zone", ["Mars/Olympus_Mons", "../../etc/passwd", ""])
def test_a_bad_timezone_is_one_line_naming_the_option(zone: str, store: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(store), "--timezone", zone]) == EXIT_USAGE
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "--timezone" in err and "IANA" in err


def test_recorded_only_leaves_estimates_out_and_says_so(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    session = SessionUsage("s", "pi", "/w", (_call(1, "2026-01-01T10:00:00Z", cost=0.25),
                                            _call(2, "2026-01-01T11:00:00Z")))
    everything = aggregate_usage([session], "day", tz=UTC).total
    recorded = aggregate_usage([session], "day", tz=UTC, recorded_only=True)
    assert everything.cost_table_usd > 0 and everything.unpriced_calls == 0
    assert recorded.total.cost_usd == pytest.approx(0.25) and recorded.total.unpriced_calls == 1
    assert recorded.total.tokens == everything.tokens and recorded.to_dict()["recorded_only"] is True
    claude_session(tmp_path / f"{SID}.jsonl")  # Claude Code records no cost per call
    assert main(["report", str(tmp_path), "--recorded-only"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "only what the agents recorded" in out and "3 calls with no recorded cost" in out


def test_cost_under_a_dollar_shows_cents_with_the_one_rounding_rule() -> None:
    def table(cost: float) -> str:
        totals = UsageTotals(calls=1, input=10, cost_recorded_usd=cost)
        from engine.usage.model import UsageReport

        return report_table(UsageReport("day", (UsageRow("2026-01-01", totals),), totals, 1, 0, "UTC"))

    assert "$0.42" in table(0.42) and "$0.05" in table(0.05)
    assert money(0.004) in table(0.004) and "$0.0040" not in table(0.004)


def test_no_unknown_row_holds_a_compaction_without_calls(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # f8c3e7a8 ends on a compaction: no call after it to pay for it or name its model.
    for by in ("model", "day"):
        assert main(["report", str(store), "--json", "--utc", "--by", by]) == EXIT_OK
        result = orjson.loads(capsys.readouterr().out)
        assert all(row["calls"] > 0 for row in result["rows"]), result["rows"]
        assert sum(r["compactions"] for r in result["rows"]) == result["total"]["compactions"] > 0


def _junk(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"x": 1}\n{"sessionId": 5}\n')
    return path


@pytest.mark.parametrize(("where", "agent"), [
    (".pi/agent/sessions/--w--/2026-11-27T10-00-00-000Z_abc.jsonl", "a pi"),
    ("oc/agents/main/sessions/abc.jsonl", "an OpenClaw"),  # agents/<id>/sessions: an OpenClaw state dir
    (f".codex/sessions/2026/11/27/rollout-2026-11-27T10-00-00-{SID}.jsonl", "a Codex"),
    (f".claude/projects/-w/{SID}.jsonl", "a Claude Code"),
])
def test_a_file_no_reader_can_read_is_named_never_counted_as_zero(
    where: str, agent: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    junk = _junk(tmp_path / where)
    assert main(["report", "--json", str(junk)]) == EXIT_FAILED
    out, err = capsys.readouterr()
    assert f"{junk}: not {agent} session ctxscope can read" in err
    assert orjson.loads(out)["sessions"] == 0


def test_an_unreadable_file_beside_codex_sessions_fails_the_report(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    codex_session(tmp_path / ".codex", compacted=False)
    junk = _junk(tmp_path / "extra" / "notes.jsonl")
    assert main(["report", str(tmp_path / ".codex"), str(junk)]) == EXIT_FAILED
    out, err = capsys.readouterr()
    assert f"{junk}: not" in err and "could not be read and are not counted" in err
    assert date(2026, 11, 27).isoformat() in out


@pytest.mark.parametrize("index", ["on", "off"])  # off: no memo listing, discovery walks the tree itself
@pytest.mark.parametrize(("where", "reader"), [
    (f".codex/sessions/2026/11/27/rollout-2026-11-27T10-00-00-{SID}.jsonl", "codex"),
    (f".claude/projects/-w/{SID}.jsonl", "claude-code"),
])
@pytest.mark.parametrize("content", ['{"foo": 1}\n', '{"type":"session","id":"s1"}\n', "not json\n"])
def test_a_file_in_an_agents_place_with_its_name_is_that_agents_never_skipped_or_counted(
    where: str, reader: str, content: str, index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Discovery takes such a file for the agent's without reading it (docs/usage.md, Speed): whatever it holds,
    # the agent's reader judges it, and a file it cannot read is named — not skipped as "no session" (a JSON line
    # without a type was), nor counted as an empty pi session (a pi header was).
    if index == "off":
        monkeypatch.setenv("CTXSCOPE_NO_INDEX", "1")
    junk = tmp_path / where
    junk.parent.mkdir(parents=True)
    junk.write_text(content)
    root = tmp_path / where.split("/")[0] / where.split("/")[1]
    assert main(["report", "--json", "--utc", str(root)]) == EXIT_FAILED
    out, err = capsys.readouterr()
    assert f"{junk}: not a {reader} session ctxscope can read" in err
    assert orjson.loads(out)["sessions"] == 0


def test_a_report_runs_without_the_cyclic_collector_and_gives_it_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    # Its passes over the report's acyclic containers cost CPU and freed nothing (docs/usage.md, Speed).
    import gc

    from tui.cli import report_command

    codex_session(tmp_path / ".codex", compacted=False)
    seen: list[bool] = []
    real = report_command._report

    def spy(*args: object, **kwargs: object) -> int:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(report_command, "_report", spy)
    assert gc.isenabled()
    assert main(["report", "--json", "--utc", str(tmp_path / ".codex")]) == EXIT_OK
    assert seen == [False] and gc.isenabled()
    assert orjson.loads(capsys.readouterr().out)["total"]["calls"] > 0
