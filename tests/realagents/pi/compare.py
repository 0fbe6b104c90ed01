"""Field-by-field comparison of pi's reading (oracle.mjs) and ctxscope's (ctxscope_side.pi_view)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

_V1_ID = re.compile(r"^v1-(\d+)$")

FIELDS = (
    "leaf_id",
    "context",
    "context_tokens",
    "estimate",
    "unknown",
    "cut_2000.first_kept_entry_id",
    "cut_2000.split_turn",
    "cut_2000.tokens_before",
    "cut_2000.turn_start_entry_id",
    "cut_20000.first_kept_entry_id",
    "cut_20000.split_turn",
    "cut_20000.tokens_before",
    "cut_20000.turn_start_entry_id",
    "entries",
    "tree",
    "branch_ids",
    "labels",
    "thinking_level",
    "model",
)
"""What is compared on every session; the first five and the cut points are the issue's core fields."""

MISSING = "<not reported>"


def _pi_id_map(pi: dict[str, Any]) -> dict[str, str]:
    """For v1 files pi generates random ids: name each entry by its file line instead (ctxscope says v1-<line>)."""
    if pi.get("version") not in (None, 1) or not pi.get("valid", True):
        return {}
    if any(e.get("line") is None for e in pi["entries"]):
        return {}
    return {e["id"]: f"line:{e['line']}" for e in pi["entries"]}


def _rename(value: Any, ids: dict[str, str]) -> Any:
    if not ids:
        return value
    if isinstance(value, str):
        return ids.get(value, value)
    if isinstance(value, list | tuple):
        return type(value)(_rename(v, ids) for v in value)
    if isinstance(value, dict):
        return {_rename(k, ids): _rename(v, ids) for k, v in value.items()}
    return value


def _ctx_rename(value: Any, v1: bool) -> Any:
    if not v1:
        return value
    if isinstance(value, str):
        m = _V1_ID.match(value)
        return f"line:{m.group(1)}" if m else value
    if isinstance(value, list | tuple):
        return type(value)(_ctx_rename(v, v1) for v in value)
    if isinstance(value, dict):
        return {_ctx_rename(k, v1): _ctx_rename(v, v1) for k, v in value.items()}
    return value


def _entries_of(view: dict[str, Any]) -> Any:
    entries = view.get("entries", MISSING)
    if not isinstance(entries, list):
        return entries
    keys = ("id", "parentId", "type", "role", "firstKeptEntryId")
    return [{k: e.get(k) for k in keys} for e in entries]


def extract(view: dict[str, Any], name: str) -> Any:
    """The value of field ``name`` in a view (either side), or :data:`MISSING`."""
    if name == "context":
        return [(m["id"], m["role"]) for m in view["context"]]
    if name == "context_tokens":
        if "context_tokens" in view:
            return view["context_tokens"]
        return [m["tokens"] for m in view["context"]]
    if name.startswith("cut_"):
        keep, _, sub = name[len("cut_") :].partition(".")
        cp = view["cut_points"].get(keep, MISSING)
        if cp is None:
            return None
        if cp is MISSING:
            return MISSING
        return cp.get(sub, MISSING)
    if name == "entries":
        return _entries_of(view)
    return view.get(name, MISSING)


def comparable(pi: dict[str, Any], theirs: Any, mine: Any) -> tuple[Any, Any]:
    """pi's and ctxscope's values with entry ids made comparable (v1 files: both named by file line)."""
    ids = _pi_id_map(pi)
    return _rename(theirs, ids), _ctx_rename(mine, bool(ids))


def compare(pi: dict[str, Any], ours: dict[str, Any], name: str) -> tuple[Any, Any]:
    """(pi's value, ctxscope's value) of field ``name``, ids made comparable for v1 files."""
    return comparable(pi, extract(pi, name), extract(ours, name))


@dataclass
class Tally:
    """Agreement counts per field, for the report at the end of the run."""

    compared: Counter[str] = field(default_factory=Counter)
    agreed: Counter[str] = field(default_factory=Counter)

    def add(self, name: str, agree: bool) -> None:
        self.compared[name] += 1
        self.agreed[name] += int(agree)

    def lines(self) -> list[str]:
        total, ok = sum(self.compared.values()), sum(self.agreed.values())
        out = [f"pi oracle: {ok}/{total} field comparisons agree ({100 * ok / max(total, 1):.1f}%)"]
        for name in sorted(self.compared):
            out.append(f"  {name:<40} {self.agreed[name]:>4}/{self.compared[name]:<4}")
        return out


TALLY = Tally()
