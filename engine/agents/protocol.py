"""What every agent folder offers the rest of the engine, and the values it returns (docs/agents.md).

Every agent is a name, the session formats it writes, where its files live and the controller that compacts
its sessions (:class:`Agent`). Claude Code and Codex add a test that a file is one of their sessions and an
incremental reader whose reading carries the context as that agent computes it: the items it would send next,
the tokens they amount to, the window, the compaction line and the compactions it made, each figure labelled
with where it came from (:class:`AgentAdapter`). pi and OpenClaw sessions are entry logs that
:mod:`engine.stores` parses; their folders give the window and the compaction rule their own config files
decide (:class:`EntryAgent`).

Every agent answers the same questions about a session of its (:class:`Agent`): is this file one of mine, who is
writing it now, how its entries are read, which summary layout it reads back, and whether a gateway of its
compacts it. Generic modules ask these instead of testing a format name (docs/agents.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from engine.agents.jsonl_cursor import LineProblem
from engine.stores.source import SessionSource

if TYPE_CHECKING:
    from engine.agents.session_reader import SessionReader

__all__ = [
    "Agent",
    "AgentAdapter",
    "AgentCall",
    "AgentCompaction",
    "AgentReader",
    "AgentReading",
    "CompactionRule",
    "ContextItem",
    "EntryAgent",
    "Figure",
    "WindowHints",
]


class Figure(NamedTuple):
    """A number with its source (``None`` when the agent's files do not say and no rule gives it)."""

    tokens: int | None
    source: str


class ContextItem(NamedTuple):
    """One record on the context the agent would send next (metadata only: text is re-read on demand)."""

    line_no: int
    id: str | None
    role: str
    """``user``, ``assistant``, ``tool`` (calls and results), ``summary`` (a compaction's summary) or
    ``harness`` (text the agent adds itself: reminders, caveats, attachments, developer and environment
    context — never the user's)."""
    chars: int
    """Characters of its text (what a rough token estimate is taken from)."""
    offset: int = 0
    """Byte offset of its line (the text is re-read from there)."""
    length: int = 0
    """Length of its line in bytes."""
    part: int = -1
    """Its index in the line's list of items (Codex's ``replacement_history``); -1: the line itself."""
    timestamp: str | None = None
    model: str | None = None
    """The model that wrote an assistant item, where the record says."""
    tool_name: str | None = None
    """For a tool result: the tool that was called, where the agent's records name it (capture reads the user's
    answer in an asking tool's result: docs/capture.md, Harness text)."""
    calls: tuple[str, ...] = ()
    """The tools the item calls (a reply's tool calls; a Codex call item), for the checkpoint's tools and files."""

    @property
    def place(self) -> str:
        """Where the item is, as the id of an item without one: ``L12`` for line 12, ``L12.3`` for the fourth item
        of line 12's ``replacement_history``."""
        return f"L{self.line_no}" if self.part < 0 else f"L{self.line_no}.{self.part}"


class AgentCall(NamedTuple):
    """One request the agent made to a model and the tokens it reported (for usage reports)."""

    line: int
    key: str
    """The request's identity across files (message id + request id, or the response id)."""
    timestamp: str | None
    model: str | None
    input: int
    """Non-cached input tokens."""
    output: int
    cache_read: int
    cache_write: int
    cost: float | None = None
    """USD the agent recorded for the request (older Claude Code's ``costUSD``); ``None`` when it recorded none."""


class AgentCompaction(NamedTuple):
    """One compaction the agent made itself."""

    line_no: int
    id: str | None
    trigger: str | None
    """``manual`` or ``auto`` where the agent records it."""
    tokens_before: int | None
    tokens_after: int | None
    timestamp: str | None
    source: str
    """The record it was read from (e.g. ``claude-code compact_boundary``)."""


@dataclass(frozen=True, slots=True)
class AgentReading:
    """A session as its agent sees it after the last read."""

    agent: str
    path: Path
    session_id: str | None
    cwd: str | None
    model: str | None
    agent_version: str | None
    context: tuple[ContextItem, ...]
    context_tokens: Figure
    window: Figure
    compaction_line: Figure
    compactions: tuple[AgentCompaction, ...]
    leaf_id: str | None
    calls: tuple[AgentCall, ...]
    problems: tuple[LineProblem, ...]
    last_timestamp: str | None
    records: int
    """Records read (lines that parsed), whatever their kind."""
    sidechain: bool = False
    """A sub-agent's own file (Claude Code's ``subagents/`` transcripts)."""
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def is_session(self) -> bool:
        """Whether the file held anything this agent's reader recognised."""
        return self.records > 0 and (self.session_id is not None or bool(self.context) or bool(self.calls))

    @property
    def utilization(self) -> float | None:
        tokens, window = self.context_tokens.tokens, self.window.tokens
        return tokens / window if tokens is not None and window else None


class AgentReader(Protocol):
    """An incremental reader of one session file; read-only (the file is byte-identical afterwards)."""

    path: Path

    def read_new(self) -> AgentReading:
        """Read what was appended since the last call and return the whole session's reading."""
        ...


class Agent(Protocol):
    """What every agent folder says: its name, its session formats, where its sessions are, who compacts them,
    and the questions generic modules ask about one of its sessions."""

    name: str
    """Short name shown in reports (``pi``, ``openclaw``, ``claude-code``, ``codex``)."""
    title: str
    """The agent's name as prose says it (``pi``, ``OpenClaw``, ``Claude Code``, ``Codex``)."""
    format: str
    """The :class:`engine.stores.source.SessionSource` format of its session files (its JSONL transcripts)."""
    formats: tuple[str, ...]
    """The :class:`engine.stores.source.SessionSource` formats of its sessions."""
    controller: str
    """The controller that compacts a live, writable session of its (docs/compaction.md, Controllers)."""
    summary_format: str
    """The layout of the summary its sessions read back after a compaction (``pi`` or ``openclaw``:
    docs/compaction.md, summarize and full)."""

    def default_roots(self, env: Mapping[str, str]) -> tuple[Path, ...]:
        """Where the agent keeps sessions on this machine (existing or not); ``env["HOME"]`` is set."""
        ...

    def claims(self, first: Mapping[str, Any] | None, path: Path) -> bool:
        """Whether a file whose first record is ``first`` is one of this agent's sessions.

        ``first`` is ``None`` when the first record was not read or could not be parsed: the answer then comes
        from where the file lies alone. Reads nothing.
        """
        ...

    def writer(self, path: Path, session_id: str | None, env: Mapping[str, str]) -> str | None:
        """Who is writing the session right now (``"Codex pid 123"``), ``None`` when nobody is or it cannot tell.

        Never takes a lock or writes anything.
        """
        ...

    def entry_reader(self, source: SessionSource) -> SessionReader:
        """The entry log of one of its sessions (:func:`engine.agents.session_reader.open_reader`)."""
        ...

    def gateway_addresses(self, source: SessionSource) -> bool:
        """Whether a gateway of this agent can compact ``source`` (it names the session by its store's key)."""
        ...


class AgentAdapter(Agent, Protocol):
    """An agent read through its own reader (Claude Code, Codex): which files are its, and how to read them."""

    def reader(self, path: Path, env: Mapping[str, str] | None = None) -> AgentReader:
        """A new incremental reader of ``path`` (``env`` locates the agent's config files)."""
        ...


class WindowHints(NamedTuple):
    """What an agent's own files say about a model's context window (docs/context-accounting.md, Window)."""

    agent_window: tuple[int, str] | None = None
    """The window the agent's model settings give, and the file it came from (pi's ``models.json``)."""
    configured: int | None = None
    """The window the agent's config file gives the model (OpenClaw's ``openclaw.json``)."""


class CompactionRule(Protocol):
    """When an agent compacts and what it keeps, as its own settings decide, each with the file it came from."""

    @property
    def enabled(self) -> bool: ...
    @property
    def reserve_tokens(self) -> int: ...
    @property
    def keep_recent_tokens(self) -> int: ...
    @property
    def enabled_source(self) -> str: ...
    @property
    def reserve_source(self) -> str: ...
    @property
    def keep_recent_source(self) -> str: ...


class EntryAgent(Agent, Protocol):
    """An agent whose sessions :mod:`engine.stores` reads as entries (pi, OpenClaw): its window and its rule."""

    reserve_floor: int
    """The fewest tokens the agent keeps free below its window whatever the settings (OpenClaw's
    ``reserveTokensFloor``; 0 when it has none)."""

    def window_hints(self, source: SessionSource, provider: str | None, model: str | None,
                     env: Mapping[str, str] | None) -> WindowHints:
        """What the agent's own files say about ``provider``/``model``'s window for ``source``."""
        ...

    def compaction_rule(self, cwd: str | None, env: Mapping[str, str] | None) -> CompactionRule | None:
        """The agent's compaction settings for a session started in ``cwd``; ``None`` when it keeps none of its
        own (ctxscope's config and the reserve floor then decide)."""
        ...

    def archive_source(self, path: Path) -> SessionSource | None:
        """A source for an archived transcript of its at ``path`` that discovery set aside (first record unread),
        ``None`` when the file is not where this agent keeps them."""
        ...
