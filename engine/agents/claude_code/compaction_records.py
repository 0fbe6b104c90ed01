"""The two records Claude Code writes for a compaction, built for another program to append
(docs/claude-code.md, Compaction; Resuming after another program's boundary).

A ``system``/``compact_boundary`` with no parent (``logicalParentUuid`` = the old leaf) and the summary as a
``user`` record with ``isCompactSummary``, chained to the boundary. ``preservedSegment`` names the kept records
(``headUuid`` … ``tailUuid``, a parent chain) that Claude Code reads back right after the summary (its
``anchorUuid``). Pure: the caller checks the chain and writes.
"""

from __future__ import annotations

import uuid as uuid_module
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from engine.agents.claude_code.context import _chain
from engine.agents.claude_code.records import Record

__all__ = ["SUMMARY_PREFIX", "compaction_records", "preserved_chain_problem"]

SUMMARY_PREFIX = ("This session is being continued from a previous conversation that ran out of context. "
                  "The summary below covers the earlier portion of the conversation.\n\n")
"""How Claude Code opens its own summary message (copied in meaning, so the agent reads it as it reads its own)."""


def preserved_chain_problem(head: str, tail: str, by_uuid: Mapping[str, Record]) -> str | None:
    """Why ``head``…``tail`` is not a parent chain Claude Code can read back (``None`` when it is)."""
    chain = _chain(tail, by_uuid, stop=head)
    if not chain or chain[-1].uuid != head:
        return (f"the kept messages from {head} to {tail} are not one chain in the file (the cut falls inside what "
                "the last compaction preserved); keep more or fewer messages")
    if any(r.boundary is not None for r in chain):
        return "the kept messages would cross a compaction boundary; keep fewer messages"
    return None


def compaction_records(
    *, leaf: Record, head: str, summary: str, pre_tokens: int | None, post_tokens: int | None,
    now: datetime | None = None, ids: tuple[str, str] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(boundary, summary)`` records continuing the session at ``leaf``, keeping ``head``…``leaf``."""
    moment = (now or datetime.now(UTC)).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    boundary_id, summary_id = ids or (str(uuid_module.uuid4()), str(uuid_module.uuid4()))
    common: dict[str, Any] = {"isSidechain": False, "userType": "external", "sessionId": leaf.session_id,
                              "timestamp": moment}
    if leaf.cwd:
        common["cwd"] = leaf.cwd
    if leaf.version:
        common["version"] = leaf.version
    meta: dict[str, Any] = {"trigger": "manual", "preservedSegment": {"headUuid": head, "anchorUuid": summary_id,
                                                                       "tailUuid": leaf.uuid}}
    if pre_tokens is not None:
        meta["preTokens"] = pre_tokens
    if post_tokens is not None:
        meta["postTokens"] = post_tokens
    boundary = {"parentUuid": None, "logicalParentUuid": leaf.uuid, **common, "type": "system",
                "subtype": "compact_boundary", "content": "Conversation compacted", "isMeta": False,
                "uuid": boundary_id, "level": "info", "compactMetadata": meta}
    message = {"parentUuid": boundary_id, **common, "type": "user",
               "message": {"role": "user", "content": SUMMARY_PREFIX + summary},
               "isVisibleInTranscriptOnly": True, "isCompactSummary": True, "uuid": summary_id}
    return boundary, message
