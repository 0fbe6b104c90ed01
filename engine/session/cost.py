"""What a session has cost, what its next turn will cost, and what a context rewrite costs.

See docs/compaction.md, Cost of a rewrite.

Spend is ``usage.cost.total`` as the agent recorded it when that is a positive figure — or any figure, zero
included, in OpenClaw's SQLite store, where OpenClaw prices every call with the rates configured in
``openclaw.json`` (docs/openclaw.md) — else the model's list
prices from the model catalogue (input, output, cache read, 5-minute and 1-hour cache write — per model, never one
multiplier; docs/models.md), labelled with the catalogue's source and date in :attr:`ModelPrice.source`.

The prompt cache lives for a TTL after its last use: 300 s by default, 3,600 s when the agent asks for the
1-hour cache (OpenClaw ``cacheRetention: "long"``; the original cost design says "long" is still 5 minutes,
which current Anthropic pricing contradicts — so the TTL is a parameter, see :func:`cache_ttl_for`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal

from engine.catalog.model_catalog import CatalogEntry, lookup
from engine.stores.timestamps import parse_iso

if TYPE_CHECKING:  # types only: a report over Claude Code or Codex files does not import the entry parser
    from engine.session.snapshot import SessionSnapshot
    from engine.stores.entries import Entry, Usage

__all__ = [
    "DEFAULT_CACHE_TTL_SECONDS",
    "LONG_CACHE_TTL_SECONDS",
    "ModelPrice",
    "RewriteCost",
    "SessionCost",
    "SpendSource",
    "cache_ttl_for",
    "call_cost",
    "entries_cost",
    "next_turn_costs",
    "price_for",
    "rewrite_cost",
]

DEFAULT_CACHE_TTL_SECONDS = 300
"""Anthropic's default (``ephemeral``, 5-minute) prompt-cache lifetime."""
LONG_CACHE_TTL_SECONDS = 3600
"""The 1-hour prompt cache (written at 2× input on Anthropic)."""

SpendSource = Literal["usage.cost", "price-table", "mixed", "unknown"]


@dataclass(frozen=True, slots=True)
class ModelPrice:
    """List prices of one model, in USD per million tokens."""

    input: float
    output: float
    cache_read: float
    cache_write_5m: float
    """Writing the 5-minute cache; equals :attr:`input` for vendors whose caching has no write premium."""
    cache_write_1h: float
    source: str
    """Where the rates come from: ``catalog:<matched id>`` (the catalogue's own source and date are in
    :func:`engine.catalog.model_catalog.catalog_info`), ``local:<provider>`` or ``table:free``."""

    def cache_write(self, ttl_seconds: int) -> float:
        """The cache-write rate for a cache of ``ttl_seconds`` (1-hour rate from 3,600 s up)."""
        return self.cache_write_1h if ttl_seconds >= LONG_CACHE_TTL_SECONDS else self.cache_write_5m


def _catalog_price(entry: CatalogEntry) -> ModelPrice | None:
    # Rates the catalogue leaves out are filled so no call is priced below what it costs: no listed cache read
    # is billed as input, no listed cache write (vendors without a write premium) as input, no 1-hour rate as
    # the 5-minute one (docs/models.md, Prices).
    if entry.input is None or entry.output is None:
        return None
    read = entry.cache_read if entry.cache_read is not None else entry.input
    write_5m = entry.cache_write_5m if entry.cache_write_5m else entry.input
    write_1h = entry.cache_write_1h if entry.cache_write_1h else write_5m
    return ModelPrice(entry.input, entry.output, read, write_5m, write_1h, f"catalog:{entry.id}")


_FREE = ModelPrice(0.0, 0.0, 0.0, 0.0, 0.0, "table:free")
_LOCAL_PROVIDERS = frozenset({"ollama", "lmstudio", "llama.cpp", "llamacpp", "vllm", "local"})


def price_for(model: str | None, provider: str | None = None) -> ModelPrice | None:
    """The list price of ``model`` (an id, optionally ``vendor/``-prefixed as on OpenRouter), or ``None``.

    ``:free`` OpenRouter variants and local providers (Ollama, LM Studio, vLLM, llama.cpp) cost nothing.
    """
    if provider and provider.lower() in _LOCAL_PROVIDERS:
        return ModelPrice(0.0, 0.0, 0.0, 0.0, 0.0, f"local:{provider.lower()}")
    if not model:
        return None
    if model.lower().endswith(":free"):
        return _FREE
    entry = lookup(model)
    return _catalog_price(entry) if entry is not None else None


def cache_ttl_for(cache_retention: str | None) -> int:
    """The cache TTL in seconds for OpenClaw's ``cacheRetention`` (``long`` → 1 hour, else 5 minutes)."""
    return LONG_CACHE_TTL_SECONDS if cache_retention in ("long", "1h") else DEFAULT_CACHE_TTL_SECONDS


