"""Claude Code's context rule: what it would send next, and how many tokens that is (docs/claude-code.md, Context).

From the leaf, follow ``parentUuid`` back. A ``compact_boundary`` has no parent: the walk stops there. What
is on the context is then the compaction summary, the preserved segment the boundary names (``head``…``tail``,
read back right after the summary, its ``anchor``), and everything that followed the summary. The tokens are
Claude Code's own count: the last reply's usage (input + cache writes + cache reads + output) plus a rough
estimate (characters / 4, rounded) of the messages written after that reply; right after a compaction, before
any reply, the boundary's ``postTokens``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.agents.claude_code.records import Record, TokenUsage
from engine.agents.protocol import ContextItem, Figure

__all__ = ["context_path", "context_tokens", "rough_tokens"]

_MESSAGE_TYPES = frozenset({"user", "assistant"})
_NO_USAGE = TokenUsage(0, 0, 0, 0)


def rough_tokens(chars: int) -> int:
    """Claude Code's rough estimate of text it has no usage for: characters / 4, halves rounded up."""
    return (chars * 2 + 4) // 8 if chars > 0 else 0


def _chain(start: str | None, by_uuid: Mapping[str, Record], stop: str | None = None) -> list[Record]:
    """Records from ``start`` back through ``parentUuid`` (newest first), ending after ``stop`` if met."""
    out: list[Record] = []
    seen: set[str] = set()
    uuid = start
    while uuid is not None and uuid not in seen:
        record = by_uuid.get(uuid)
        if record is None:
            break
        seen.add(uuid)
        out.append(record)
        if uuid == stop:
            break
        uuid = record.parent
    return out


def context_path(leaf: str | None, by_uuid: Mapping[str, Record]) -> tuple[list[Record], Record | None]:
    """The records on the context in the order Claude Code sends them, and the boundary it starts after."""
    newest_first = _chain(leaf, by_uuid)
    boundary = newest_first[-1] if newest_first and newest_first[-1].boundary is not None else None
    path = list(reversed(newest_first))
    if boundary is None:
        return path, None
    path = path[1:]  # the boundary itself is not sent
    meta = boundary.boundary
    if meta is not None and meta.tail and meta.head and meta.anchor:
        segment = list(reversed(_chain(meta.tail, by_uuid, stop=meta.head)))
        at = next((i + 1 for i, r in enumerate(path) if r.uuid == meta.anchor), 0)
        path = path[:at] + segment + path[at:]
    return path, boundary


def context_items(path: Sequence[Record]) -> tuple[ContextItem, ...]:
    """The records on the context as items; a tool result names the tool its ``tool_use_id`` points to (a call
    earlier on the path; when one record answers several tools, the name only if they are all the same)."""
    called: dict[str, str] = {}
    items = []
    for r in path:
        if r.role is None:
            continue
        called.update(r.tool_uses)
        names = {called.get(i) for i in r.tool_results}
        tool = names.pop() if len(names) == 1 else None
        items.append(ContextItem(r.line_no, r.uuid, r.role, r.chars, r.offset, r.length, -1, r.timestamp, r.model,
                                 tool, tuple(name for _, name in r.tool_uses)))
    return tuple(items)


def context_tokens(path: Sequence[Record], boundary: Record | None) -> Figure:
    """Claude Code's count of ``path`` (see the module docstring)."""
    last = next((i for i in range(len(path) - 1, -1, -1) if (path[i].usage or _NO_USAGE).total), None)
    if last is not None:
        usage = path[last].usage or _NO_USAGE
        later = [r for r in path[last + 1:] if r.type in _MESSAGE_TYPES and r.usage is None]
        estimate = sum(rough_tokens(r.chars) for r in later)
        source = "claude-code: last usage" + (f" + estimate of {len(later)} later message(s)" if later else "")
        return Figure(usage.total + estimate, source)
    if boundary is not None and boundary.boundary is not None and boundary.boundary.post_tokens is not None:
        return Figure(boundary.boundary.post_tokens, "claude-code compact_boundary postTokens")
    return Figure(None, "claude-code: no usage recorded yet")
