"""The incremental reader of one Claude Code transcript (docs/claude-code.md).

Only appended lines are parsed; the reading is rebuilt from the kept records (a few dozen bytes each), never
from the file. The file is opened read-only and never written.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from engine.agents.claude_code.context import context_items, context_path, context_tokens
from engine.agents.claude_code.limits import compaction_line, window_of
from engine.agents.claude_code.records import (
    Boundary,
    Record,
    TokenUsage,
    boundary_of,
    call_key_of,
    kind_of,
    record_of,
    usage_of,
)
from engine.agents.jsonl_cursor import JsonlCursor, Line, LineProblem
from engine.agents.marked_lines import complete_end, marked_objects, parse_line, read_from
from engine.agents.protocol import AgentCall, AgentCompaction, AgentReading
from engine.stores.number_bounds import cost_usd

__all__ = ["ClaudeCodeReader", "UsageReading", "note_usage", "read_usage"]

AGENT = "claude-code"


class ClaudeCodeReader:
    """Follows one ``<session>.jsonl`` (or a sub-agent's file) as Claude Code would load it."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.cursor = JsonlCursor(self.path)
        self.records: list[Record] = []
        self.by_uuid: dict[str, Record] = {}
        self.problems: list[LineProblem] = []

    def read_new(self) -> AgentReading:
        """Parse what was appended since the last call; the whole session's reading.

        Raises:
            OSError: the file cannot be read.
        """
        lines, reset = self.cursor.read_new()
        if reset:
            self.records.clear()
            self.by_uuid.clear()
            self.problems.clear()
        for line in lines:
            if isinstance(line, Line):
                record = record_of(line.obj, line_no=line.line_no, offset=line.offset, length=line.length)
                self.records.append(record)
                if record.uuid is not None:
                    self.by_uuid[record.uuid] = record
            else:
                self.problems.append(line)
        return self.reading()

    def leaf(self) -> Record | None:
        """The last record with a uuid in file order, the main thread's first (a sub-agent's file has only
        sidechain records)."""
        main = next((r for r in reversed(self.records) if r.uuid is not None and not r.sidechain), None)
        return main or next((r for r in reversed(self.records) if r.uuid is not None), None)

    def reading(self) -> AgentReading:
        leaf = self.leaf()
        path, boundary = context_path(leaf.uuid if leaf else None, self.by_uuid)
        model = next((r.model for r in reversed(self.records) if r.model and r.model != "<synthetic>"), None)
        window = window_of(model)
        first = next((r for r in self.records if r.session_id), None)
        calls = calls_of(self.records)
        compactions = compactions_of(self.records)
        with_uuid = [r for r in self.records if r.uuid is not None]
        last_ts = next((r.timestamp for r in reversed(self.records) if r.timestamp), None)
        return AgentReading(
            agent=AGENT,
            path=self.path,
            session_id=first.session_id if first else None,
            cwd=next((r.cwd for r in self.records if r.cwd), None),
            model=model,
            agent_version=next((r.version for r in reversed(self.records) if r.version), None),
            context=context_items(path),
            context_tokens=context_tokens(path, boundary),
            window=window,
            compaction_line=compaction_line(window),
            compactions=compactions,
            leaf_id=leaf.uuid if leaf else None,
            calls=tuple(sorted(calls.values())),
            problems=tuple(self.problems),
            last_timestamp=last_ts,
            records=len(self.records),
            sidechain=bool(with_uuid) and all(r.sidechain for r in with_uuid),
        )


def calls_of(records: Iterable[Record]) -> dict[str, AgentCall]:
    """Every billed request of ``records`` by its key, in file order."""
    calls: dict[str, AgentCall] = {}
    for r in records:
        if r.usage is not None and r.call_key is not None and r.usage.total:
            # One reply can be written as several records repeating its usage: count it once.
            calls.setdefault(r.call_key, _call(r.line_no, r.call_key, r.timestamp, r.model, r.usage, r.cost_usd))
    return calls


def compactions_of(records: Iterable[Record]) -> tuple[AgentCompaction, ...]:
    """The main thread's compaction boundaries."""
    return tuple(_compaction(r.line_no, r.uuid, r.boundary, r.timestamp)
                 for r in records if r.boundary is not None and not r.sidechain)


def _call(line_no: int, key: str, timestamp: str | None, model: str | None, usage: TokenUsage,
          cost: float | None) -> AgentCall:
    return AgentCall(line_no, f"claude:{key}", timestamp, model, usage.input, usage.output, usage.cache_read,
                     usage.cache_write, cost)


def _compaction(line_no: int, uuid: str | None, boundary: Boundary, timestamp: str | None) -> AgentCompaction:
    return AgentCompaction(line_no, uuid, boundary.trigger, boundary.pre_tokens, boundary.post_tokens, timestamp,
                           "claude-code compact_boundary")


def note_usage(obj: dict[str, Any], line_no: int, calls: dict[str, AgentCall],
               compactions: list[AgentCompaction]) -> None:
    """Add what :func:`calls_of` and :func:`compactions_of` take from the :func:`record_of` of one parsed line,
    without building the record (a usage report's pass: a fifth of its time went to records no one kept,
    docs/usage.md, Speed). ``calls`` is keyed by :attr:`AgentCall.key`; a key already there is kept."""
    message = obj.get("message")
    kind = kind_of(obj)
    if kind == "assistant":
        if not isinstance(message, dict):
            return
        usage = usage_of(message.get("usage"))
        if usage is None or not usage.total:
            return
        key = call_key_of(obj, message)
        if key is not None and f"claude:{key}" not in calls:
            ts, model = obj.get("timestamp"), message.get("model")
            call = _call(line_no, key, ts if type(ts) is str else None, model if type(model) is str else None,
                         usage, cost_usd(obj.get("costUSD")))
            calls[call.key] = call
    elif kind == "system" and obj.get("subtype") == "compact_boundary" and obj.get("isSidechain") is not True:
        ts, uuid = obj.get("timestamp"), obj.get("uuid")
        compactions.append(_compaction(line_no, uuid if type(uuid) is str else None, boundary_of(obj),
                                       ts if type(ts) is str else None))


class UsageReading(NamedTuple):
    """What a usage report needs of one transcript: its calls and compactions, whose session, where — and where
    the reading stopped, so that what is appended later can be read alone (:func:`read_usage`'s ``since``)."""

    session_id: str | None
    cwd: str | None
    calls: tuple[AgentCall, ...]
    compactions: tuple[AgentCompaction, ...]
    offset: int = 0
    """The end of the last complete line read."""
    lines: int = 0
    """Lines up to :attr:`offset`."""
    whole: bytes | None = None
    """The file's bytes when they were read from its start in one go (else ``None``): a caller that keeps a digest
    of the bytes up to :attr:`offset` need not read them again."""


_MARKERS = (b'"usage"', b"compact_boundary", b"\\u00")
"""What a line that holds a call or a compaction must contain: a reply counts through its ``message.usage``, a
compaction is a ``compact_boundary``; a line where an ASCII character is escaped (``\\u0075sage``: JSON writes it
``\\u00`` and two hex digits) is parsed too. Every other line only matters for the session id and cwd, which the
first lines give (docs/usage.md, Speed)."""


def _may_count(raw: bytes) -> bool:
    return b'"usage"' in raw or b"compact_boundary" in raw or b"\\u00" in raw


def _objects(path: Path, ids: list[str | None], end: list[int],
             whole: list[bytes]) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` of the parsed lines a usage report needs, numbered as :class:`JsonlCursor` numbers
    them: every line until ``ids`` (filled by the caller) holds a session id and a cwd, then only those holding one
    of :data:`_MARKERS`. ``end`` is ``[offset, lines]``: where to start, then (once exhausted) where the last
    complete line ends; ``whole`` receives the file's bytes when they were read from its start in one go."""
    start, first_line = end
    data = read_from(path, start)
    if data is not None and start == 0:
        whole.append(data)
    if data is None:
        cursor = JsonlCursor(path, lambda raw: ids[0] is None or ids[1] is None or _may_count(raw))
        cursor.offset, cursor.line_no = start, first_line
        yield from ((line.line_no, line.obj) for line in cursor.read_lazily() if isinstance(line, Line))
        end[:] = [cursor.offset, cursor.line_no]
        return
    stop, lines = complete_end(data)
    pos, number = 0, first_line
    while pos < stop and (ids[0] is None or ids[1] is None):  # the first lines, one by one, until both are known
        newline = data.find(b"\n", pos)
        number += 1
        line = parse_line(data[pos:newline], start + pos, number)
        pos = newline + 1
        if isinstance(line, Line):
            yield number, line.obj
    if pos < stop:
        yield from marked_objects(data, _MARKERS, offset=start, line_no=number, pos=pos)
    end[:] = [start + stop, first_line + lines]


def read_usage(path: Path, since: UsageReading | None = None) -> UsageReading | None:
    """The usage of one transcript from the lines that can hold it — the same calls and compactions as
    :meth:`ClaudeCodeReader.read_new` — or ``None`` when only a full read can tell whether the file is a session
    at all (no call and no session id).

    Args:
        since: the reading of the same file up to its :attr:`~UsageReading.offset` (the caller checked that
            those bytes did not change): only what follows is read, and the result is the whole file's.

    Raises:
        OSError: the file cannot be read.
    """
    # The first session id and cwd in file order, as the reader takes them (record_of's sessionId and cwd).
    ids: list[str | None] = [since.session_id, since.cwd] if since is not None else [None, None]
    end = [since.offset, since.lines] if since is not None else [0, 0]
    # A reply repeated later in the file, or after ``since``, is still counted once: the first is kept.
    calls = {c.key: c for c in since.calls} if since is not None else {}
    compactions = list(since.compactions) if since is not None else []
    whole: list[bytes] = []
    for line_no, obj in _objects(path, ids, end, whole):
        if not (ids[0] and ids[1]):
            sid, cwd = obj.get("sessionId"), obj.get("cwd")
            ids[0] = ids[0] or (sid if type(sid) is str else None)
            ids[1] = ids[1] or (cwd if type(cwd) is str else None)
        note_usage(obj, line_no, calls, compactions)
    session_id, cwd = ids
    if session_id is None and not calls:
        return None
    return UsageReading(session_id, cwd, tuple(sorted(calls.values())), tuple(compactions), end[0], end[1],
                        whole[0] if whole else None)
