"""The ``claude-code`` controller: a compaction Claude Code picks up when the session is resumed.

It appends what Claude Code itself writes for ``/compact`` (docs/claude-code.md, Compaction): a
``compact_boundary`` naming the kept messages as its preserved segment, then the summary. Claude Code reads it
on ``claude --resume ID`` (or ``--continue``): the next request starts with the summary, then the kept
messages. A running ``claude`` keeps its own memory of the session until it is resumed, and ctxscope refuses
while one runs it (docs/claude-code.md, Where things are): its next append would chain to the old leaf.

The two lines go out in one ``write()`` on an ``O_APPEND`` descriptor, after re-checking that the file is the one
read (same inode and size, ending on a newline) and that its leaf is the plan's. Audited either way.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from engine.agents.claude_code.compaction_records import compaction_records, preserved_chain_problem
from engine.agents.claude_code.reader import ClaudeCodeReader
from engine.compaction.agent_guard import agent_compaction_problem
from engine.compaction.plan import CompactionPlan
from engine.fs.append_where_read import append_where_read

__all__ = ["ClaudeCodeWrite", "claude_code_problem", "write_claude_code_compaction"]


class ClaudeCodeWrite:
    """What was appended: the two records' ids, where, how many bytes."""

    def __init__(self, ids: tuple[str, str], parent: str, offset: int, written: int) -> None:
        self.ids, self.parent, self.offset, self.written = ids, parent, offset, written


def claude_code_problem(plan: CompactionPlan) -> str | None:
    """Why the plan may not be written now (``None`` when it may)."""
    return agent_compaction_problem(plan.source, plan.layer)


def write_claude_code_compaction(plan: CompactionPlan) -> ClaudeCodeWrite:
    """Append the boundary and the summary of ``plan``.

    Raises:
        ValueError: the file moved on since the plan, or the kept messages are not one chain (nothing written).
        OSError: the write failed (a short write is truncated away).
    """
    path = Path(plan.source.path)
    reader = ClaudeCodeReader(path)
    reading = reader.read_new()
    leaf = reader.leaf()
    if leaf is None or leaf.uuid is None or leaf.uuid != plan.leaf_id:
        raise ValueError(f"{path.name}: the session moved on since the plan (leaf {leaf.uuid if leaf else None}, "
                         f"planned at {plan.leaf_id}); plan again")
    head = plan.first_kept_entry_id
    if head is not None:
        problem = preserved_chain_problem(head, leaf.uuid, reader.by_uuid)
        if problem is not None:
            raise ValueError(problem)
    post = plan.summary_tokens + plan.tokens_kept
    boundary, summary = compaction_records(leaf=leaf, head=head or leaf.uuid, summary=plan.summary,
                                           pre_tokens=reading.context_tokens.tokens, post_tokens=post)
    if head is None:
        del boundary["compactMetadata"]["preservedSegment"]
    data = orjson.dumps(boundary) + b"\n" + orjson.dumps(summary) + b"\n"
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        size = reader.cursor.offset
        written = append_where_read(fd, path, reader.cursor.inode, size, data)
    finally:
        os.close(fd)
    return ClaudeCodeWrite((boundary["uuid"], summary["uuid"]), leaf.uuid, size, written)
