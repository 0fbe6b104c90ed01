"""pi's ``computeFileLists`` for a simulated compaction: the files the summarized span read and modified.

The summarized entries' ``read``/``write``/``edit`` tool calls, merged with the lists the previous compaction
recorded in its ``details`` (docs/compaction.md); a file both read and modified is listed as modified only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine.stores.entries import Entry

__all__ = ["file_lists"]


def file_lists(read_object: Callable[[Entry], dict[str, Any]], path: Sequence[Entry], start: int,
               end: int) -> tuple[list[str], list[str]]:
    """``(read only, modified)`` over ``path[start:end]``, sorted; ``read_object`` loads an entry's full line."""
    read: set[str] = set()
    modified: set[str] = set()
    if start > 0 and path[start - 1].type == "compaction":
        details = read_object(path[start - 1]).get("details") or {}
        read.update(p for p in details.get("readFiles", ()) if isinstance(p, str))
        modified.update(p for p in details.get("modifiedFiles", ()) if isinstance(p, str))
    for entry in path[start:end]:
        if not entry.tool_calls or not {"read", "write", "edit"} & set(entry.tool_calls):
            continue
        for block in read_object(entry)["message"]["content"]:
            if block.get("type") == "toolCall" and isinstance(block.get("arguments", {}).get("path"), str):
                (read if block["name"] == "read" else modified).add(block["arguments"]["path"])
    return sorted(read - modified), sorted(modified)
