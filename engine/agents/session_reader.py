"""One seam for reading a session, whatever store it lives in.

Every reader keeps entries in file (or ``seq``) order and parses only what was appended since the last call; callers
ask :func:`open_reader` for one instead of looking at :attr:`SessionSource.format`, and it asks the session's agent
(docs/formats.md, docs/agents.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from engine.agents.registry import agent_of
from engine.stores.entries import Entry
from engine.stores.source import SessionSource
from engine.stores.transcript import BadLine, EntryParser, ReadBatch, TranscriptReader

__all__ = ["SessionReader", "open_reader"]


class SessionReader(Protocol):
    """What every session reader offers: an incremental read, the entries so far, and lazy message bodies."""

    path: Path
    mtime: float | None
    """Modification time seen at the last read (the file's, or the database's)."""
    parser: EntryParser
    entries: list[Entry]
    by_id: dict[str, int]
    bad_lines: list[BadLine]

    @property
    def header(self) -> dict[str, Any] | None: ...

    @property
    def leaf(self) -> Entry | None: ...

    def read_new(self) -> ReadBatch:
        """Parse what was appended since the last call (everything on the first call)."""
        ...

    def renamed(self, to: Path) -> bool:
        """Follow the session to ``to`` when it is the same file renamed; False (nothing changed) otherwise."""
        ...

    def read_object(self, entry: Entry) -> dict[str, Any]:
        """The full JSON object of ``entry`` (text is not kept in memory; it is re-read on demand)."""
        ...


def open_reader(source: SessionSource) -> SessionReader:
    """A reader for ``source``, as the agent of its format reads it (``Agent.entry_reader``: docs/agents.md); the
    JSONL reader for a format no agent claims."""
    agent = agent_of(source.format)
    return agent.entry_reader(source) if agent is not None else TranscriptReader(source.path)
