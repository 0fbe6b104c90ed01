"""The ``codex`` controller: a ``compacted`` record Codex resumes from (docs/codex.md, Compaction).

Codex reads ``replacement_history`` on ``codex resume``: the next request is that history, then the new turn. A
running ``codex`` keeps its own history until it is resumed, so ctxscope refuses while one holds the thread's
writer lock. One ``write()`` on an ``O_APPEND`` descriptor after re-checking the file (same inode and size, ending
on a newline); audited by the caller.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from engine.agents.codex.compaction_record import compacted_record, orphan_outputs
from engine.agents.codex.reader import CodexReader
from engine.agents.protocol import ContextItem
from engine.compaction.agent_guard import agent_compaction_problem
from engine.compaction.plan import CompactionPlan
from engine.fs.append_where_read import append_where_read

__all__ = ["codex_problem", "write_codex_compaction"]


def codex_problem(plan: CompactionPlan) -> str | None:
    """Why the plan may not be written now (``None`` when it may)."""
    return agent_compaction_problem(plan.source, plan.layer)


def _item_id(item: ContextItem) -> str:
    # The ids engine.agents.agent_entries gives the context's entries (items without one are named by place).
    return item.id or item.place


def _raw(fd: int, item: ContextItem) -> Mapping[str, Any]:
    obj = orjson.loads(os.pread(fd, item.length, item.offset))
    payload = obj.get("payload") if isinstance(obj, dict) else None
    if not isinstance(payload, dict):
        raise ValueError(f"line {item.line_no} no longer holds an item")
    if item.part >= 0:
        history = payload.get("replacement_history")
        if not isinstance(history, list) or item.part >= len(history) or not isinstance(history[item.part], dict):
            raise ValueError(f"line {item.line_no} no longer holds item {item.part}")
        return history[item.part]  # type: ignore[no-any-return]
    return payload


def write_codex_compaction(plan: CompactionPlan) -> tuple[int, int]:
    """Append the ``compacted`` record of ``plan``; ``(offset, bytes written)``.

    Raises:
        ValueError: the file moved on, or the kept items would split a tool call from its output (nothing written).
        OSError: the write failed (a short write is truncated away).
    """
    path = Path(plan.source.path)
    reader = CodexReader(path, os.environ)
    reading = reader.read_new()
    if not reading.context or _item_id(reading.context[-1]) != plan.leaf_id:
        raise ValueError(f"{path.name}: the session moved on since the plan; plan again")
    kept_ids = set(plan.kept_ids)
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        items = [i for i in reading.context if i.line_no != 1 or i.part >= 0]  # the base instructions go apart
        context = [_raw(fd, i) for i in items if i.role == "harness" and _item_id(i) not in kept_ids]
        kept = [_raw(fd, i) for i in items if _item_id(i) in kept_ids]
        orphans = orphan_outputs(kept)
        if orphans:
            raise ValueError(f"the cut separates tool call(s) {', '.join(orphans[:3])} from their output; keep more "
                             "or fewer messages")
        ordinal = reader.records  # lines are numbered from 0
        record = compacted_record(context=context, kept=kept, summary=plan.summary, ordinal=ordinal)
        data = orjson.dumps(record) + b"\n"
        size = reader.cursor.offset
        written = append_where_read(fd, path, reader.cursor.inode, size, data)
    finally:
        os.close(fd)
    return size, written
