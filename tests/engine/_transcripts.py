"""Builders for transcripts written byte by byte in tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

HEADER = {"type": "session", "version": 3, "id": "sess-1", "timestamp": "2026-03-01T10:00:00.000Z", "cwd": "/w"}


def line(obj: dict[str, Any]) -> bytes:
    return orjson.dumps(obj) + b"\n"


def user(id_: str, parent: str | None, text: str) -> dict[str, Any]:
    return {"type": "message", "id": id_, "parentId": parent, "timestamp": "2026-03-01T10:00:01.000Z",
            "message": {"role": "user", "content": text, "timestamp": 1}}


def assistant(
    id_: str, parent: str | None, text: str, total: int = 0, *, stop: str = "stop", provider: str = "anthropic",
    tool: tuple[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    if tool:
        content.append({"type": "toolCall", "id": f"call-{id_}", "name": tool[0], "arguments": tool[1]})
    usage = {"input": total, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": total,
             "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
    return {"type": "message", "id": id_, "parentId": parent, "timestamp": "2026-03-01T10:00:02.000Z",
            "message": {"role": "assistant", "content": content, "api": "anthropic-messages", "provider": provider,
                        "model": "claude-sonnet-4-5", "usage": usage, "stopReason": stop, "timestamp": 2}}


def tool_result(id_: str, parent: str | None, text: str, *, error: bool = False) -> dict[str, Any]:
    return {"type": "message", "id": id_, "parentId": parent, "timestamp": "2026-03-01T10:00:03.000Z",
            "message": {"role": "toolResult", "toolCallId": "c", "toolName": "read",
                        "content": [{"type": "text", "text": text}], "isError": error, "timestamp": 3}}


def compaction(id_: str, parent: str, first_kept: str, summary: str = "## Goal\nship it", before: int = 1000) -> dict:
    return {"type": "compaction", "id": id_, "parentId": parent, "timestamp": "2026-03-01T10:00:04.000Z",
            "summary": summary, "firstKeptEntryId": first_kept, "tokensBefore": before,
            "details": {"readFiles": [], "modifiedFiles": []}, "fromHook": True}


def write(path: Path, objs: list[dict[str, Any]], *, header: bool = True) -> Path:
    data = b"".join(line(o) for o in ([HEADER] if header else []) + objs)
    path.write_bytes(data)
    return path
