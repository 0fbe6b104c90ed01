"""The incremental reader of one Claude Code transcript (docs/claude-code.md).

Only appended lines are parsed; the reading is rebuilt from the kept records (a few dozen bytes each), never
from the file. The file is opened read-only and never written.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

from engine.agents.claude_code.context import context_items, context_path, context_tokens
from engine.agents.claude_code.limits import compaction_line, window_of
from engine.agents.claude_code.records import Record, record_of
from engine.agents.jsonl_cursor import JsonlCursor, Line, LineProblem
from engine.agents.marked_lines import complete_end, marked_lines, parse_line, read_from
from engine.agents.protocol import AgentCall, AgentCompaction, AgentReading

__all__ = ["ClaudeCodeReader", "UsageReading", "read_usage"]

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
            calls.setdefault(r.call_key, AgentCall(r.line_no, f"claude:{r.call_key}", r.timestamp, r.model,
                                                   r.usage.input, r.usage.output, r.usage.cache_read,
                                                   r.usage.cache_write, r.cost_usd))
    return calls


def compactions_of(records: Iterable[Record]) -> tuple[AgentCompaction, ...]:
    """The main thread's compaction boundaries."""
    return tuple(
        AgentCompaction(r.line_no, r.uuid, r.boundary.trigger, r.boundary.pre_tokens, r.boundary.post_tokens,
                        r.timestamp, "claude-code compact_boundary")
        for r in records if r.boundary is not None and not r.sidechain
    )


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


def _objects(path: Path, ids: list[str | None], end: list[int], whole: list[bytes]) -> Iterator[Line]:
    """The parsed lines a usage report needs, numbered as :class:`JsonlCursor` numbers them: every line until
    ``ids`` (filled by the caller) holds a session id and a cwd, then only those holding one of :data:`_MARKERS`.
    ``end`` is ``[offset, lines]``: where to start, then (once exhausted) where the last complete line ends;
    ``whole`` receives the file's bytes when they were read from its start in one go."""
    start, first_line = end
    data = read_from(path, start)
    if data is not None and start == 0:
        whole.append(data)
    if data is None:
        cursor = JsonlCursor(path, lambda raw: ids[0] is None or ids[1] is None or _may_count(raw))
        cursor.offset, cursor.line_no = start, first_line
        yield from (line for line in cursor.read_lazily() if isinstance(line, Line))
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
            yield line
    if pos < stop:
        yield from (line for line in marked_lines(data, _MARKERS, offset=start, line_no=number, pos=pos)
                    if isinstance(line, Line))
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
    # The first session id and cwd in file order, as the reader takes them.
    ids: list[str | None] = [since.session_id, since.cwd] if since is not None else [None, None]
    end = [since.offset, since.lines] if since is not None else [0, 0]
    records: list[Record] = []
    whole: list[bytes] = []
    for line in _objects(path, ids, end, whole):
        record = record_of(line.obj, line_no=line.line_no, offset=line.offset, length=line.length, usage_only=True)
        ids[0] = ids[0] or record.session_id
        ids[1] = ids[1] or record.cwd
        records.append(record)
    session_id, cwd = ids
    calls = {c.key: c for c in since.calls} if since is not None else {}
    for call in calls_of(records).values():
        calls.setdefault(call.key, call)  # a reply repeated later in the file is still counted once
    if session_id is None and not calls:
        return None
    compactions = (*since.compactions, *compactions_of(records)) if since is not None else compactions_of(records)
    return UsageReading(session_id, cwd, tuple(sorted(calls.values())), compactions, end[0], end[1],
                        whole[0] if whole else None)
