"""The incremental reader of one Codex rollout (docs/codex.md).

Context: the items Codex would send next — its base instructions (``session_meta``) first, then, after the last
``compacted`` record, its ``replacement_history`` followed by every item since (without one, the summary and what
followed); before any compaction, every item.
Tokens: the last ``token_count``'s ``last_token_usage.total_tokens``, Codex's own figure for the context; window:
its ``model_context_window``. Read-only; only appended lines are parsed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.agents.codex.config import compaction_line
from engine.agents.codex.records import Item, TokenCount, item_of, token_count_of
from engine.agents.jsonl_cursor import JsonlCursor, Line, LineProblem
from engine.agents.marked_lines import Deferred, read_marked
from engine.agents.protocol import AgentCall, AgentCompaction, AgentReading, ContextItem, Figure

__all__ = ["CodexReader"]

AGENT = "codex"


def _str(value: Any) -> str | None:
    return value if type(value) is str else None


class CodexReader:
    """Follows one ``rollout-*.jsonl`` as Codex would resume it."""

    def __init__(self, path: Path, env: Mapping[str, str] | None = None, *, usage_only: bool = False) -> None:
        """``usage_only``: parse only the records a usage report needs (session, model, token counts,
        compactions); the context, the leaf and the compaction line are then left empty (docs/usage.md)."""
        self.path = path if isinstance(path, Path) else Path(path)  # a Path again costs 5 µs a file
        self._env = dict(env or {})
        self.usage_only = usage_only
        self.cursor = JsonlCursor(self.path, _usage_line if usage_only else None)
        self.whole: bytes | None = None
        """After a usage pass that read the file from its start in one go, its bytes: a caller that keeps a digest
        of those up to the cursor's offset need not read them again."""
        self._clear()

    def _clear(self) -> None:
        self.records = 0
        self.session_id: str | None = None
        self.cwd: str | None = None
        self.version: str | None = None
        self.model: str | None = None
        self.started_window: int | None = None
        self.context: list[ContextItem] = []
        self.base: ContextItem | None = None
        """The base instructions (``session_meta``), sent first with every request."""
        self.last_count: TokenCount | None = None
        self.last_count_line = 0
        self.last_compacted_line = 0
        self.compactions: list[AgentCompaction] = []
        self.usage_records: dict[str, AgentCall] = {}
        self.count_calls: list[AgentCall] = []
        self.problems: list[LineProblem] = []
        self.last_timestamp: str | None = None
        self.leaf_id: str | None = None
        self._prev_total: int | None = None

    def usage_state(self) -> dict[str, Any]:
        """What a usage-only reader knows, as JSON values: :meth:`resume` continues from it at the cursor's
        offset, so a report reads only what was appended to a rollout (docs/usage.md)."""
        return {
            "offset": self.cursor.offset, "lines": self.cursor.line_no, "records": self.records,
            "session_id": self.session_id, "cwd": self.cwd, "version": self.version, "model": self.model,
            "last_count": list(self.last_count) if self.last_count is not None else None,
            "last_count_line": self.last_count_line, "last_compacted_line": self.last_compacted_line,
            "compactions": [list(c) for c in self.compactions],
            "usage_records": [list(c) for c in self.usage_records.values()],
            "count_calls": [list(c) for c in self.count_calls],
            "last_timestamp": self.last_timestamp, "prev_total": self._prev_total,
        }

    @classmethod
    def resume(cls, path: Path, state: Mapping[str, Any]) -> CodexReader:
        """A usage-only reader of ``path`` that continues from :meth:`usage_state` (the caller checked that the
        bytes before its offset did not change).

        Raises:
            KeyError, TypeError, ValueError: ``state`` is not one :meth:`usage_state` wrote.
        """
        reader = cls(path, usage_only=True)
        reader.cursor.offset, reader.cursor.line_no = int(state["offset"]), int(state["lines"])
        reader.records = int(state["records"])
        reader.session_id, reader.cwd = state["session_id"], state["cwd"]
        reader.version, reader.model = state["version"], state["model"]
        count = state["last_count"]
        reader.last_count = TokenCount(*count) if count is not None else None
        reader.last_count_line, reader.last_compacted_line = state["last_count_line"], state["last_compacted_line"]
        reader.compactions = [AgentCompaction(*c) for c in state["compactions"]]
        reader.usage_records = {c[1].removeprefix("codex:"): AgentCall(*c) for c in state["usage_records"]}
        reader.count_calls = [AgentCall(*c) for c in state["count_calls"]]
        reader.last_timestamp, reader._prev_total = state["last_timestamp"], state["prev_total"]
        return reader

    def read_new(self) -> AgentReading:
        """Parse what was appended since the last call; the whole session's reading.

        Raises:
            OSError: the file cannot be read.
        """
        if self.usage_only:
            return self._read_usage()
        lines, reset = self.cursor.read_new()
        if reset:
            self._clear()
        for line in lines:
            if isinstance(line, Line):
                self._accept(line)
            else:
                self.problems.append(line)
        return self.reading()

    def _read_usage(self) -> AgentReading:
        """A report's pass: the whole file searched for the usage records' names (docs/usage.md, Speed).

        When a ``token_usage_record`` gives the calls, a ``token_count`` only matters as the last one before a
        compaction (its size before) and the last one of all: the others are left unparsed. Without one, every
        ``token_count`` is a call and all are read in order, as the full reader reads them.
        """
        whole: list[bytes] = []
        found, reset = read_marked(self.cursor, _USAGE_MARKERS, _COUNT_MARKERS, whole)
        self.whole = whole[0] if whole else None
        lines: list[Line | LineProblem | Deferred | None] = list(found)
        if reset:
            self._clear()
        if not (self.usage_records or any(isinstance(line, Line) and _gives_record(line.obj) for line in lines)):
            lines = [line.parse() if isinstance(line, Deferred) else line for line in lines]
        pending: list[Deferred] = []
        for line in lines:
            if isinstance(line, Deferred):
                pending.append(line)
            elif isinstance(line, Line):
                if pending and _settles(line.obj):
                    self._settle(pending)
                self._accept(line)
            elif line is not None:
                self.problems.append(line)
        if pending:
            self._settle(pending)
        return self.reading()

    def _settle(self, pending: list[Deferred]) -> None:
        """Take the last ``token_count`` among ``pending`` (unparsed, in file order) as the last one read."""
        for deferred in reversed(pending):
            line = deferred.parse()
            if not isinstance(line, Line):
                continue
            obj, payload = line.obj, line.obj.get("payload")
            if not (obj.get("type") == "event_msg" and isinstance(payload, Mapping)
                    and payload.get("type") == "token_count"):
                continue
            count = token_count_of(payload)
            if count is not None:
                self.last_count, self.last_count_line = count, line.line_no
                if count.total_total is not None:
                    self._prev_total = count.total_total
                break
        pending.clear()

    def _item(self, line: Line, payload: Mapping[str, Any], part: int = -1) -> ContextItem | None:
        item: Item | None = item_of(payload)
        if item is None:
            return None
        model = self.model if item.role == "assistant" else None
        return ContextItem(line.line_no, item.id, item.role, item.chars, line.offset, line.length, part,
                           _str(line.obj.get("timestamp")), model, calls=(item.call,) if item.call else ())

    def _accept(self, line: Line) -> None:
        obj = line.obj
        self.records += 1
        kind, payload = obj.get("type"), obj.get("payload")
        timestamp = _str(obj.get("timestamp"))
        self.last_timestamp = timestamp or self.last_timestamp
        if type(payload) is not dict and not isinstance(payload, Mapping):  # orjson's dict first: cheaper
            return
        if kind == "session_meta":
            self.session_id = _str(payload.get("id")) or _str(payload.get("session_id")) or self.session_id
            self.cwd = _str(payload.get("cwd")) or self.cwd
            self.version = _str(payload.get("cli_version")) or self.version
            base = payload.get("base_instructions")
            text = _str(base.get("text")) if isinstance(base, Mapping) else _str(payload.get("instructions"))
            if text:
                self.base = ContextItem(line.line_no, None, "harness", len(text), line.offset, line.length, -1,
                                        _str(obj.get("timestamp")))
        elif kind == "turn_context":
            self.model = _str(payload.get("model")) or self.model
        elif kind == "response_item":
            item = self._item(line, payload)
            if item is not None:
                self.context.append(item)
                self.leaf_id = item.id or self.leaf_id
        elif kind == "compacted":
            self._compacted(line, payload, timestamp)
        elif kind == "token_usage_record":
            self._usage_record(line, payload, timestamp)
        elif kind == "event_msg":
            event = payload.get("type")
            if event == "task_started":
                window = payload.get("model_context_window")
                self.started_window = window if type(window) is int and window > 0 else self.started_window
            elif event == "token_count":
                self._token_count(line, payload, timestamp)

    def _compacted(self, line: Line, payload: Mapping[str, Any], timestamp: str | None) -> None:
        history = payload.get("replacement_history")
        before = self.last_count.last_total if self.last_count else None
        if isinstance(history, list):
            items = (self._item(line, h, i) for i, h in enumerate(history) if isinstance(h, Mapping))
            self.context = [i for i in items if i is not None]
        else:
            message = _str(payload.get("message")) or ""
            self.context = [ContextItem(line.line_no, None, "summary", len(message), line.offset, line.length, -1,
                                        timestamp)]
        self.last_compacted_line = line.line_no
        self.compactions.append(AgentCompaction(line.line_no, None, None, before, None, timestamp, "codex compacted"))

    def _usage_record(self, line: Line, payload: Mapping[str, Any], timestamp: str | None) -> None:
        usage = payload.get("usage")
        if type(usage) is not dict and not isinstance(usage, Mapping):
            return
        rid = _str(payload.get("response_id")) or f"{self.session_id}@{timestamp}"
        self.usage_records.setdefault(rid, _call(line.line_no, f"codex:{rid}", timestamp, self.model, usage))

    def _token_count(self, line: Line, payload: Mapping[str, Any], timestamp: str | None) -> None:
        count = token_count_of(payload)
        if count is None:
            return
        self.last_count, self.last_count_line = count, line.line_no
        if count.total_total is not None and count.total_total != self._prev_total and count.last_total:
            info = payload.get("info")
            model = _str(info.get("model")) if isinstance(info, Mapping) else None
            self.count_calls.append(AgentCall(
                line.line_no, f"codex:{self.session_id}@{timestamp}", timestamp, model or self.model,
                max(0, count.input - count.cached), count.output, count.cached, count.cache_write))
        if count.total_total is not None:
            self._prev_total = count.total_total

    def reading(self) -> AgentReading:
        count = self.last_count
        if count is None or count.last_total is None:
            tokens = Figure(None, "codex: no token_count yet")
        elif self.last_compacted_line > self.last_count_line:
            tokens = Figure(None, "codex: compacted after the last token_count (known at the next turn)")
        else:
            tokens = Figure(count.last_total, "codex token_count last_token_usage.total_tokens")
        if count is not None and count.window:
            window = Figure(count.window, "codex token_count model_context_window")
        elif self.started_window:
            window = Figure(self.started_window, "codex task_started model_context_window")
        else:
            window = Figure(None, "codex: no model_context_window recorded")
        calls = tuple(self.usage_records.values()) if self.usage_records else tuple(self.count_calls)
        return AgentReading(
            agent=AGENT, path=self.path, session_id=self.session_id, cwd=self.cwd, model=self.model,
            agent_version=self.version, context=(self.base, *self.context) if self.base else tuple(self.context),
            context_tokens=tokens, window=window,
            compaction_line=(Figure(None, "codex: not read (usage only)") if self.usage_only
                             else compaction_line(self._env, self.path)),
            compactions=tuple(self.compactions),
            leaf_id=self.leaf_id,
            calls=calls, problems=tuple(self.problems), last_timestamp=self.last_timestamp, records=self.records,
        )


