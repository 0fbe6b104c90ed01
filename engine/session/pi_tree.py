"""The session as pi's SessionManager presents it: entries after migration, the tree, labels, model, thinking.

These are the views pi's own tests check (``getEntries``, ``getTree``, ``getBranch``, ``getLabel``,
``buildSessionContext().model/thinkingLevel``), computed from ctxscope's entry metadata so that ``inspect --json``
can be compared with pi field by field (docs/pi.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from functools import cmp_to_key
from typing import Any

from engine.stores.entries import Entry
from engine.stores.timestamps import parse_iso

__all__ = ["entry_rows", "labels", "pi_model", "session_tree", "thinking_level"]


def _body(entries: Sequence[Entry]) -> list[Entry]:
    # pi's getEntries(): everything but the header, entries without an id included.
    return [e for e in entries if e.type != "session"]


def _node(entry: Entry) -> str:
    """The tree's name of an entry: its id, or ``line:<n>`` for one without (as the context list names it)."""
    return entry.id if entry.id is not None else f"line:{entry.line_no}"


def entry_rows(entries: Sequence[Entry]) -> list[dict[str, Any]]:
    """pi's ``getEntries()`` in brief: id, parentId, type, role (messages), firstKeptEntryId (compactions)."""
    return [
        {
            "id": e.id,
            "parentId": e.parent_id,
            "type": e.type,
            "role": e.role if e.type == "message" else None,
            "firstKeptEntryId": e.first_kept_entry_id if e.type == "compaction" else None,
        }
        for e in _body(entries)
    ]


def _millis(timestamp: str | None) -> float:
    parsed = parse_iso(timestamp)
    return parsed.timestamp() * 1000 if parsed is not None else math.nan


def _by_time(a: tuple[float, str], b: tuple[float, str]) -> int:
    # JavaScript's sort treats a NaN comparison as "equal"; so does this.
    diff = a[0] - b[0]
    return 0 if math.isnan(diff) else (diff > 0) - (diff < 0)


def session_tree(entries: Sequence[Entry]) -> dict[str, Any]:
    """pi's ``getTree()``: root ids (orphans included) and every entry's children, oldest first."""
    body = _body(entries)
    ids = {e.id for e in body if e.id is not None}
    children: dict[str, list[tuple[float, str]]] = {_node(e): [] for e in body}
    roots: list[str] = []
    for e in body:
        parent = e.parent_id
        if parent is None or parent == e.id or parent not in ids:
            roots.append(_node(e))
        else:
            children[parent].append((_millis(e.timestamp), _node(e)))
    return {
        "roots": roots,
        "children": {key: [i for _, i in sorted(kids, key=cmp_to_key(_by_time))] for key, kids in children.items()},
    }


def labels(entries: Sequence[Entry]) -> dict[str, str]:
    """pi's labels: the latest ``label`` entry per target in file order; an empty label clears it."""
    out: dict[str, str] = {}
    for e in _body(entries):
        if e.type != "label" or e.target_id is None:
            continue
        if e.label:
            out[e.target_id] = e.label
        else:
            out.pop(e.target_id, None)
    return out


def pi_model(path: Sequence[Entry]) -> dict[str, str] | None:
    """``buildSessionContext().model``: the last model change or assistant message on the path (any provider)."""
    model: dict[str, str] | None = None
    for e in path:
        if e.type == "model_change" or (e.type == "message" and e.role == "assistant"):
            model = {k: v for k, v in (("provider", e.provider), ("modelId", e.model)) if v is not None}
    return model


def thinking_level(path: Sequence[Entry], load: Callable[[Entry], Mapping[str, Any]]) -> str:
    """``buildSessionContext().thinkingLevel``: the last thinking level change on the path, else ``off``."""
    for e in reversed(path):
        if e.type == "thinking_level_change":
            level = load(e).get("thinkingLevel")
            return level if isinstance(level, str) else "off"
    return "off"
