"""The incremental reader of one Claude Code transcript (docs/claude-code.md).

Only appended lines are parsed; the reading is rebuilt from the kept records (a few dozen bytes each), never
from the file. The file is opened read-only and never written.
"""

from __future__ import annotations

from pathlib import Path

from engine.agents.claude_code.context import context_items, context_path, context_tokens
from engine.agents.claude_code.limits import compaction_line, window_of
from engine.agents.claude_code.records import Record, record_of
from engine.agents.jsonl_cursor import JsonlCursor, Line, LineProblem
from engine.agents.protocol import AgentCall, AgentCompaction, AgentReading

__all__ = ["ClaudeCodeReader"]

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
        calls: dict[str, AgentCall] = {}
        for r in self.records:
            if r.usage is not None and r.call_key is not None and r.usage.total:
                # One reply can be written as several records repeating its usage: count it once.
                calls.setdefault(r.call_key, AgentCall(r.line_no, f"claude:{r.call_key}", r.timestamp, r.model,
                                                       r.usage.input, r.usage.output, r.usage.cache_read,
                                                       r.usage.cache_write))
        compactions = tuple(
            AgentCompaction(r.line_no, r.uuid, r.boundary.trigger, r.boundary.pre_tokens, r.boundary.post_tokens,
                            r.timestamp, "claude-code compact_boundary")
            for r in self.records if r.boundary is not None and not r.sidechain
        )
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