_USAGE_LINE = re.compile(rb'"(?:session_meta|turn_context|token_usage_record|token_count|compacted)"|\\u00')
"""The records a call, its model or a compaction come from; a line where an ASCII character is escaped (``\\u00``
and two hex digits: a record's name could be written so) is parsed too. One search in C instead of one per type:
the filter runs on every line of every rollout a report reads."""


_USAGE_MARKERS = (b'"token_usage_record"', b'"session_meta"', b'"turn_context"', b'"compacted"',
                  b"\\u00")
"""With :data:`_COUNT_MARKERS`, the same lines as :data:`_USAGE_LINE`, as byte strings searched over a whole file
(tested equal)."""


_COUNT_MARKERS = (b'"token_count"',)
"""Parsed only when needed once a ``token_usage_record`` gives the calls (:meth:`CodexReader._read_usage`)."""


def _gives_record(obj: Mapping[str, Any]) -> bool:
    """Whether the full reader takes a call from this record (:meth:`CodexReader._usage_record`)."""
    payload = obj.get("payload")
    return obj.get("type") == "token_usage_record" and isinstance(payload, Mapping) and isinstance(
        payload.get("usage"), Mapping)


def _settles(obj: Mapping[str, Any]) -> bool:
    """Whether accepting this record depends on, or replaces, the last ``token_count`` read."""
    payload = obj.get("payload")
    return obj.get("type") == "compacted" or (obj.get("type") == "event_msg" and isinstance(payload, Mapping)
                                              and payload.get("type") == "token_count")


def _usage_line(raw: bytes) -> bool:
    return _USAGE_LINE.search(raw) is not None


def _call(line: int, key: str, timestamp: str | None, model: str | None, usage: Mapping[str, Any]) -> AgentCall:
    # Codex's input_tokens include the cached ones (the Responses API's convention). _num's rule written out:
    # this runs for every call a report reads (docs/usage.md, Speed).
    get = usage.get
    cached, sent, out, write = (get("cached_input_tokens"), get("input_tokens"), get("output_tokens"),
                                get("cache_write_input_tokens"))
    cached = cached if type(cached) is int and cached >= 0 else 0
    return AgentCall(line, key, timestamp, model, max(0, (sent if type(sent) is int and sent >= 0 else 0) - cached),
                     out if type(out) is int and out >= 0 else 0, cached,
                     write if type(write) is int and write >= 0 else 0)
