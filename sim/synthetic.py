"""Builders for pi-format (v3) transcript entries, shaped exactly like the lines pi and OpenClaw write.

Field order follows the real files in ``tests/fixtures/openclaw`` (docs/formats.md, Entry fields): base fields
``type, id, parentId, timestamp`` first, except ``custom`` entries whose ``customType``/``data`` precede ``id``.
Used by the live simulator (:mod:`sim.simulate`) and the bulk generator (:mod:`sim.session_generator`).
"""

from __future__ import annotations

import base64
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "OPUS",
    "PROMPT_OVERHEAD_TOKENS",
    "SONNET",
    "IdFactory",
    "ModelSpec",
    "assistant_entry",
    "compaction_entry",
    "compaction_summary",
    "header_entry",
    "iso_ms",
    "make_usage",
    "model_change_entry",
    "model_snapshot_entry",
    "session_uuid",
    "text_block",
    "thinking_block",
    "thinking_level_entry",
    "tool_call_block",
    "tool_call_id",
    "tool_result_entry",
    "user_entry",
]

PROMPT_OVERHEAD_TOKENS = 11_800
"""Tokens an OpenClaw request carries outside the transcript: system prompt, tool schemas, workspace files."""

_NOT_BASE62 = str.maketrans("+/", "Xq")


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """A model as it appears in transcripts, with its list prices in USD per million tokens."""

    provider: str
    model_id: str
    api: str
    input_price: float
    output_price: float
    cache_read_price: float
    cache_write_price: float


SONNET = ModelSpec("anthropic", "claude-sonnet-4-5", "anthropic-messages", 3.0, 15.0, 0.30, 3.75)
OPUS = ModelSpec("anthropic", "claude-opus-4-5", "anthropic-messages", 5.0, 25.0, 0.50, 6.25)


class IdFactory:
    """pi-style 8-hex entry ids from a seeded generator, never repeating within one transcript."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._used: set[str] = set()

    def new(self) -> str:
        """A fresh id."""
        while True:
            candidate = f"{self._rng.getrandbits(32):08x}"
            if candidate not in self._used:
                self._used.add(candidate)
                return candidate

    def reserve(self, ids: Sequence[str]) -> None:
        """Mark ids written by someone else as taken."""
        self._used.update(ids)


def session_uuid(rng: random.Random) -> str:
    """A UUID-4-shaped session id drawn from ``rng``."""
    raw = f"{rng.getrandbits(128):032x}"
    return f"{raw[:8]}-{raw[8:12]}-4{raw[13:16]}-{'89ab'[rng.randrange(4)]}{raw[17:20]}-{raw[20:32]}"


def tool_call_id(rng: random.Random) -> str:
    """An Anthropic-style tool call id (``toolu_01`` + 22 base62 characters)."""
    return "toolu_01" + base64.b64encode(rng.randbytes(17)).decode()[:22].translate(_NOT_BASE62)


def iso_ms(epoch_ms: int) -> str:
    """ISO-8601 UTC with milliseconds, as pi writes entry timestamps."""
    seconds, millis = divmod(epoch_ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z"


def make_usage(model: ModelSpec, *, prompt: int, output: int, cached: int, fresh: int) -> dict[str, Any]:
    """pi's ``Usage`` for an Anthropic-style request of ``prompt`` tokens with ``cached`` of them warm.

    Args:
        prompt: tokens sent (system prompt + context).
        output: tokens generated.
        cached: length of the prefix still in the provider's prompt cache.
        fresh: tokens after the last cache breakpoint, billed as plain input.
    """
    fresh = min(fresh, prompt)
    cache_read = min(cached, prompt - fresh)
    cache_write = prompt - fresh - cache_read
    cost = {
        "input": round(fresh * model.input_price / 1e6, 8),
        "output": round(output * model.output_price / 1e6, 8),
        "cacheRead": round(cache_read * model.cache_read_price / 1e6, 8),
        "cacheWrite": round(cache_write * model.cache_write_price / 1e6, 8),
    }
    cost["total"] = round(sum(cost.values()), 8)
    return {"input": fresh, "output": output, "cacheRead": cache_read, "cacheWrite": cache_write,
            "totalTokens": prompt + output, "cost": cost}


def _base(kind: str, entry_id: str, parent: str | None, ms: int) -> dict[str, Any]:
    return {"type": kind, "id": entry_id, "parentId": parent, "timestamp": iso_ms(ms)}


def header_entry(session_id: str, ms: int, cwd: str, *, version: int = 3) -> dict[str, Any]:
    """The ``session`` header line."""
    return {"type": "session", "version": version, "id": session_id, "timestamp": iso_ms(ms), "cwd": cwd}


def model_change_entry(entry_id: str, parent: str | None, ms: int, model: ModelSpec) -> dict[str, Any]:
    """pi's ``model_change`` entry (``/model`` or session start)."""
    return {**_base("model_change", entry_id, parent, ms), "provider": model.provider, "modelId": model.model_id}


def thinking_level_entry(entry_id: str, parent: str | None, ms: int, level: str) -> dict[str, Any]:
    """pi's ``thinking_level_change`` entry."""
    return {**_base("thinking_level_change", entry_id, parent, ms), "thinkingLevel": level}


