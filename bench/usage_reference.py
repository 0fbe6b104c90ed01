"""A plain full-parse reference for ``ctxscope report``: every line of every file through ``orjson``, nothing cached.

Written apart from the engine's scanner, index and aggregation so that the two can be compared to the token
(``tests/engine/test_usage_reference.py``, ``python -m bench.report``). It shares with the engine only what is a
definition, not an algorithm: which files to read (discovery), the price table, and the rules in ``docs/usage.md``:

* a billed call is an assistant message with a ``usage`` object, not from ``provider: "openclaw"``, with some
  tokens or a positive ``usage.cost.total``;
* its request key is ``message.responseId``, else ``<id>@<timestamp>`` (v1 files: ``id`` = ``v1-<line>``); a key
  seen before (live sessions first, then archives) is skipped;
* cost: ``usage.cost.total`` when positive, else the table price (5-minute cache writes); a compaction costs the
  cache write of the prompt of the first call after it, and is grouped with that call (none yet: the call before).

Run: ``python -m bench.usage_reference PATH… [--by day|model]`` prints the reference totals as JSON.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from engine.agents.discovery import discover_sessions
from engine.session.cost import price_for

__all__ = ["reference_files", "reference_report"]

_FIELDS = ("calls", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "compactions")


def reference_files(paths: Iterable[Path]) -> list[tuple[Path, bool]]:
    """``(file, archived)`` for every JSONL session and archive under ``paths``, live ones first."""
    discovery = discover_sessions(list(paths))
    live = [(s.path, False) for s in discovery.sessions if not s.in_database and s.kind == "live"]
    archived = [(s.path, True) for s in discovery.sessions if not s.in_database and s.kind != "live"]
    archived += [(p, True) for p in discovery.archives]
    return live + archived


def _int(value: Any) -> int:
    if type(value) is int:
        return value
    if type(value) is float and value == value:
        return int(value)
    return 0


def _lines(path: Path) -> list[tuple[int, Any]]:
    """Every physical line parsed (``None`` where it is blank or not JSON), numbered from 1."""
    out = []
    with path.open("rb") as handle:
        for number, raw in enumerate(handle.read().split(b"\n")[:-1], 1):
            raw = raw.removesuffix(b"\r")
            if number == 1:
                raw = raw.removeprefix(b"\xef\xbb\xbf")
            try:
                out.append((number, orjson.loads(raw) if raw.strip() else None))
            except orjson.JSONDecodeError:
                try:
                    out.append((number, orjson.loads(raw.decode("utf-8", "replace"))))
                except orjson.JSONDecodeError:
                    out.append((number, None))
    return out


def _ms_iso(value: Any) -> str | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 < value < 1e14:
        return datetime.fromtimestamp(value / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return None


def _events(path: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The calls and compactions of one file, in file order."""
    parsed = _lines(path)
    objects = [(n, o) for n, o in parsed if o is not None]
    header = objects[0][1] if objects and isinstance(objects[0][1], dict) and objects[0][1].get("type") == "session" \
        else None
    version = header.get("version") if header is not None else 3
    legacy = header is not None and (not isinstance(version, int) or isinstance(version, bool) or version == 1)
    calls, compactions = [], []
    for number, obj in objects:
        if not isinstance(obj, dict) or obj is header:
            continue
        entry_id = obj.get("id") if isinstance(obj.get("id"), str) else None
        if legacy and entry_id is None:
            entry_id = f"v1-{number}"
        stamp = obj.get("timestamp") if isinstance(obj.get("timestamp"), str) else None
        if obj.get("type") == "compaction":
            key = f"{entry_id}@{stamp}" if entry_id is not None and stamp is not None else None
            compactions.append({"line": number, "key": key, "timestamp": stamp})
            continue
        message = obj.get("message")
        if obj.get("type") != "message" or not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        usage = message.get("usage")
        if not isinstance(usage, dict) or message.get("provider") == "openclaw":
            continue
        cost_obj = usage.get("cost")
        cost = cost_obj.get("total") if isinstance(cost_obj, dict) else None
        cost = float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else None
        parts = [_int(usage.get(k)) for k in ("input", "output", "cacheRead", "cacheWrite")]
        if sum(parts) == 0 and not cost:
            continue
        stamp = stamp or _ms_iso(message.get("timestamp"))
        response = message.get("responseId")
        if isinstance(response, str) and response:
            key: str | None = f"response:{response}"
        else:
            key = f"{entry_id}@{stamp}" if entry_id is not None and stamp is not None else None
        model = message.get("model") if isinstance(message.get("model"), str) else None
        provider = message.get("provider") if isinstance(message.get("provider"), str) else None
        calls.append({"line": number, "key": key, "timestamp": stamp, "model": model, "provider": provider,
                      "parts": parts, "cost": cost})
    return calls, compactions


