"""Codex rollout lines reduced to what its context rule and a usage report need (docs/codex.md, Records).

Each line is ``{timestamp, type, payload}`` (``ordinal`` since 0.16x). Text is not kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

__all__ = ["HARNESS_PREFIXES", "SUMMARY_PREFIX", "Item", "TokenCount", "item_of", "token_count_of"]

SUMMARY_PREFIX = "Another language model started to solve this problem"
"""How Codex opens the user message that carries a compaction summary."""

HARNESS_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "<skills_instructions>",
    "<permissions instructions>",
    "<INSTRUCTIONS>",
    "# AGENTS.md instructions",
    "<turn_aborted>",
    "<collaboration_mode>",
)
"""User-role text Codex writes itself (environment, instructions): never the user's words."""


class Item(NamedTuple):
    """One response item (a message, a tool call or its output, reasoning) as Codex would send it."""

    id: str | None
    role: str
    """``user``, ``assistant``, ``tool``, ``summary``, ``harness`` (developer and environment context) or
    ``reasoning``."""
    chars: int
    call: str | None = None
    """For a tool call (not its output): the tool's name."""


class TokenCount(NamedTuple):
    """A ``token_count`` event's figures."""

    last_total: int | None
    window: int | None
    input: int
    cached: int
    cache_write: int
    output: int
    total_total: int | None


def _int(value: Any) -> int:
    return value if type(value) is int and value >= 0 else 0


def _opt_int(value: Any) -> int | None:
    return value if type(value) is int and value >= 0 else None


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    if isinstance(content, list):
        for part in content:
            if isinstance(part, Mapping) and isinstance(part.get("text"), str):
                parts.append(part["text"])
    return "".join(parts)


_CALLS = {"function_call": None, "custom_tool_call": None, "local_shell_call": "local_shell",
          "web_search_call": "web_search", "tool_search_call": "tool_search"}
"""The call kinds of response items, with the tool's name where the item names none."""


def _called(kind: str, payload: Mapping[str, Any]) -> str | None:
    if kind not in _CALLS:
        return None  # an output
    name = payload.get("name")
    return name if isinstance(name, str) and name else _CALLS[kind] or "?"


def item_of(payload: Mapping[str, Any]) -> Item | None:
    """The item a ``response_item`` payload (or a ``replacement_history`` entry) is; ``None`` when unknown."""
    kind = payload.get("type")
    ident = payload.get("id") if isinstance(payload.get("id"), str) else None
    if kind == "message":
        text = _text(payload.get("content"))
        role = payload.get("role")
        if role == "assistant":
            return Item(ident, "assistant", len(text))
        if role in ("developer", "system"):
            return Item(ident, "harness", len(text))
        if role == "user":
            stripped = text.lstrip()
            if stripped.startswith(SUMMARY_PREFIX):
                return Item(ident, "summary", len(text))
            if stripped.startswith(HARNESS_PREFIXES):
                return Item(ident, "harness", len(text))
            return Item(ident, "user", len(text))
        return None
    if kind in ("function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output",
                "local_shell_call", "web_search_call", "tool_search_call", "tool_search_output"):
        body = payload.get("arguments") if "arguments" in payload else payload.get("output", payload.get("input"))
        return Item(ident, "tool", len(body) if isinstance(body, str) else len(str(body or "")), _called(kind, payload))
    if kind == "reasoning":
        return Item(ident, "reasoning", len(_text(payload.get("summary"))))
    return None


def token_count_of(payload: Mapping[str, Any]) -> TokenCount | None:
    """The figures of a ``token_count`` event (``None`` when it carries no ``info``)."""
    info = payload.get("info")
    if not isinstance(info, Mapping):
        return None
    last = info.get("last_token_usage")
    last = last if isinstance(last, Mapping) else {}
    total = info.get("total_token_usage")
    total = total if isinstance(total, Mapping) else {}
    return TokenCount(_total(last), _opt_int(info.get("model_context_window")),
                      _int(last.get("input_tokens")), _int(last.get("cached_input_tokens")),
                      _int(last.get("cache_write_input_tokens")), _int(last.get("output_tokens")), _total(total))


def _total(usage: Mapping[str, Any]) -> int | None:
    """``total_tokens``; older rollouts leave it out, and then it is input + output (cached input is in input)."""
    total = _opt_int(usage.get("total_tokens"))
    if total is not None or not usage:
        return total
    return _int(usage.get("input_tokens")) + _int(usage.get("output_tokens"))