def model_snapshot_entry(entry_id: str, parent: str | None, ms: int, model: ModelSpec) -> dict[str, Any]:
    """OpenClaw's ``custom`` ``model-snapshot`` entry, written when the runtime model changes."""
    data = {"timestamp": ms, "provider": model.provider, "modelApi": model.api, "modelId": model.model_id}
    return {"type": "custom", "customType": "model-snapshot", "data": data, "id": entry_id, "parentId": parent,
            "timestamp": iso_ms(ms)}


def user_entry(entry_id: str, parent: str | None, ms: int, text: str) -> dict[str, Any]:
    """A user message as OpenClaw records it (a list with one text block)."""
    message = {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ms}
    return {**_base("message", entry_id, parent, ms), "message": message}


def text_block(text: str) -> dict[str, Any]:
    """An assistant text block."""
    return {"type": "text", "text": text}


def thinking_block(text: str, rng: random.Random) -> dict[str, Any]:
    """An assistant thinking block with a provider signature (opaque base64, not counted as context)."""
    signature = base64.b64encode(rng.randbytes(rng.randint(180, 420))).decode()
    return {"type": "thinking", "thinking": text, "thinkingSignature": signature}


def tool_call_block(call_id: str, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """An assistant tool call block."""
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": dict(arguments)}


def assistant_entry(
    entry_id: str,
    parent: str | None,
    ms: int,
    *,
    model: ModelSpec,
    content: Sequence[Mapping[str, Any]],
    usage: Mapping[str, Any],
    stop_reason: str,
    started_ms: int,
) -> dict[str, Any]:
    """An assistant message; ``started_ms`` is when the request began (pi's ``message.timestamp``)."""
    message = {"role": "assistant", "content": [dict(block) for block in content], "api": model.api,
               "provider": model.provider, "model": model.model_id, "usage": dict(usage),
               "stopReason": stop_reason, "timestamp": started_ms}
    return {**_base("message", entry_id, parent, ms), "message": message}


def tool_result_entry(
    entry_id: str,
    parent: str | None,
    ms: int,
    *,
    call_id: str,
    tool_name: str,
    text: str,
    details: Mapping[str, Any] | None = None,
    is_error: bool = False,
) -> dict[str, Any]:
    """A ``toolResult`` message; ``details`` is omitted when None, as pi's ``JSON.stringify`` does."""
    message: dict[str, Any] = {"role": "toolResult", "toolCallId": call_id, "toolName": tool_name,
                               "content": [{"type": "text", "text": text}]}
    if details is not None:
        message["details"] = dict(details)
    message["isError"] = is_error
    message["timestamp"] = ms
    return {**_base("message", entry_id, parent, ms), "message": message}


def compaction_entry(
    entry_id: str,
    parent: str | None,
    ms: int,
    *,
    summary: str,
    first_kept_entry_id: str,
    tokens_before: int,
    read_files: Sequence[str],
    modified_files: Sequence[str],
    from_hook: bool = True,
) -> dict[str, Any]:
    """pi's ``compaction`` entry (``fromHook`` true: OpenClaw's safeguard summarizer wrote the summary)."""
    return {**_base("compaction", entry_id, parent, ms), "summary": summary, "firstKeptEntryId": first_kept_entry_id,
            "tokensBefore": tokens_before,
            "details": {"readFiles": list(read_files), "modifiedFiles": list(modified_files)}, "fromHook": from_hook}


def _bullets(items: Sequence[str], mark: str = "- ") -> str:
    return "\n".join(f"{mark}{item}" for item in items) if items else "- (none)"


def compaction_summary(
    *,
    goal: str,
    constraints: Sequence[str],
    done: Sequence[str],
    in_progress: Sequence[str],
    blocked: Sequence[str],
    decisions: Sequence[str],
    next_steps: Sequence[str],
    critical: Sequence[str],
    read_files: Sequence[str],
    modified_files: Sequence[str],
    split_turn: str | None = None,
) -> str:
    """A summary in pi's template with its ``<read-files>``/``<modified-files>`` blocks (docs/formats.md)."""
    steps = "\n".join(f"{i}. {step}" for i, step in enumerate(next_steps, 1)) or "1. (none)"
    body = (
        f"## Goal\n{goal}\n\n## Constraints & Preferences\n{_bullets(constraints)}\n\n"
        f"## Progress\n### Done\n{_bullets(done, '- [x] ')}\n\n### In Progress\n{_bullets(in_progress, '- [ ] ')}\n\n"
        f"### Blocked\n{_bullets(blocked)}\n\n## Key Decisions\n{_bullets(decisions)}\n\n"
        f"## Next Steps\n{steps}\n\n## Critical Context\n{_bullets(critical)}"
    )
    if split_turn:
        body += f"\n\n---\n\n**Turn Context (split turn):**\n\n{split_turn}"
    if read_files:
        body += "\n\n<read-files>\n" + "\n".join(read_files) + "\n</read-files>"
    if modified_files:
        body += "\n\n<modified-files>\n" + "\n".join(modified_files) + "\n</modified-files>"
    return body