def call_cost(usage: Usage, price: ModelPrice, *, ttl_seconds: int = DEFAULT_CACHE_TTL_SECONDS) -> float:
    """USD of one call's ``usage`` at ``price``; cache writes at the rate of a ``ttl_seconds`` cache."""
    return (
        usage.input * price.input
        + usage.output * price.output
        + usage.cache_read * price.cache_read
        + usage.cache_write * price.cache_write(ttl_seconds)
    ) / 1_000_000


@dataclass(frozen=True, slots=True)
class SessionCost:
    """Spend so far and the price of the next turn, warm or cold (all money in USD)."""

    spend_usd: float | None
    """Total over the counted calls; ``None`` when no call could be priced."""
    spend_source: SpendSource
    """``usage.cost`` (every priced call recorded its cost), ``price-table``, ``mixed`` or ``unknown``."""
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cache_write_share: float | None
    """Fraction (0–1) of spend that went to cache writes; split by table rates, since transcripts keep only
    ``cost.total`` per call. ``None`` when the model's rates are unknown or nothing was spent."""
    last_call_at: datetime | None
    """Time of the last call with valid usage — the last time the prompt cache was written or read."""
    seconds_since_last_call: float | None
    cache_ttl_seconds: int
    cache_warm: bool | None
    """Whether the cache is still alive (``seconds_since_last_call <= cache_ttl_seconds``); ``None`` if unknown."""
    next_turn_cold_cost_usd: float | None
    """Re-writing the current prefix (:attr:`prefix_tokens`) to the cache, as the next call must when cold."""
    next_turn_warm_cost_usd: float | None
    """Reading the current prefix from the cache. Both next-turn figures exclude the turn's new input and output."""
    prefix_tokens: int | None = None
    """Tokens of the current context: the measured figure, else pi's chars/4 estimate after a compaction."""
    price_source: str | None = None
    calls: int = 0
    """Assistant calls counted."""
    priced_from_usage: int = 0
    """Calls whose spend came from ``usage.cost.total``."""
    unpriced_calls: int = 0
    """Calls with tokens but no recorded cost and no known price (left out of :attr:`spend_usd`)."""
    recorded_usd: float = 0.0
    """The part of :attr:`spend_usd` the agent recorded (``usage.cost.total``)."""
    estimated_usd: float = 0.0
    """The part of :attr:`spend_usd` priced from the table (calls that recorded no cost)."""


def _is_call(entry: Entry) -> bool:
    # Synthetic ``provider: "openclaw"`` mirrors were never sent to a model; aborted/error calls with usage were.
    return entry.role == "assistant" and entry.usage is not None and entry.provider != "openclaw"


def next_turn_costs(prefix: int | None, price: ModelPrice | None,
                    cache_ttl_seconds: int) -> tuple[float | None, float | None]:
    """The next turn's cost of re-sending ``prefix`` tokens: written to the cache (cold) or read from it (warm);
    every agent's sessions follow this one rule."""
    if prefix is None or price is None:
        return None, None
    return prefix * price.cache_write(cache_ttl_seconds) / 1_000_000, prefix * price.cache_read / 1_000_000


