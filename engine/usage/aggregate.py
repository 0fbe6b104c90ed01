"""Usage grouped by day, week, month, model, project, agent or session: pure, from indexed records (``docs/usage.md``).

Each request is counted once. Calls and compactions carry a request key (:mod:`engine.index.records`); the first
session that holds a key owns it — sessions are taken live ones first, then archives — and every later copy
(a fork, a pre-compaction copy, an archive, the SQLite import of the same transcript) is skipped and counted in
:attr:`~engine.usage.model.UsageReport.duplicate_calls`. Within one transcript a line is read once, so an entry on
two branches of pi's tree is one call.

A compaction costs the cache write of the prefix it leaves: the first call after it re-sends that prefix, priced
at the cache-write rate of that call's model (:func:`engine.session.cost.rewrite_cost`). A compaction with no
call after it yet is grouped with the call before it (its model, its day when it has none of its own), so no
group holds a compaction and no call under "unknown".
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo

from engine.index.record_types import CompactionRecord, UsageRecord
from engine.session.cost import DEFAULT_CACHE_TTL_SECONDS, ModelPrice, price_for, rewrite_cost
from engine.stores.timestamps import parse_iso
from engine.usage.model import GroupBy, SessionUsage, UsageReport, UsageRow, UsageTotals

__all__ = ["aggregate_usage", "call_prices"]

_UNKNOWN = "unknown"


class _Acc:
    """Running totals of one group."""

    __slots__ = ("cache_read", "cache_write", "calls", "compaction_cost", "compactions", "estimated", "input",
                 "output", "recorded", "table", "unpriced", "unpriced_compactions")

    def __init__(self) -> None:
        self.calls = self.input = self.output = self.cache_read = self.cache_write = 0
        self.unpriced = self.compactions = self.unpriced_compactions = 0
        self.recorded = self.estimated = self.table = self.compaction_cost = 0.0

    def totals(self) -> UsageTotals:
        return UsageTotals(self.calls, self.input, self.output, self.cache_read, self.cache_write, self.recorded,
                           self.estimated, self.table, self.unpriced, self.compactions, self.compaction_cost,
                           self.unpriced_compactions)


class _Prices:
    """``price_for`` memoized per (model, provider): a report prices tens of thousands of calls."""

    def __init__(self) -> None:
        self._known: dict[tuple[str | None, str | None], ModelPrice | None] = {}
        self._rates: dict[tuple[str | None, str | None], tuple[float, float, float, float] | None] = {}

    def __call__(self, model: str | None, provider: str | None) -> ModelPrice | None:
        key = (model, provider)
        if key not in self._known:
            self._known[key] = price_for(model, provider)
        return self._known[key]

    def rates(self, model: str | None, provider: str | None) -> tuple[float, float, float, float] | None:
        """Input, output, cache-read and cache-write (5-minute) USD per million tokens, or ``None``."""
        key = (model, provider)
        if key not in self._rates:
            price = self(model, provider)
            self._rates[key] = None if price is None else (
                price.input, price.output, price.cache_read, price.cache_write(DEFAULT_CACHE_TTL_SECONDS))
        return self._rates[key]


class _Days:
    """The local date of an ISO timestamp, memoized per UTC minute (pi writes ``…T09:00:59.362Z``); per UTC day
    when the zone is UTC itself."""

    def __init__(self, tz: tzinfo) -> None:
        self.tz = tz
        self.utc = tz is UTC or (isinstance(tz, timezone) and tz.utcoffset(None) == timedelta(0))
        self._memo: dict[str, date | None] = {}

    def __call__(self, timestamp: str | None) -> date | None:
        if timestamp is None:
            return None
        if len(timestamp) > 17 and timestamp[-1] == "Z" and timestamp[10] == "T":
            key = timestamp[:10] if self.utc else timestamp[:16]
            memo = self._memo
            if key in memo:
                return memo[key]
            moment = parse_iso(key + ("T00:00Z" if self.utc else "Z"))
            found = memo[key] = moment.astimezone(self.tz).date() if moment is not None else None
            return found
        moment = parse_iso(timestamp)
        return moment.astimezone(self.tz).date() if moment is not None else None


def _month(day: date) -> str:
    return f"{day.year:04d}-{day.month:02d}"


def _zone_name(tz: tzinfo) -> str:
    """``UTC``, an IANA zone's own name (``Europe/Paris``), else the zone's abbreviation now."""
    if tz is UTC:
        return "UTC"
    key = getattr(tz, "key", None)  # zoneinfo.ZoneInfo
    return key if isinstance(key, str) else str(datetime.now(tz).tzname())


def _week(day: date) -> str:
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


def call_prices(session: SessionUsage, prices: _Prices | None = None) -> list[tuple[float, str] | None]:
    """``(cost, source)`` of each of ``session``'s calls in order, from the first source that has it
    (``None``: unpriced).

    Recorded costs first; then the session's ``estimatedCostUsd`` less what its calls recorded, shared out over the
    calls that recorded nothing in proportion to their table price (or to their tokens when a model has no
    price); then the price table.
    """
    prices = prices or _Prices()
    calls = session.calls
    out: list[tuple[float, str] | None] = [
        (c.cost, "recorded") if c.cost is not None and c.cost > 0 else None for c in calls
    ]
    open_calls = [i for i, found in enumerate(out) if found is None]
    table = {i: _table_cost(calls[i], prices) for i in open_calls}
    estimate = session.estimated_cost_usd
    remaining = (estimate or 0.0) - sum(found[0] for found in out if found is not None)
    if estimate is not None and remaining > 0 and open_calls:
        if all(table[i] for i in open_calls):
            weights = [table[i] or 0.0 for i in open_calls]
        else:
            weights = [float(calls[i].input + calls[i].output + calls[i].cache_read + calls[i].cache_write)
                       for i in open_calls]
        whole = sum(weights)
        for i, weight in zip(open_calls, weights, strict=True):
            out[i] = (remaining * weight / whole if whole > 0 else remaining / len(open_calls), "estimated")
        return out
    for i in open_calls:
        cost = table[i]
        out[i] = (cost, "price-table") if cost is not None else None
    return out


def _table_cost(call: UsageRecord, prices: _Prices) -> float | None:
    rates = prices.rates(call.model, call.provider)
    return None if rates is None else _rate_sum(call.input, call.output, call.cache_read, call.cache_write, rates)


def _rate_sum(tokens_in: int, tokens_out: int, read: int, written: int,
              rates: tuple[float, float, float, float]) -> float:
    """call_cost's own sum, term by term in its order (the same float), without a Usage per call."""
    return (tokens_in * rates[0] + tokens_out * rates[1] + read * rates[2] + written * rates[3]) / 1_000_000


