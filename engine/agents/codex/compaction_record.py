"""The ``compacted`` record Codex writes, built for another program to append (docs/codex.md, Compaction).

``replacement_history`` is the history Codex sends from then on (its base instructions aside): here the
developer and environment context on the context now, the summary as the user message Codex itself uses for
one, then the kept items exactly as recorded. Pure: the caller reads the items and writes the line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from engine.agents.codex.records import SUMMARY_PREFIX

__all__ = ["SUMMARY_PREAMBLE", "compacted_record", "orphan_outputs"]

SUMMARY_PREAMBLE = (SUMMARY_PREFIX + " and produced a summary of its thinking process. Use this to build on the "
                    "work that has already been done and avoid duplicating work. Here is the summary produced by "
                    "the other language model, use the information in this summary to assist with your own "
                    "analysis:\n")


def orphan_outputs(items: Sequence[Mapping[str, Any]]) -> list[str]:
    """``call_id``s of tool outputs whose call is not among ``items`` (the Responses API refuses those)."""
    calls = {i.get("call_id") for i in items if i.get("type") in ("function_call", "custom_tool_call",
                                                                   "local_shell_call")}
    return [str(i.get("call_id")) for i in items
            if i.get("type") in ("function_call_output", "custom_tool_call_output") and i.get("call_id") not in calls]


def compacted_record(*, context: Sequence[Mapping[str, Any]], kept: Sequence[Mapping[str, Any]], summary: str,
                     ordinal: int | None, now: datetime | None = None) -> dict[str, Any]:
    """The ``compacted`` line: ``context`` (harness items), the summary message, ``kept``."""
    moment = (now or datetime.now(UTC)).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    message = SUMMARY_PREAMBLE + summary
    summary_item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": message}]}
    record: dict[str, Any] = {"timestamp": moment}
    if ordinal is not None:
        record["ordinal"] = ordinal
    record["type"] = "compacted"
    record["payload"] = {"message": message, "replacement_history": [*context, summary_item, *kept]}
    return record
