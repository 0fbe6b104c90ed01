"""What a Claude Code or Codex session has cost, for ``inspect``, the TUI and the metrics (docs/usage.md).

A call is priced by :func:`engine.usage.aggregate.call_prices`, the function ``report`` prices the same calls with
(one value, one function): the cost the agent recorded (older Claude Code's ``costUSD``; docs/claude-code.md) first,
else the model catalogue. The next-turn figures follow :func:`engine.session.cost.session_cost`'s rule (the current
context re-written to the cache when cold, read from it when warm).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from engine.session.cost import DEFAULT_CACHE_TTL_SECONDS, SessionCost, SpendSource, next_turn_costs, price_for
from engine.stores.timestamps import parse_iso
from engine.usage.agent_usage import usage_of
from engine.usage.aggregate import call_prices

if TYPE_CHECKING:
    from engine.session.snapshot import SessionSnapshot

__all__ = ["agent_session_cost"]


def agent_session_cost(snapshot: SessionSnapshot, *, now: datetime,
                       cache_ttl_seconds: int = DEFAULT_CACHE_TTL_SECONDS) -> SessionCost:
    """Spend and next-turn cost of an agent session whose snapshot carries its calls (``agent_calls``)."""
    agent_calls = snapshot.agent_calls or ()
    usage = usage_of(snapshot.source, snapshot.provider or "", None, snapshot.project, agent_calls, ())
    priced = call_prices(usage)
    spend = sum(found[0] for found in priced if found is not None)
    from_table = sum(1 for found in priced if found is not None and found[1] == "price-table")
    from_other = sum(1 for found in priced if found is not None and found[1] != "price-table")
    unpriced = sum(1 for call, found in zip(usage.calls, priced, strict=True)
                   if found is None and call.input + call.output + call.cache_read + call.cache_write)
    source: SpendSource = ("mixed" if from_table and from_other else "price-table" if from_table
                           else "usage.cost" if from_other else "unknown")
    session_price = price_for(snapshot.model, usage.calls[-1].provider if usage.calls else None)
    last = next((parse_iso(c.timestamp) for c in reversed(usage.calls) if c.timestamp), None)
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    since = (now - last).total_seconds() if last else None
    prefix = snapshot.tokens.tokens
    cold, warm = next_turn_costs(prefix, session_price, cache_ttl_seconds)
    write_share = None
    if session_price is not None and spend > 0:
        writes = sum(c.cache_write for c in usage.calls) * session_price.cache_write(cache_ttl_seconds) / 1_000_000
        write_share = min(1.0, writes / spend)
    return SessionCost(
        spend_usd=spend if from_table + from_other else None,
        spend_source=source,
        input_tokens=sum(c.input for c in usage.calls),
        output_tokens=sum(c.output for c in usage.calls),
        cache_read_tokens=sum(c.cache_read for c in usage.calls),
        cache_write_tokens=sum(c.cache_write for c in usage.calls),
        cache_write_share=write_share,
        last_call_at=last,
        seconds_since_last_call=since,
        cache_ttl_seconds=cache_ttl_seconds,
        cache_warm=None if since is None else since <= cache_ttl_seconds,
        next_turn_cold_cost_usd=cold,
        next_turn_warm_cost_usd=warm,
        prefix_tokens=prefix,
        price_source=session_price.source if session_price else None,
        calls=len(usage.calls),
        priced_from_usage=from_other,
        unpriced_calls=unpriced,
        recorded_usd=sum(found[0] for found in priced if found is not None and found[1] != "price-table"),
        estimated_usd=sum(found[0] for found in priced if found is not None and found[1] == "price-table"),
    )
