"""Claude Code and Codex sessions show their spend — in ``inspect``, the TUI's spend cell and the metrics — priced
by the function ``report`` prices them with (docs/usage.md): the same figure for the same calls."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine import Config, aggregate_usage, collect_usage, discover_sessions, snapshot_session
from engine.live.insight import assess_session
from engine.usage.spend import session_cost
from sim.agent_corpus import write_claude_code, write_codex
from tui.cli.main import main

NOW = datetime(2030, 1, 1, tzinfo=UTC)


def _report(path: Path) -> tuple[float, int]:
    found = collect_usage(discover_sessions([path]))[0]
    total = aggregate_usage(found, "session").total
    return total.cost_usd, total.calls


def _report_cost(path: Path) -> float:
    return _report(path)[0]


@pytest.mark.parametrize("write", [write_claude_code, write_codex])
def test_an_agent_session_costs_what_report_says(write, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = next(iter(write(tmp_path / "home", 1, turns=3)))
    snapshot = snapshot_session(discover_sessions([path]).sessions[0], Config())
    cost = session_cost(snapshot, now=NOW)
    expected, calls = _report(path)
    assert expected > 0
    assert cost.spend_usd == pytest.approx(expected, rel=1e-12, abs=1e-12)
    assert cost.spend_source == "price-table" and cost.price_source is not None
    assert cost.price_source.startswith("catalog:") and cost.calls == calls and cost.unpriced_calls == 0
    # The TUI's spend cell and the metrics read the insight's cost: the same figure.
    insight = assess_session(snapshot, tmp_path / "state", now=NOW)
    assert insight.cost.spend_usd == cost.spend_usd


@pytest.mark.parametrize("write", [write_claude_code, write_codex])
def test_inspect_shows_an_agent_sessions_spend(write, tmp_path: Path,  # type: ignore[no-untyped-def]
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = next(iter(write(tmp_path / "home", 1, turns=2)))
    assert main(["inspect", "--json", str(path)]) == 0
    spend = json.loads(capsys.readouterr().out)["spend"]
    assert spend["usd"] == pytest.approx(_report_cost(path), rel=1e-12) and spend["source"] == "price-table"
    assert main(["inspect", str(path)]) == 0
    assert "spend unknown" not in capsys.readouterr().out


def test_an_unknown_model_is_counted_unpriced_not_free(tmp_path: Path) -> None:
    path = next(iter(write_codex(tmp_path / "home", 1, turns=2)))
    path.write_bytes(path.read_bytes().replace(b'"gpt-5', b'"no-such-model-5'))
    snapshot = snapshot_session(discover_sessions([path]).sessions[0], Config())
    cost = session_cost(snapshot, now=NOW)
    assert cost.spend_usd is None and cost.spend_source == "unknown" and cost.unpriced_calls == cost.calls > 0