def _price(call: dict[str, Any]) -> float | None:
    if call["cost"] is not None and call["cost"] > 0:
        return float(call["cost"])
    price = price_for(call["model"], call["provider"])
    if price is None:
        return None
    i, o, r, w = call["parts"]
    return (i * price.input + o * price.output + r * price.cache_read + w * price.cache_write_5m) / 1_000_000


def _group(by: str, call_or_none: dict[str, Any] | None, stamp: str | None) -> str:
    if by == "model":
        return (call_or_none or {}).get("model") or "unknown"
    if not stamp:
        return "unknown"
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return "unknown"
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(UTC).date().isoformat()


def reference_report(paths: Iterable[Path], by: str = "day") -> dict[str, Any]:
    """Totals by UTC ``day`` or by ``model`` (``{"rows": {key: figures}, "total": figures}``), every line parsed."""
    rows: dict[str, dict[str, float]] = {}
    total: dict[str, float] = dict.fromkeys([*_FIELDS, "cost_usd", "compaction_cost_usd"], 0)
    seen: set[str] = set()
    seen_compactions: set[str] = set()

    def add(key: str, figures: dict[str, float]) -> None:
        row = rows.setdefault(key, dict.fromkeys(total, 0))
        for name, value in figures.items():
            row[name] += value
            total[name] += value

    for path, _archived in reference_files(paths):
        calls, compactions = _events(path)
        for call in calls:
            if call["key"] is not None:
                if call["key"] in seen:
                    continue
                seen.add(call["key"])
            i, o, r, w = call["parts"]
            cost = _price(call)
            add(_group(by, call, call["timestamp"]), {"calls": 1, "input_tokens": i, "output_tokens": o,
                                                      "cache_read_tokens": r, "cache_write_tokens": w,
                                                      "cost_usd": cost or 0.0})
        for compaction in compactions:
            if compaction["key"] is not None:
                if compaction["key"] in seen_compactions:
                    continue
                seen_compactions.add(compaction["key"])
            after = next((c for c in calls if c["line"] > compaction["line"] and c["parts"][0] + sum(c["parts"][2:])),
                         None)
            cost = 0.0
            if after is not None:
                price = price_for(after["model"], after["provider"])
                prompt = after["parts"][0] + after["parts"][2] + after["parts"][3]
                cost = prompt * price.cache_write_5m / 1_000_000 if price is not None else 0.0
            # With no call after it yet, a compaction is grouped with the call before it (docs/usage.md).
            before = [c for c in calls if c["line"] <= compaction["line"]]
            owner = after or (before[-1] if before else calls[-1] if calls else None)
            add(_group(by, owner, compaction["timestamp"] or (owner or {}).get("timestamp")),
                {"compactions": 1, "compaction_cost_usd": cost})
    return {"rows": rows, "total": total}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.usage_reference", description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--by", choices=("day", "model"), default="day")
    args = parser.parse_args(argv)
    sys.stdout.write(orjson.dumps(reference_report(args.paths, args.by), option=orjson.OPT_INDENT_2).decode() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
