"""What a message holds, measured as pi measures it and read as the model reads it.

:func:`message_chars` is pi's character count (UTF-16 units, images at a fixed size); :func:`message_text` is the
text a tokenizer or a reader gets. Both take the raw message object of a transcript line (docs/formats.md,
Messages and usage; docs/context-accounting.md, The agent's estimate).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from engine.stores.js_json import js_json_length

__all__ = ["IMAGE_CHARS", "arguments_chars", "content_chars", "message_chars", "message_text", "utf16_len"]

IMAGE_CHARS = 4800
"""pi counts an image block in a tool result or custom message as 4,800 characters (``estimateTokens``)."""

def utf16_len(text: str) -> int:
    """Length of ``text`` in UTF-16 code units, which is what JavaScript's ``length`` (and so pi) counts."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le")) // 2



def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def content_chars(content: Any, *, images: bool) -> int:
    """pi's character count of a message's content (a string or text blocks; images counted when ``images``)."""
    if isinstance(content, str):
        return utf16_len(content)
    if not isinstance(content, list):
        return 0
    total = 0
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            total += utf16_len(_str(block.get("text")) or "")
        elif kind == "image" and images:
            total += IMAGE_CHARS
    return total


def arguments_chars(value: Any) -> int:
    """pi's character count of a tool call's arguments: ``JSON.stringify(arguments).length``, floats printed the
    JavaScript way (docs/context-accounting.md, The agent's estimate)."""
    return js_json_length(value) or 0


def message_chars(message: Mapping[str, Any]) -> int:
    """pi's character count of a message (``estimateTokens`` × 4), in UTF-16 units."""
    role = message.get("role")
    content = message.get("content")
    if role == "user":
        return content_chars(content, images=False)
    if role == "assistant":
        total = 0
        if isinstance(content, list):
            for block in content:
                if not isinstance(block, dict):
                    continue
                kind = block.get("type")
                if kind == "text":
                    total += utf16_len(_str(block.get("text")) or "")
                elif kind == "thinking":
                    total += utf16_len(_str(block.get("thinking")) or "")
                elif kind == "toolCall":
                    total += utf16_len(_str(block.get("name")) or "") + arguments_chars(block.get("arguments", {}))
        return total
    if role in ("custom", "toolResult"):
        return content_chars(content, images=True)
    if role == "bashExecution":
        return utf16_len(_str(message.get("command")) or "") + utf16_len(_str(message.get("output")) or "")
    if role in ("branchSummary", "compactionSummary"):
        return utf16_len(_str(message.get("summary")) or "")
    return 0


def message_text(message: Mapping[str, Any]) -> str:
    """The text of a message as the model sees it, for tokenizing and display (images omitted)."""
    role = message.get("role")
    content = message.get("content")
    parts: list[str] = []
    if role in ("branchSummary", "compactionSummary"):
        return _str(message.get("summary")) or ""
    if role == "bashExecution":
        return f"Ran `{_str(message.get('command')) or ''}`\n{_str(message.get('output')) or ''}"
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text":
                parts.append(_str(block.get("text")) or "")
            elif kind == "thinking":
                parts.append(_str(block.get("thinking")) or "")
            elif kind == "toolCall":
                args = orjson.dumps(block.get("arguments", {}), default=str).decode()
                parts.append(f"{_str(block.get('name')) or ''}({args})")
    return "\n".join(parts)
