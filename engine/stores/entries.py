"""Transcript entries as compact metadata: what the accounting needs, never the full text.

A pi/OpenClaw transcript line becomes an :class:`Entry` holding its position in the file (so the text can
be re-read on demand), its tree links, and the numbers the context accounting needs (pi's character
count, usage). Tool outputs and message text are dropped as soon as the line is measured.
See docs/formats.md (Entry fields, Entry types, Messages and usage).
"""

from __future__ import annotations

from collections.abc import Mapping
from sys import intern
from typing import Any, NamedTuple

from engine.stores.message_content import arguments_chars, content_chars, message_chars, utf16_len
from engine.stores.number_bounds import cost_usd, token_count

__all__ = [
    "CONTEXT_ROLES",
    "AssistantCall",
    "Entry",
    "Usage",
    "assistant_call",
    "entry_from_object",
    "usage_from_object",
]

CONTEXT_ROLES = frozenset(
    {"user", "assistant", "toolResult", "bashExecution", "custom", "branchSummary", "compactionSummary"}
)
"""The roles pi converts into a model message (``convertToLlm``). A message with any other role (a v3
``hookMessage``, a role pi does not know) still sits in pi's context list, with 0 tokens, but is never sent."""

FALLBACK_SUMMARY_PREFIX = "Summary unavailable due to context limits"


class Usage(NamedTuple):
    """Provider-reported token usage of one assistant message (all figures in tokens)."""

    input: int
    output: int
    cache_read: int
    cache_write: int
    total_tokens: int
    cost_total: float | None = None
    """USD as reported in ``usage.cost.total``; ``None`` when absent."""
    parts_missing: bool = False
    """One of ``input``, ``output``, ``cacheRead``, ``cacheWrite`` is absent from the record (counted 0 here)."""

    @property
    def context_tokens(self) -> int:
        """``totalTokens`` or the sum of the parts, an absent part counted as 0: ctxscope's own reading."""
        return self.total_tokens or (self.input + self.output + self.cache_read + self.cache_write)

    @property
    def pi_context_tokens(self) -> int | None:
        """pi's ``calculateContextTokens`` exactly: without ``totalTokens``, an absent part makes pi's sum NaN
        (``undefined`` in JavaScript arithmetic), shown as ``None`` (docs/context-accounting.md)."""
        if self.total_tokens or not self.parts_missing:
            return self.context_tokens
        return None

    @property
    def is_zero(self) -> bool:
        return self.context_tokens == 0


