"""Session spend, cache warm/cold and the cost of a context rewrite (docs/compaction.md), on real and built files."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest

from engine.agents.discovery import discover_sessions
from engine.session.cost import (
    ModelPrice,
    cache_ttl_for,
    call_cost,
    entries_cost,
    price_for,
    rewrite_cost,
)
from engine.session.snapshot import SessionSnapshot, snapshot_session
from engine.stores.entries import Usage
from tests.conftest import HEADERLESS, MAIN_SESSION, V1_LEGACY
from tests.engine._transcripts import user, write

LAST_CALL = datetime(2026, 3, 1, 10, 0, 2, tzinfo=UTC)


def _snapshot(path: Path) -> SessionSnapshot:
    return snapshot_session(discover_sessions([path]).sessions[0])


def _call(
    id_: str, parent: str | None, *, model: str = "claude-sonnet-4-5", provider: str = "anthropic",
    inp: int = 0, out: int = 0, read: int = 0, write_: int = 0, cost: float | None = None,
    stop: str = "stop", at: datetime = LAST_CALL,
) -> dict[str, Any]:
    usage: dict[str, Any] = {"input": inp, "output": out, "cacheRead": read, "cacheWrite": write_,
                             "totalTokens": inp + out + read + write_}
    if cost is not None:
        usage["cost"] = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost}
    stamp = at.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return {"type": "message", "id": id_, "parentId": parent, "timestamp": stamp,
            "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}], "provider": provider,
                        "model": model, "usage": usage, "stopReason": stop, "timestamp": 2}}


def _recorded_costs(path: Path) -> list[float]:
    costs = []
    for raw in path.read_bytes().splitlines():
        obj = orjson.loads(raw)
        message = obj.get("message") or {}
        cost = ((message.get("usage") or {}).get("cost") or {}).get("total")
        if message.get("role") == "assistant" and message.get("provider") != "openclaw" and cost:
            costs.append(cost)
    return costs


# --- spend ---------------------------------------------------------------------------------------------------


def test_recorded_usage_cost_is_preferred_over_the_table(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", [
        user("u1", None, "go"),
        _call("a1", "u1", inp=1_000, out=500, cost=0.25),  # the table would say $0.0105
    ])
    cost = entries_cost(_snapshot(path), now=LAST_CALL)
    assert (cost.spend_source, cost.spend_usd, cost.priced_from_usage) == ("usage.cost", 0.25, 1)


def test_real_recorded_costs_are_summed_and_agree_with_the_anthropic_table() -> None:
    snap = _snapshot(V1_LEGACY)
    cost = entries_cost(snap, now=datetime(2026, 1, 1, tzinfo=UTC))
    assert cost.spend_source == "usage.cost"
    assert cost.spend_usd == pytest.approx(sum(_recorded_costs(V1_LEGACY)))
    # pi priced these Sonnet 4.5 calls itself; the table must reproduce its figure (5-minute writes).
    price = price_for(snap.model, snap.provider)
    assert price is not None
    table = sum(call_cost(e.usage, price) for e in snap.view.path if e.role == "assistant" and e.usage is not None)
    assert table == pytest.approx(cost.spend_usd, rel=1e-9)
    assert cost.cache_write_share == pytest.approx(
        cost.cache_write_tokens * 3.75 / 1e6 / (cost.spend_usd or 1), rel=1e-9
    )


def test_price_table_is_used_when_the_transcript_has_no_cost(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", [
        user("u1", None, "go"),
        _call("a1", "u1", inp=1_000, out=500, read=10_000, write_=2_000),
    ])
    cost = entries_cost(_snapshot(path), now=LAST_CALL)
    # Sonnet 4.5: 3 in, 15 out, 0.30 read, 3.75 5-minute write (USD per million tokens).
    assert cost.spend_source == "price-table"
    assert cost.spend_usd == pytest.approx((1_000 * 3 + 500 * 15 + 10_000 * 0.30 + 2_000 * 3.75) / 1e6)
    assert (cost.input_tokens, cost.output_tokens, cost.cache_read_tokens, cost.cache_write_tokens) == (
        1_000, 500, 10_000, 2_000,
    )


def test_zero_recorded_cost_with_tokens_means_unpriced_not_free() -> None:
    snap = _snapshot(HEADERLESS)  # kimi-code: the agent recorded cost 0.0 on calls with 134k tokens
    calls = [e.usage for e in snap.view.path if e.role == "assistant" and e.usage is not None]
    # The model catalogue does not list kimi-code: those calls are unpriced, never counted as free.
    assert price_for("kimi-code", "kimi") is None
    cost = entries_cost(snap, now=datetime(2026, 6, 1, tzinfo=UTC))
    assert cost.spend_usd is None and cost.spend_source == "unknown"
    assert cost.unpriced_calls == sum(1 for u in calls if not u.is_zero) > 0
    # Once the model is known, the same calls are priced from the catalogue, not taken as free.
    priced = entries_cost(snap, now=datetime(2026, 6, 1, tzinfo=UTC), entries=[
        e._replace(model="kimi-k2.5") for e in snap.view.path
    ])
    kimi = price_for("kimi-k2.5")
    assert kimi is not None and priced.spend_source == "price-table"
    assert priced.spend_usd == pytest.approx(sum(call_cost(u, kimi) for u in calls))
    assert (priced.spend_usd or 0) > 0


def test_each_call_is_priced_by_its_own_model() -> None:
    # The main fixture switched from qwen3-max (no recorded cost) to MiniMax (recorded cost) mid-session.
    snap = _snapshot(MAIN_SESSION)
    cost = entries_cost(snap, now=datetime(2026, 2, 1, tzinfo=UTC))
    qwen = price_for("qwen3-max-2026-01-23")
    assert qwen is not None
    table_part = sum(
        call_cost(e.usage, qwen)
        for e in snap.view.path
        if e.role == "assistant" and e.usage is not None and not e.usage.cost_total and e.model
        and e.model.startswith("qwen")
    )
    assert cost.spend_source == "mixed"
    assert cost.priced_from_usage == len(_recorded_costs(MAIN_SESSION))
    assert cost.spend_usd == pytest.approx(sum(_recorded_costs(MAIN_SESSION)) + table_part)
    # The split `watch --metrics` exports: what the agent recorded, and what the table estimated.
    assert cost.recorded_usd == pytest.approx(sum(_recorded_costs(MAIN_SESSION)))
    assert cost.estimated_usd == pytest.approx(table_part) and table_part > 0


def test_synthetic_and_empty_calls_are_not_billed(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", [
        user("u1", None, "go"),
        _call("a1", "u1", inp=1_000, cost=0.5),
        _call("a2", "a1", provider="openclaw", model="delivery-mirror", inp=9_999, cost=9.0),
        _call("a3", "a2", stop="error"),
    ])
    cost = entries_cost(_snapshot(path), now=LAST_CALL)
    assert cost.spend_usd == pytest.approx(0.5)
    assert cost.calls == 2  # the mirror is not a call; the empty error is, but costs nothing
    assert cost.input_tokens == 1_000


def test_unknown_model_has_no_spend_rather_than_a_guess(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", [user("u1", None, "go"), _call("a1", "u1", model="mystery-9", inp=500)])
    cost = entries_cost(_snapshot(path), now=LAST_CALL)
    assert (cost.spend_usd, cost.spend_source, cost.unpriced_calls) == (None, "unknown", 1)
    assert cost.next_turn_cold_cost_usd is None and cost.cache_write_share is None


def test_cache_write_share_of_spend(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", [
        user("u1", None, "go"),
        _call("a1", "u1", inp=1_000, write_=1_000),  # table: 3.00 input + 3.75 write
        _call("a2", "a1", inp=1_000, write_=1_000, cost=1.0),  # recorded total, split in the same proportion
    ])
    cost = entries_cost(_snapshot(path), now=LAST_CALL)
    share = 3.75 / 6.75
    assert cost.cache_write_share == pytest.approx((0.00675 * share + 1.0 * share) / (0.00675 + 1.0))
    assert cost.cache_write_share == pytest.approx(share)


# --- cache TTL: 5 minutes vs 1 hour ------------------------------------------------------------------------------


def test_one_hour_writes_are_priced_apart_from_five_minute_writes(tmp_path: Path) -> None:
    opus = price_for("claude-opus-4-5-20251101")
    old_opus = price_for("claude-opus-4-1-20250805")
    assert opus is not None and old_opus is not None
    assert (opus.cache_write_5m, opus.cache_write_1h, opus.cache_read) == (6.25, 10, 0.5)
    assert (old_opus.cache_write_5m, old_opus.cache_write_1h) == (18.75, 30)
    path = write(tmp_path / "s.jsonl", [user("u1", None, "go"), _call("a1", "u1", write_=100_000)])
    snap = _snapshot(path)
    short = entries_cost(snap, now=LAST_CALL, cache_ttl_seconds=300)
    long = entries_cost(snap, now=LAST_CALL, cache_ttl_seconds=3600)
    assert short.spend_usd == pytest.approx(100_000 * 3.75 / 1e6)
    assert long.spend_usd == pytest.approx(100_000 * 6.0 / 1e6)


def test_cache_is_warm_within_the_ttl_and_cold_after(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", [
        user("u1", None, "go"),
        _call("a1", "u1", inp=10, read=40_000, write_=2_000, out=100, at=LAST_CALL - timedelta(seconds=60)),
        _call("a2", "a1", inp=10, read=42_000, out=100, at=LAST_CALL),
        _call("a3", "a2", stop="aborted", at=LAST_CALL + timedelta(seconds=30)),  # no usage: not a cache touch
    ])
    snap = _snapshot(path)
    warm = entries_cost(snap, now=LAST_CALL + timedelta(seconds=299))
    cold = entries_cost(snap, now=LAST_CALL + timedelta(seconds=301))
    long = entries_cost(snap, now=LAST_CALL + timedelta(seconds=301), cache_ttl_seconds=3600)
    assert warm.last_call_at == LAST_CALL
    assert (warm.cache_warm, cold.cache_warm, long.cache_warm) == (True, False, True)
    assert cold.seconds_since_last_call == pytest.approx(301)
    prefix = snap.tokens.tokens
    assert prefix is not None and cold.prefix_tokens == prefix
    assert cold.next_turn_cold_cost_usd == pytest.approx(prefix * 3.75 / 1e6)
    assert cold.next_turn_warm_cost_usd == pytest.approx(prefix * 0.30 / 1e6)
    assert long.next_turn_cold_cost_usd == pytest.approx(prefix * 6.0 / 1e6)


def test_cache_retention_maps_to_a_ttl() -> None:
    assert cache_ttl_for("long") == 3600
    assert cache_ttl_for("short") == cache_ttl_for(None) == 300


# --- the price table ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "provider", "expected"),
    [
        ("claude-sonnet-4-5-20250929", "anthropic", (3, 15, 0.30, 3.75, 6)),
        ("anthropic/claude-3.7-sonnet", "openrouter", (3, 15, 0.30, 3.75, 6)),
        ("claude-haiku-4-5", "anthropic", (1, 5, 0.10, 1.25, 2)),
        ("claude-3-5-haiku-20241022", "anthropic", (0.80, 4, 0.08, 1, 1.6)),
        ("claude-opus-4-20250514", "anthropic", (15, 75, 1.50, 18.75, 30)),
        ("gpt-4.1-mini", "openai", (0.40, 1.60, 0.10, 0.40, 0.40)),
        ("google/gemini-2.0-flash-exp:free", "openrouter", (0, 0, 0, 0, 0)),
        ("llama3.3:70b", "ollama", (0, 0, 0, 0, 0)),
    ],
)
def test_price_table_rates(model: str, provider: str, expected: tuple[float, ...]) -> None:
    price = price_for(model, provider)
    assert price is not None
    got = (price.input, price.output, price.cache_read, price.cache_write_5m, price.cache_write_1h)
    assert got == pytest.approx(expected)


def test_rates_are_per_model_not_one_multiplier() -> None:
    names = ["claude-sonnet-4-5", "gpt-5", "gemini-2.5-pro", "qwen3-max", "kimi-k2.5", "MiniMax-M2.1", "deepseek-chat"]
    prices = [price_for(n) for n in names]
    known = [p for p in prices if p is not None]
    assert len(known) == len(names)
    assert len({round(p.cache_read / p.input, 3) for p in known}) >= 3
    assert len({round(p.cache_write_5m / p.input, 3) for p in known}) >= 2
    # Every rate says where it comes from: the catalogue's source and date, and the id the model matched.
    assert [p.source for p in known[:2]] == ["catalog:claude-sonnet-4-5", "catalog:gpt-5"]
    assert price_for("totally-unknown-model") is None and price_for(None) is None


def test_call_cost_by_hand() -> None:
    price = ModelPrice(2.0, 10.0, 0.2, 2.5, 4.0, "test")
    usage = Usage(input=1_000_000, output=100_000, cache_read=500_000, cache_write=200_000, total_tokens=0)
    assert call_cost(usage, price) == pytest.approx(2.0 + 1.0 + 0.1 + 0.5)
    assert call_cost(usage, price, ttl_seconds=3600) == pytest.approx(2.0 + 1.0 + 0.1 + 0.8)


# --- rewrite cost and break-even -----------------------------------------------------------------------------------


def test_rewrite_break_even_by_hand() -> None:
    # Sonnet: write 30k new prefix at 3.75/M = $0.1125; each later turn reads 120k fewer at 0.30/M = $0.036.
    cost = rewrite_cost("claude-sonnet-4-5", "anthropic", 150_000, 30_000)
    assert cost.cache_write_cost_usd == pytest.approx(0.1125)
    assert cost.tokens_saved_per_turn == 120_000
    assert cost.saved_per_turn_usd == pytest.approx(0.036)
    assert cost.break_even_turns == pytest.approx(3.125)
    assert cost.price_source == "catalog:claude-sonnet-4-5"
    hour = rewrite_cost("claude-sonnet-4-5", "anthropic", 150_000, 30_000, ttl_seconds=3600)
    assert hour.cache_write_cost_usd == pytest.approx(0.18)
    assert hour.break_even_turns == pytest.approx(5.0)


def test_rewrite_that_saves_nothing_never_breaks_even() -> None:
    cost = rewrite_cost("claude-sonnet-4-5", "anthropic", 30_000, 30_000)
    assert (cost.tokens_saved_per_turn, cost.saved_per_turn_usd, cost.break_even_turns) == (0, 0.0, None)
    unknown = rewrite_cost("mystery-9", None, 150_000, 30_000)
    assert (unknown.cache_write_cost_usd, unknown.break_even_turns, unknown.price_source) == (None, None, None)
    assert unknown.tokens_saved_per_turn == 120_000


def test_a_zero_cost_recorded_in_openclaws_database_is_free_not_unpriced(tmp_path: Path) -> None:
    """OpenClaw ≥ 2026.8 prices every call at the rates in openclaw.json: 0 there is a configured free model."""
    import sqlite3

    from engine.session.snapshot import SessionFollower

    agent_dir = tmp_path / "agents" / "main" / "agent"
    agent_dir.mkdir(parents=True)
    db = agent_dir / "openclaw-agent.sqlite"
    events = [{"type": "session", "version": 4, "id": "s-1", "timestamp": "2026-03-01T10:00:00.000Z"},
              _call("a1", None, model="fake-model", provider="fake", inp=5000, out=200, cost=0.0),
              _call("a2", "a1", model="fake-model", provider="fake", inp=6000, out=300, cost=0.0)]
    with sqlite3.connect(db) as connection:
        connection.executescript(
            "CREATE TABLE session_nodes (session_key TEXT PRIMARY KEY, current_session_id TEXT, entry_json TEXT);"
            "CREATE TABLE transcript_events (session_id TEXT, seq INTEGER, event_json TEXT, event_zstd BLOB);")
        connection.execute("INSERT INTO session_nodes VALUES ('agent:main:free', 's-1', '{}')")
        connection.executemany("INSERT INTO transcript_events VALUES ('s-1', ?, ?, NULL)",
                               [(i, orjson.dumps(e).decode()) for i, e in enumerate(events)])
    source = discover_sessions([db]).sessions[0]
    cost = entries_cost(SessionFollower(source).refresh(), now=LAST_CALL)
    assert (cost.spend_usd, cost.spend_source, cost.unpriced_calls, cost.priced_from_usage) == (0.0, "usage.cost", 0, 2)