def entries_cost(
    snapshot: SessionSnapshot,
    *,
    now: datetime,
    cache_ttl_seconds: int = DEFAULT_CACHE_TTL_SECONDS,
    entries: Iterable[Entry] | None = None,
) -> SessionCost:
    """Spend and next-turn cost of a session read as entries (pi, OpenClaw); every session's, Claude Code's and
    Codex's too, is :func:`engine.usage.spend.session_cost`.

    Args:
        now: the current time (aware; naive is taken as UTC) — injected so results are reproducible.
        cache_ttl_seconds: the prompt-cache lifetime; also selects the 5-minute or 1-hour write rate for
            calls priced from the table.
        entries: the calls to sum. Default: the snapshot's context path (root → leaf, including everything
            before its compactions); pass the reader's full entry list to include abandoned branches too.
    """
    calls = [e for e in (snapshot.view.path if entries is None else entries) if _is_call(e)]
    session_price = price_for(snapshot.model, snapshot.provider)
    spend = recorded = estimated = 0.0
    write_spend = 0.0
    shared_spend = 0.0  # spend of the calls whose write share is known
    from_usage = from_table = unpriced = 0
    tin = tout = tread = twrite = 0
    # OpenClaw ≥ 2026.8 records each call's cost at its configured rates: a recorded 0 is a free call there.
    zero_is_recorded = snapshot.source.in_database
    for entry in calls:
        usage = entry.usage
        assert usage is not None
        tin, tout = tin + usage.input, tout + usage.output
        tread, twrite = tread + usage.cache_read, twrite + usage.cache_write
        price = price_for(entry.model, entry.provider) or session_price
        # A zero cost on a call with tokens means the agent had no rates for the model, not a free call.
        if usage.cost_total is not None and (usage.cost_total > 0 or (zero_is_recorded and not usage.is_zero)):
            cost = usage.cost_total
            recorded += cost
            from_usage += 1
        elif usage.is_zero:
            continue  # no tokens: nothing was billed
        elif price is not None:
            cost = call_cost(usage, price, ttl_seconds=cache_ttl_seconds)
            estimated += cost
            from_table += 1
        else:
            unpriced += 1
            continue
        spend += cost
        if price is not None:
            table_total = call_cost(usage, price, ttl_seconds=cache_ttl_seconds)
            if table_total > 0:
                write_part = usage.cache_write * price.cache_write(cache_ttl_seconds) / 1_000_000
                write_spend += cost * write_part / table_total
                shared_spend += cost
    source: SpendSource
    if from_usage and from_table:
        source = "mixed"
    elif from_usage:
        source = "usage.cost"
    elif from_table:
        source = "price-table"
    else:
        source = "unknown"
    priced = from_usage + from_table
    last = next((e for e in reversed(calls) if e.has_valid_usage and e.timestamp), None)
    last_at = parse_iso(last.timestamp) if last else None
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    since = (now - last_at).total_seconds() if last_at else None
    prefix: int | None = snapshot.tokens.tokens
    if prefix is None and snapshot.view.messages:
        prefix = sum(m.entry.pi_tokens for m in snapshot.view.messages)
    cold, warm = next_turn_costs(prefix, session_price, cache_ttl_seconds)
    return SessionCost(
        spend_usd=spend if priced else None,
        spend_source=source,
        input_tokens=tin,
        output_tokens=tout,
        cache_read_tokens=tread,
        cache_write_tokens=twrite,
        cache_write_share=write_spend / shared_spend if shared_spend > 0 else None,
        last_call_at=last_at,
        seconds_since_last_call=since,
        cache_ttl_seconds=cache_ttl_seconds,
        cache_warm=None if since is None else since <= cache_ttl_seconds,
        next_turn_cold_cost_usd=cold,
        next_turn_warm_cost_usd=warm,
        prefix_tokens=prefix,
        price_source=session_price.source if session_price else None,
        calls=len(calls),
        priced_from_usage=from_usage,
        unpriced_calls=unpriced,
        recorded_usd=recorded,
        estimated_usd=estimated,
    )


@dataclass(frozen=True, slots=True)
class RewriteCost:
    """One-off cache cost of a rewritten prefix against what it saves on every later turn (USD)."""

    tokens_before: int
    tokens_after: int
    cache_write_cost_usd: float | None
    """Writing the new prefix (``tokens_after``) to the cache once."""
    tokens_saved_per_turn: int
    saved_per_turn_usd: float | None
    """Cache-read price of the tokens no longer sent, per later turn."""
    break_even_turns: float | None
    """``cache_write_cost_usd / saved_per_turn_usd``; ``None`` when the rewrite saves nothing or prices are unknown."""
    price_source: str | None

    def payback(self) -> str:
        """When the rewrite pays for itself, in the words every view uses (``after 2.3 turns``, ``never: …``)."""
        if self.cache_write_cost_usd is None:
            return "unknown: no price for this model"
        if self.tokens_saved_per_turn <= 0:
            return "never: it saves no tokens per turn"
        if self.break_even_turns is None:
            return "never: reading these tokens from the cache costs nothing"
        if self.break_even_turns == 0:
            return "at once: writing the new prefix costs nothing"
        return f"after {self.break_even_turns:,.1f} turns"


def rewrite_cost(
    model: str | None,
    provider: str | None,
    tokens_before: int,
    tokens_after: int,
    *,
    ttl_seconds: int = DEFAULT_CACHE_TTL_SECONDS,
) -> RewriteCost:
    """What rewriting the context from ``tokens_before`` to ``tokens_after`` tokens costs and saves.

    Assumes a warm cache: the rewrite invalidates the cached prefix, so the next call writes ``tokens_after``
    (5-minute rate, or 1-hour from ``ttl_seconds >= 3600``); every later call reads fewer tokens. When the cache
    is cold anyway, the write is owed regardless and the rewrite pays off at once.
    """
    saved = max(0, tokens_before - tokens_after)
    price = price_for(model, provider)
    if price is None:
        return RewriteCost(tokens_before, tokens_after, None, saved, None, None, None)
    write = tokens_after * price.cache_write(ttl_seconds) / 1_000_000
    per_turn = saved * price.cache_read / 1_000_000
    if saved <= 0:
        turns = None
    elif per_turn > 0:
        turns = write / per_turn
    else:
        turns = 0.0 if write == 0 else None
    return RewriteCost(tokens_before, tokens_after, write, saved, per_turn, turns, price.source)
