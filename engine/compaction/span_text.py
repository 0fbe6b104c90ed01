"""The text of a compacted span, message by message: for the prune summary, the archive and pinned messages.

Works on the JSON objects of context entries (``message``, ``custom_message``, ``branch_summary``,
``compaction``). Also pi's file bookkeeping for compaction entries (docs/compaction.md, Files read and
modified): files read and modified by ``read``/``write``/``edit`` tool calls with a ``path`` argument, merged
with the previous compaction's ``details``, returned sorted with read-only files separate from modified ones
(pi's ``computeFileLists``), and formatted as pi's ``<read-files>``/``<modified-files>`` blocks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from engine.accounting.context import ContextMessage
from engine.stores.entries import Entry

__all__ = [
    "Loader",
    "MessageParts",
    "file_operations",
    "format_file_operations",
    "message_parts",
    "one_line",
    "tool_call_line",
]

Loader = Callable[[Entry], Mapping[str, Any]]
"""Re-reads the full JSON object of an entry (``TranscriptReader.read_object``)."""

_READ_TOOLS = frozenset({"read"})
_WRITE_TOOLS = frozenset({"write", "edit"})
_ARG_CHARS = 120


@dataclass(frozen=True, slots=True)
class MessageParts:
    """One context message split into what the model saw, as plain strings."""

    role: str
    """``user``, ``assistant``, ``toolResult``, ``bashExecution``, ``custom``, ``branchSummary`` or
    ``compactionSummary``."""
    text: str
    """Text blocks joined (for summaries: the summary; for bash: the output)."""
    thinking: str = ""
    tool_calls: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    """``(name, arguments)`` of each tool call of an assistant message."""
    tool_name: str | None = None
    """The tool a result belongs to, or the ``customType`` of a custom message."""
    command: str | None = None
    """A ``bashExecution``'s command."""
    is_error: bool = False
    images: int = 0


def _blocks(content: Any) -> tuple[str, str, list[tuple[str, Mapping[str, Any]]], int]:
    if isinstance(content, str):
        return content, "", [], 0
    texts: list[str] = []
    thinking: list[str] = []
    calls: list[tuple[str, Mapping[str, Any]]] = []
    images = 0
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif kind == "thinking" and isinstance(block.get("thinking"), str):
            thinking.append(block["thinking"])
        elif kind == "toolCall":
            args = block.get("arguments")
            calls.append((str(block.get("name") or "?"), args if isinstance(args, Mapping) else {}))
        elif kind == "image":
            images += 1
    return "\n".join(texts), "\n".join(thinking), calls, images


def message_parts(message: ContextMessage, obj: Mapping[str, Any]) -> MessageParts:
    """Split the JSON object of a context message into :class:`MessageParts`."""
    entry = message.entry
    if message.role == "compactionSummary" or entry.type in ("branch_summary", "compaction"):
        summary = obj.get("summary")
        return MessageParts(message.role, summary if isinstance(summary, str) else "")
    if entry.type == "custom_message":
        text, _, _, images = _blocks(obj.get("content"))
        return MessageParts("custom", text, tool_name=entry.custom_type, images=images)
    payload = obj.get("message")
    payload = payload if isinstance(payload, Mapping) else {}
    if message.role == "bashExecution":
        output = payload.get("output")
        command = payload.get("command")
        return MessageParts(
            "bashExecution",
            output if isinstance(output, str) else "",
            command=command if isinstance(command, str) else "",
        )
    text, thinking, calls, images = _blocks(payload.get("content"))
    return MessageParts(
        message.role,
        text,
        thinking=thinking,
        tool_calls=tuple(calls),
        tool_name=entry.tool_name if message.role == "toolResult" else entry.custom_type,
        is_error=entry.is_error,
        images=images,
    )


def one_line(text: str, limit: int) -> str:
    """Whitespace collapsed to single spaces and cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: max(1, limit - 1)].rstrip() + "…"


def tool_call_line(name: str, arguments: Mapping[str, Any], limit: int = _ARG_CHARS) -> str:
    """pi's serialization of a tool call, ``name(k="v", …)``, each value cut to ``limit`` characters."""
    parts = []
    for key, value in arguments.items():
        try:
            rendered = orjson.dumps(value).decode()
        except TypeError:
            rendered = repr(value)
        parts.append(f"{key}={one_line(rendered, limit)}")
    return f"{name}({', '.join(parts)})"


def _paths(details: Any, key: str) -> list[str]:
    if not isinstance(details, Mapping):
        return []
    value = details.get(key)
    return [x for x in value if isinstance(x, str)] if isinstance(value, list) else []


def file_operations(
    parts: Iterable[MessageParts], previous_details: Any = None
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """pi's ``(readFiles, modifiedFiles)`` for a compaction: read-only files and modified files, each sorted.

    ``previous_details`` is the previous compaction's ``details``; pi merges it only for its own
    (``fromHook: false``) entries, but OpenClaw's safeguard and ctxscope both write ``fromHook: true`` with the
    same shape, so any well-formed ``details`` is merged, or the lists would be lost at the next compaction.
    """
    read: set[str] = set(_paths(previous_details, "readFiles"))
    modified: set[str] = set(_paths(previous_details, "modifiedFiles"))
    for part in parts:
        for name, arguments in part.tool_calls:
            path = arguments.get("path")
            if not isinstance(path, str) or not path:
                continue
            if name in _READ_TOOLS:
                read.add(path)
            elif name in _WRITE_TOOLS:
                modified.add(path)
    return tuple(sorted(read - modified)), tuple(sorted(modified))


def format_file_operations(read_files: Iterable[str], modified_files: Iterable[str]) -> str:
    """pi's ``formatFileOperations``: the ``<read-files>``/``<modified-files>`` blocks to append to a summary."""
    read, modified = list(read_files), list(modified_files)
    sections = []
    if read:
        sections.append("<read-files>\n" + "\n".join(read) + "\n</read-files>")
    if modified:
        sections.append("<modified-files>\n" + "\n".join(modified) + "\n</modified-files>")
    return "\n\n" + "\n\n".join(sections) if sections else ""