class Entry(NamedTuple):
    """One transcript line, reduced to metadata. Text is re-read from ``offset``/``length`` on demand.

    A ``NamedTuple`` rather than a frozen dataclass: an index builds one per line, and a tuple is built in a
    fraction of the time a 25-field frozen dataclass needs (measured: the difference between ~40 and
    ~100 MB/s of indexing). It is just as immutable.
    """

    line_no: int
    """1-based physical line number in the file (or ``seq`` for SQLite stores)."""
    offset: int
    """Byte offset of the line's first byte."""
    length: int
    """Length of the line in bytes, without the newline."""
    type: str
    id: str | None
    parent_id: str | None
    timestamp: str | None
    role: str | None = None
    """Context role when the entry is on pi's context list: the message's role (whatever it is), ``custom`` for
    ``custom_message``, ``branchSummary`` for ``branch_summary``; ``None`` otherwise."""
    chars: int = 0
    """pi's character measure of the message (UTF-16 units, images as 4,800); 0 outside the context."""
    usage: Usage | None = None
    stop_reason: str | None = None
    provider: str | None = None
    model: str | None = None
    first_kept_entry_id: str | None = None
    tokens_before: int | None = None
    from_hook: bool | None = None
    fallback_summary: bool = False
    """A compaction whose summary is OpenClaw's "Summary unavailable due to context limits" fallback."""
    custom_type: str | None = None
    display: bool | None = None
    tool_calls: tuple[str, ...] = ()
    """Names of the tools an assistant message called."""
    tool_name: str | None = None
    is_error: bool = False
    target_id: str | None = None
    """For ``label`` entries: the labelled entry; for OpenClaw's ``leaf`` entries: the new leaf."""
    label: str | None = None
    excluded: bool = False
    """A ``bashExecution`` with ``excludeFromContext`` (pi's ``!!`` prefix): stored but never sent."""
    tokens_after: int | None = None
    """For OpenClaw compactions: its own count of the context right after compacting (``tokensAfter``)."""
    null_id: bool = False
    """The line's ``id`` is JSON ``null``: as pi's leaf it gives an empty context, where an absent id does not
    (docs/pi.md, Leaf)."""

    @property
    def in_context(self) -> bool:
        """Whether this entry is on pi's context list when it is on the context path (sent or not, see docs/pi.md)."""
        return self.role is not None

    @property
    def sent(self) -> bool:
        """Whether pi sends this context entry to the model: a known role, and not a ``!!`` command."""
        return self.role in CONTEXT_ROLES and not self.excluded

    @property
    def pi_tokens(self) -> int:
        """pi's ``estimateTokens``: ``ceil(chars / 4)``."""
        return -(-self.chars // 4)

    @property
    def has_valid_usage(self) -> bool:
        """Usage that counts as authoritative: not aborted/error, not zero, not synthetic.

        See docs/context-accounting.md, Tokens.
        """
        return (
            self.role == "assistant"
            and self.usage is not None
            and not self.usage.is_zero
            and self.stop_reason not in ("aborted", "error")
            and self.provider != "openclaw"
        )

    @property
    def has_pi_usage(self) -> bool:
        """Usage that pi's own estimate picks up (pi skips only aborted/error, not zeros or mirrors)."""
        return self.role == "assistant" and self.usage is not None and self.stop_reason not in ("aborted", "error")


def _int(value: Any) -> int:
    # Out of bounds counts as absent (docs/formats.md, Number bounds); the parser reports the line.
    return token_count(value) or 0


def _str(value: Any) -> str | None:
    return value if type(value) is str else None


def _name(value: Any) -> str | None:
    # Model, provider, role and tool names repeat on every line; one shared copy each keeps a big index small.
    return intern(value) if type(value) is str and len(value) < 200 else None


def usage_from_object(raw: Any) -> Usage | None:
    """Parse pi's ``Usage`` object, tolerating missing or mistyped fields."""
    if not isinstance(raw, dict):
        return None
    cost = raw.get("cost")
    cost_total = cost.get("total") if isinstance(cost, dict) else None
    return Usage(
        input=_int(raw.get("input")),
        output=_int(raw.get("output")),
        cache_read=_int(raw.get("cacheRead")),
        cache_write=_int(raw.get("cacheWrite")),
        total_tokens=_int(raw.get("totalTokens")),
        cost_total=cost_usd(cost_total),
        parts_missing=not _USAGE_PARTS.issubset(raw.keys()),
    )


_USAGE_PARTS = frozenset({"input", "output", "cacheRead", "cacheWrite"})


_Base = tuple[int, int, int, str, str | None, str | None, str | None]
"""The first seven fields of :class:`Entry`: position and tree links."""


def _assistant_content(content: Any) -> tuple[int, tuple[str, ...]]:
    chars = 0
    calls: list[str] = []
    if type(content) is not list:
        return 0, ()
    for block in content:
        if type(block) is not dict:
            continue
        kind = block.get("type")
        if kind == "text":
            text = block.get("text")
            chars += utf16_len(text) if type(text) is str else 0
        elif kind == "thinking":
            text = block.get("thinking")
            chars += utf16_len(text) if type(text) is str else 0
        elif kind == "toolCall":
            name = block.get("name")
            name = intern(name) if type(name) is str and len(name) < 200 else "?"
            calls.append(name)
            chars += utf16_len(name) + arguments_chars(block.get("arguments", {}))
    return chars, tuple(calls)


def _message_entry(base: _Base, message: dict[str, Any]) -> Entry:
    # The hot path of indexing: positional construction and exact type checks (orjson makes plain dicts).
    role = message.get("role")
    get = message.get
    if role == "assistant":
        chars, calls = _assistant_content(get("content"))
        return Entry(
            *base,
            "assistant",
            chars,
            usage_from_object(get("usage")),
            _name(get("stopReason")),
            _name(get("provider")),
            _name(get("model")),
            None,
            None,
            None,
            False,
            None,
            None,
            calls,
        )
    if role == "toolResult":
        return Entry(
            *base,
            "toolResult",
            content_chars(get("content"), images=True),
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            False,
            None,
            None,
            (),
            _name(get("toolName")),
            get("isError") is True,
        )
    if role == "user":
        return Entry(*base, "user", content_chars(get("content"), images=False))
    if role not in CONTEXT_ROLES:
        # On pi's context list with 0 tokens, never sent (a v1/v2 hookMessage was renamed to custom by the parser).
        return Entry(*base, role=_name(role))
    return Entry(
        *base,
        role=role,
        chars=message_chars(message),
        custom_type=_name(get("customType")),
        excluded=role == "bashExecution" and get("excludeFromContext") is True,
    )


class AssistantCall(NamedTuple):
    """The fields of an assistant message that a usage report needs, read as :func:`entry_from_object` reads them."""

    id: str | None
    timestamp: str | None
    provider: str | None
    model: str | None
    usage: Usage | None
    stop_reason: str | None


def assistant_call(obj: Mapping[str, Any]) -> AssistantCall | None:
    """The call fields of an assistant ``message`` line without measuring its content (``None`` otherwise).

    Same rules as :func:`entry_from_object` for these fields, at a fraction of its cost: a report reads every
    assistant line and needs none of their text.
    """
    if obj.get("type") != "message":
        return None
    message = obj.get("message")
    if type(message) is not dict or message.get("role") != "assistant":
        return None
    get = message.get
    return AssistantCall(_name(obj.get("id")), _str(obj.get("timestamp")), _name(get("provider")), _name(get("model")),
                         usage_from_object(get("usage")), _name(get("stopReason")))


def entry_from_object(obj: Mapping[str, Any], *, line_no: int, offset: int, length: int) -> Entry:
    """Reduce one parsed transcript line to an :class:`Entry`."""
    entry = _reduce(obj, line_no, offset, length)
    if entry.id is None and "id" in obj and obj["id"] is None:
        return entry._replace(null_id=True)
    return entry


def _reduce(obj: Mapping[str, Any], line_no: int, offset: int, length: int) -> Entry:
    kind = _name(obj.get("type")) or "unknown"
    base: _Base = (
        line_no,
        offset,
        length,
        kind,
        _name(obj.get("id")),
        _name(obj.get("parentId")),
        _str(obj.get("timestamp")),
    )
    if kind == "message":
        message = obj.get("message")
        if type(message) is not dict:
            return Entry(*base)
        return _message_entry(base, message)
    if kind == "compaction":
        summary = _str(obj.get("summary")) or ""
        tokens_before = obj.get("tokensBefore")
        tokens_after = obj.get("tokensAfter")
        return Entry(
            *base,
            tokens_after=_int(tokens_after) if tokens_after is not None else None,
            chars=utf16_len(summary),
            first_kept_entry_id=_str(obj.get("firstKeptEntryId")),
            tokens_before=_int(tokens_before) if tokens_before is not None else None,
            from_hook=obj.get("fromHook") if isinstance(obj.get("fromHook"), bool) else None,
            fallback_summary=summary.startswith(FALLBACK_SUMMARY_PREFIX),
        )
    if kind == "branch_summary":
        summary = _str(obj.get("summary")) or ""
        # pi emits a branch summary only when it is non-empty (docs/context-accounting.md, Context).
        return Entry(*base, role="branchSummary" if summary else None, chars=utf16_len(summary))
    if kind == "custom_message":
        return Entry(
            *base,
            role="custom",
            chars=content_chars(obj.get("content"), images=True),
            custom_type=_str(obj.get("customType")),
            display=obj.get("display") if isinstance(obj.get("display"), bool) else None,
        )
    if kind == "model_change":
        return Entry(*base, provider=_name(obj.get("provider")), model=_name(obj.get("modelId")))
    if kind == "custom":
        return Entry(*base, custom_type=_str(obj.get("customType")))
    if kind == "label":
        return Entry(*base, target_id=_str(obj.get("targetId")), label=_str(obj.get("label")))
    if kind == "leaf":
        # OpenClaw's rewind moves the leaf back to targetId without copying anything (docs/openclaw.md).
        return Entry(*base, target_id=_str(obj.get("targetId")))
    return Entry(*base)
