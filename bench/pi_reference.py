"""pi's context algorithm written plainly over fully parsed JSON, as an independent reference.

This is the straightforward way (what peers do): parse every line into dicts, migrate, walk the tree, build
the context and estimate it — written from pi's rules as docs/formats.md and docs/context-accounting.md state
them, without reusing any engine code. Tests compare the engine's lazy accounting against it on every fixture; the
benchmarks use it as the baseline the engine must beat.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any


def _js_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def load_entries(path: Path) -> list[dict[str, Any]]:
    """Every line that parses as a JSON object, in file order (pi skips the rest silently)."""
    entries = []
    with open(path, "rb") as handle:
        for raw in handle:
            raw = raw.strip()
            if raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            if not raw:
                continue
            try:
                obj = json.loads(raw)
            except ValueError:
                continue
            if isinstance(obj, dict):
                entries.append(obj)
    return entries


def migrate(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """v1 → v3 in memory: ids chained by file order, ``firstKeptEntryIndex`` → id, ``hookMessage`` → ``custom``."""
    if not entries or entries[0].get("type") != "session":
        return entries
    if entries[0].get("version") is None:
        previous = None
        for index, entry in enumerate(entries[1:], start=1):
            entry.setdefault("id", f"ref-{index}")
            entry["parentId"] = previous
            previous = entry["id"]
            if entry.get("type") == "compaction" and "firstKeptEntryIndex" in entry:
                kept = entry["firstKeptEntryIndex"]
                entry["firstKeptEntryId"] = entries[kept].get("id") if 0 < kept < len(entries) else None
    for entry in entries:
        message = entry.get("message")
        if isinstance(message, dict) and message.get("role") == "hookMessage":
            message["role"] = "custom"
    return entries


def build_context(entries: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(path, messages)`` per pi's ``buildSessionContext`` with the leaf = last entry in file order."""
    body = [e for e in entries if e.get("type") != "session"]
    if not body:
        return [], []
    by_id = {e.get("id"): e for e in body if isinstance(e.get("id"), str)}
    leaf = next((e for e in reversed(body) if isinstance(e.get("id"), str)), None)
    path = []
    seen = set()
    while leaf is not None and leaf.get("id") not in seen:
        seen.add(leaf.get("id"))
        path.append(leaf)
        leaf = by_id.get(leaf.get("parentId"))
    path.reverse()

    def emit(entry: dict[str, Any], out: list[dict[str, Any]]) -> None:
        kind = entry.get("type")
        if kind == "message" and isinstance(entry.get("message"), dict):
            message = entry["message"]
            if message.get("role") == "bashExecution" and message.get("excludeFromContext"):
                return
            out.append({"id": entry["id"], **message})
        elif kind == "custom_message":
            out.append({"id": entry["id"], "role": "custom", "content": entry.get("content")})
        elif kind == "branch_summary" and entry.get("summary"):
            out.append({"id": f"branch_summary:{entry['id']}", "role": "branchSummary", "summary": entry["summary"]})

    messages: list[dict[str, Any]] = []
    compaction_index = max((i for i, e in enumerate(path) if e.get("type") == "compaction"), default=-1)
    if compaction_index >= 0:
        compaction = path[compaction_index]
        messages.append(
            {"id": f"compaction:{compaction['id']}", "role": "compactionSummary", "summary": compaction["summary"]}
        )
        found = False
        for entry in path[:compaction_index]:
            if entry.get("id") == compaction.get("firstKeptEntryId"):
                found = True
            if found:
                emit(entry, messages)
        for entry in path[compaction_index + 1 :]:
            emit(entry, messages)
    else:
        for entry in path:
            emit(entry, messages)
    return path, messages


def estimate_tokens(message: dict[str, Any]) -> int:
    """pi's ``estimateTokens`` (ceil of UTF-16 chars / 4)."""
    role = message.get("role")
    content = message.get("content")
    chars = 0
    if role == "user":
        if isinstance(content, str):
            chars = _js_len(content)
        else:
            chars = sum(_js_len(b.get("text", "")) for b in content or [] if b.get("type") == "text")
    elif role == "assistant":
        for block in content or []:
            if block.get("type") == "text":
                chars += _js_len(block.get("text", ""))
            elif block.get("type") == "thinking":
                chars += _js_len(block.get("thinking", ""))
            elif block.get("type") == "toolCall":
                args = json.dumps(block.get("arguments", {}), ensure_ascii=False, separators=(",", ":"))
                chars += _js_len(block.get("name", "")) + _js_len(args)
    elif role in ("custom", "toolResult"):
        if isinstance(content, str):
            chars = _js_len(content)
        else:
            for block in content or []:
                if block.get("type") == "text":
                    chars += _js_len(block.get("text", ""))
                elif block.get("type") == "image":
                    chars += 4800
    elif role == "bashExecution":
        chars = _js_len(message.get("command", "")) + _js_len(message.get("output", ""))
    elif role in ("branchSummary", "compactionSummary"):
        chars = _js_len(message.get("summary", ""))
    return math.ceil(chars / 4)


def _usage_tokens(usage: dict[str, Any]) -> int:
    return usage.get("totalTokens") or (
        usage.get("input", 0) + usage.get("output", 0) + usage.get("cacheRead", 0) + usage.get("cacheWrite", 0)
    )


def estimate_context_tokens(messages: list[dict[str, Any]]) -> int:
    """pi's ``estimateContextTokens``."""
    for i in range(len(messages) - 1, -1, -1):
        m = messages[i]
        if m.get("role") == "assistant" and m.get("stopReason") not in ("aborted", "error") and m.get("usage"):
            return _usage_tokens(m["usage"]) + sum(estimate_tokens(x) for x in messages[i + 1 :])
    return sum(estimate_tokens(m) for m in messages)


def context_usage(path: Path) -> dict[str, Any]:
    """pi's ``getContextUsage`` plus the context message ids, for a transcript file."""
    entries = migrate(load_entries(path))
    branch, messages = build_context(entries)
    compaction_index = max((i for i, e in enumerate(branch) if e.get("type") == "compaction"), default=-1)
    tokens: int | None = estimate_context_tokens(messages)
    if compaction_index >= 0:
        valid_after = any(
            e.get("type") == "message"
            and e["message"].get("role") == "assistant"
            and e["message"].get("stopReason") not in ("aborted", "error")
            and e["message"].get("usage")
            and _usage_tokens(e["message"]["usage"]) > 0
            for e in branch[compaction_index + 1 :]
        )
        if not valid_after:
            tokens = None
    return {
        "entries": len(entries),
        "leaf": branch[-1].get("id") if branch else None,
        "message_ids": [m["id"] for m in messages],
        "estimate": estimate_context_tokens(messages),
        "tokens": tokens,
    }
