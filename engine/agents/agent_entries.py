"""Claude Code and Codex sessions as entries, so every view that follows pi sessions can follow them too.

The agent's reader (``engine/agents``) computes the context by that agent's rule; this reader lays the context it
returns out as one linear chain of :class:`Entry` values (each item's parent is the item before it), so pi's
context rule over these entries gives back exactly the agent's context. Roles map onto pi's: the agent's
``summary`` is a ``compactionSummary``, its ``harness`` text a ``custom`` message (never a user message), tool
calls and results ``toolResult``. The figures (tokens, window, compaction line) are the agent's own and come
from :attr:`AgentEntryReader.reading` (docs/claude-code.md, docs/codex.md). Read-only.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from engine.agents.protocol import AgentReading, ContextItem
from engine.agents.registry import adapter_named
from engine.stores.entries import Entry
from engine.stores.entry_parser import BadLine, EntryParser
from engine.stores.transcript import ReadBatch, TranscriptError, last_leaf

__all__ = ["AgentEntryReader"]

_ROLES = {"user": "user", "assistant": "assistant", "tool": "toolResult", "summary": "compactionSummary",
          "harness": "custom", "reasoning": "custom"}


def _text(raw: Any) -> str:
    """The text of a Claude Code ``message`` or a Codex item (content string or parts)."""
    if isinstance(raw, Mapping):
        for key in ("content", "arguments", "output", "summary"):
            if key in raw:
                return _text(raw[key])
        return str(raw.get("text") or "")
    if isinstance(raw, str):
        return raw
    if isinstance(raw, list):
        parts = []
        for part in raw:
            if isinstance(part, Mapping):
                value = part.get("text", part.get("thinking", part.get("content", part.get("input", ""))))
                # A tool result's content may itself be a list of text blocks: its words, not their JSON.
                parts.append(value if isinstance(value, str) else _text(value) if isinstance(value, list)
                             else orjson.dumps(value).decode())
            elif isinstance(part, str):
                parts.append(part)
        return "\n".join(p for p in parts if p)
    return ""


def _blocks(raw: Any) -> list[dict[str, Any]] | None:
    """A reply's content as pi's blocks (``text``, ``thinking``, ``toolCall``), so what reads pi's replies tells the
    agent's words from its reasoning and its tool calls (capture's files and tools: docs/claude-code.md, Records);
    ``None`` when it has no list of parts."""
    content = raw.get("content") if isinstance(raw, Mapping) else None
    if not isinstance(content, list):
        return None
    blocks: list[dict[str, Any]] = []
    for part in content:
        if not isinstance(part, Mapping):
            continue
        kind = part.get("type")
        if kind == "tool_use":
            arguments = part.get("input")
            blocks.append({"type": "toolCall", "id": str(part.get("id") or ""), "name": str(part.get("name") or "?"),
                           "arguments": dict(arguments) if isinstance(arguments, Mapping) else {}})
        elif kind == "thinking" and isinstance(part.get("thinking"), str):
            blocks.append({"type": "thinking", "thinking": part["thinking"]})
        else:
            said = _text([part])
            if said:
                blocks.append({"type": "text", "text": said})
    return blocks or None


def _call_blocks(raw: Any, name: str) -> list[dict[str, Any]] | None:
    """A Codex call item (``function_call``, ``custom_tool_call``, ``local_shell_call``) of the tool ``name`` (as the
    reader named it) as pi's ``toolCall`` block: a function's JSON arguments, a custom tool's ``input``
    (``apply_patch``'s patch), a local shell's command."""
    if not isinstance(raw, Mapping):
        return None
    arguments: Any = {}
    if isinstance(raw.get("arguments"), str):
        try:
            arguments = orjson.loads(raw["arguments"])
        except orjson.JSONDecodeError:
            arguments = {"arguments": raw["arguments"]}
    elif isinstance(raw.get("input"), str):
        arguments = {"input": raw["input"]}
    elif isinstance(raw.get("action"), Mapping):
        arguments = dict(raw["action"])
    return [{"type": "toolCall", "id": str(raw.get("call_id") or raw.get("id") or ""), "name": name,
             "arguments": arguments if isinstance(arguments, Mapping) else {"arguments": arguments}}]


class AgentEntryReader:
    """A :class:`engine.agents.session_reader.SessionReader` over a Claude Code or Codex session."""

    def __init__(self, path: Path, session_format: str, agent: str) -> None:
        adapter = adapter_named(session_format)
        if adapter is None:
            raise ValueError(f"{session_format} is not read through engine.agents")
        self.path = Path(path)
        self.agent = agent
        self._reader = adapter.reader(self.path, os.environ)
        self.reading: AgentReading | None = None
        self.mtime: float | None = None
        self.parser = EntryParser()
        self.parser.headerless = True
        self.entries: list[Entry] = []
        self.by_id: dict[str, int] = {}
        self.bad_lines: list[BadLine] = []
        self._items: dict[str, ContextItem] = {}

    @property
    def header(self) -> dict[str, Any] | None:
        return None

    @property
    def leaf(self) -> Entry | None:
        return last_leaf(self.entries, self.by_id)

    def renamed(self, to: Path) -> bool:
        return False

    def read_new(self) -> ReadBatch:
        """Read what the agent appended; the whole context is handed out again (``reset``) when it changed.

        Raises:
            TranscriptError: the file cannot be read.
        """
        previous = self.reading
        try:
            reading = self._reader.read_new()
            self.mtime = os.stat(self.path).st_mtime
        except OSError as exc:
            raise TranscriptError(f"cannot read {self.path}: {exc.strerror or exc}") from exc
        self.reading = reading
        if previous is not None and previous.context == reading.context and previous.problems == reading.problems:
            return ReadBatch((), (), False, 0, 0)
        self.entries, self.by_id, self._items = [], {}, {}
        parent: str | None = None
        for item in reading.context:
            ident = item.id if item.id and item.id not in self._items else item.place
            self._items[ident] = item
            self.by_id[ident] = len(self.entries)
            self.entries.append(self._entry(item, ident, parent))
            parent = ident
        self.bad_lines = [BadLine(p.line_no, p.offset, p.reason) for p in reading.problems]
        return ReadBatch(tuple(self.entries), tuple(self.bad_lines), True, 0, 0)

    def _entry(self, item: ContextItem, ident: str, parent: str | None) -> Entry:
        role = _ROLES.get(item.role, "custom")
        offset = item.offset + (item.part + 1 if item.part >= 0 else 0)  # unique per item: token caches key on it
        return Entry(item.line_no, offset, item.length, "message", ident, parent, item.timestamp, role, item.chars,
                     model=item.model, provider=self.agent if item.model else None,
                     custom_type=f"{self.agent}-{item.role}" if role == "custom" else None, tool_name=item.tool_name,
                     tool_calls=item.calls)

    def read_object(self, entry: Entry) -> dict[str, Any]:
        """A pi-shaped object of ``entry`` (``{"type": "message", "message": {role, content}}``), re-read from disk.

        Raises:
            TranscriptError: the line is gone or no longer parses.
        """
        item = self._items.get(entry.id or "")
        if item is None:
            raise TranscriptError(f"{self.path}: no item {entry.id} on the context")
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
            try:
                raw = os.pread(fd, item.length, item.offset)
            finally:
                os.close(fd)
            obj = orjson.loads(raw)
        except (OSError, orjson.JSONDecodeError) as exc:
            raise TranscriptError(f"line {item.line_no} of {self.path} could not be re-read: {exc}") from exc
        source: Any = obj.get("message") if "message" in obj and isinstance(obj.get("message"), Mapping) else obj
        if isinstance(obj.get("rendered"), list):  # a Claude Code attachment: what it renders is what is sent
            source = obj["rendered"]
        payload = obj.get("payload") if isinstance(obj, Mapping) else None
        if isinstance(payload, Mapping):
            source = payload
            if item.part >= 0 and isinstance(payload.get("replacement_history"), list):
                history = payload["replacement_history"]
                source = history[item.part] if item.part < len(history) else {}
            elif obj.get("type") == "session_meta":
                base = payload.get("base_instructions")
                source = {"content": base.get("text") if isinstance(base, Mapping) else payload.get("instructions")}
            elif obj.get("type") == "compacted":
                source = {"content": payload.get("message")}
        text = _text(source)
        blocks = _blocks(source) if entry.role == "assistant" else _call_blocks(source, entry.tool_calls[0]) if (
            entry.tool_calls) else None
        message: dict[str, Any] = {"role": entry.role, "content": blocks or [{"type": "text", "text": text}]}
        if entry.custom_type:
            message["customType"] = entry.custom_type
        return {"type": "message", "id": entry.id, "parentId": entry.parent_id, "timestamp": entry.timestamp,
                "summary": text, "message": message}