def _compaction_cost(
    compaction: CompactionRecord, lines: Sequence[int], calls: Sequence[UsageRecord]
) -> tuple[UsageRecord | None, float | None]:
    """The first call after ``compaction`` in file order that sent a prompt, and the cache write of that prompt;
    with none yet, the last call before it and no cost (the group it belongs to, not what it cost)."""
    start = i = bisect.bisect_right(lines, compaction.line)
    while i < len(calls):
        call = calls[i]
        prefix = call.input + call.cache_read + call.cache_write
        if prefix > 0:
            cost = rewrite_cost(call.model, call.provider, compaction.tokens_before or 0, prefix)
            return call, cost.cache_write_cost_usd
        i += 1
    return (calls[start - 1] if start > 0 else calls[-1] if calls else None), None


def aggregate_usage(
    sessions: Iterable[SessionUsage],
    by: GroupBy,
    *,
    tz: tzinfo = UTC,
    since: date | None = None,
    until: date | None = None,
    recorded_only: bool = False,
) -> UsageReport:
    """Group the calls and compactions of ``sessions`` by ``by``, each request counted once.

    Args:
        tz: the zone days, weeks and months are cut in (and ``since``/``until`` read in).
        since, until: inclusive dates; a call without a time is left out when either is given.
        recorded_only: cost only what the agents recorded; every other call is counted as unpriced, and
            compactions (whose cost is always a list-price estimate) are counted but not priced.
    """
    ordered = sorted(sessions, key=lambda s: s.archived)  # stable: live sessions own their requests first
    prices = _Prices()
    day_of = _Days(tz)
    groups: dict[str, _Acc] = {}
    seen_calls: set[str] = set()
    seen_compactions: set[str] = set()
    duplicates = 0
    filtered = since is not None or until is not None
    dated = by in ("day", "week", "month") or filtered

    def group_key(session: SessionUsage, model: str | None, day: date | None) -> str:
        if by == "day":
            return day.isoformat() if day else _UNKNOWN
        if by == "week":
            return _week(day) if day else _UNKNOWN
        if by == "month":
            return _month(day) if day else _UNKNOWN
        if by == "model":
            return model or _UNKNOWN
        if by == "project":
            return session.project
        if by == "agent":
            return session.agent
        return session.key

    def in_range(day: date | None) -> bool:
        return day is not None and (since is None or day >= since) and (until is None or day <= until)

    def acc_for(key: str) -> _Acc:
        acc = groups.get(key)
        if acc is None:
            acc = groups[key] = _Acc()
        return acc

    day_names: dict[date | None, str] = {None: _UNKNOWN}
    seen_add = seen_calls.add
    # Bound once: the loop below runs once per call (tens of thousands), where each lookup showed in the profile.
    day_call, rates_of, groups_get = day_of.__call__, prices.rates, groups.get
    for session in ordered:
        calls = session.calls
        lines = [c[0] for c in calls]  # each call's line (UsageRecord.line), read once
        if lines != sorted(lines):
            calls = tuple(sorted(calls, key=lambda c: c.line))
            lines = [c.line for c in calls]
        # Only a session with OpenClaw's estimate needs its calls priced together; the rest are priced one by one.
        shared = (call_prices(replace(session, calls=calls), prices)
                  if session.estimated_cost_usd and not recorded_only else None)
        fixed = group_key(session, None, None) if by in ("project", "agent", "session") else None
        for i, call in enumerate(calls):
            # One unpacking instead of an attribute read per field (a NamedTuple's fields are descriptors).
            _, key, _, timestamp, model, provider, tokens_in, tokens_out, read, written, recorded, _ = call
            if key is not None:
                if key in seen_calls:
                    duplicates += 1
                    continue
                seen_add(key)
            if dated:
                day = day_call(timestamp)
                if filtered and not in_range(day):
                    continue
                if fixed is None and by == "day":
                    name = day_names.get(day)
                    if name is None:
                        name = day_names[day] = day.isoformat()  # type: ignore[union-attr]
                    acc = groups_get(name) or acc_for(name)
                else:
                    acc = acc_for(fixed if fixed is not None else group_key(session, model, day))
            else:
                acc = acc_for(fixed if fixed is not None else group_key(session, model, None))
            acc.calls += 1
            acc.input += tokens_in
            acc.output += tokens_out
            acc.cache_read += read
            acc.cache_write += written
            if recorded is not None and recorded > 0:
                acc.recorded += recorded
            elif recorded_only:
                acc.unpriced += 1
            elif shared is not None:
                priced = shared[i]
                if priced is None:
                    acc.unpriced += 1
                elif priced[1] == "estimated":
                    acc.estimated += priced[0]
                else:
                    acc.table += priced[0]
            else:
                rates = rates_of(model, provider)
                if rates is None:
                    acc.unpriced += 1
                else:
                    acc.table += _rate_sum(tokens_in, tokens_out, read, written, rates)
        for compaction in session.compactions:
            if compaction.key is not None:
                if compaction.key in seen_compactions:
                    continue
                seen_compactions.add(compaction.key)
            paying, cost = _compaction_cost(compaction, lines, calls)
            day = day_of(compaction.timestamp or (paying.timestamp if paying else None)) if dated else None
            if filtered and not in_range(day):
                continue
            acc = acc_for(group_key(session, paying.model if paying else None, day))
            acc.compactions += 1
            if recorded_only or cost is None:  # a compaction's cost is never recorded, always a list price
                acc.unpriced_compactions += 1
            else:
                acc.compaction_cost += cost
    total = _Acc()
    for acc in groups.values():  # every call and compaction is in exactly one group
        for name in _Acc.__slots__:
            setattr(total, name, getattr(total, name) + getattr(acc, name))
    rows = [UsageRow(key, acc.totals()) for key, acc in groups.items()]
    if by in ("day", "week", "month"):
        rows.sort(key=lambda r: (r.key == _UNKNOWN, r.key))
    else:
        rows.sort(key=lambda r: (-r.totals.cost_usd, -r.totals.tokens, r.key))
    return UsageReport(by, tuple(rows), total.totals(), len(ordered), duplicates, _zone_name(tz), since, until,
                       recorded_only)
