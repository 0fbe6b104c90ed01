"""One session followed live: incremental reads in, immutable :class:`SessionSnapshot` values out.

:class:`SessionFollower` keeps the reader's cursor, the context path (extended in place while the agent
appends to its leaf, rebuilt only when it branches) and a per-entry token cache, so a refresh after an append
costs the new bytes plus the new messages, not the whole history. Given an index cache, it starts from the
entries a previous run stored (:mod:`engine.index.entry_cache`) and stores them again as the file grows, so a
restart costs the bytes appended since (``docs/index.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from engine.accounting.context import ContextMessage, ContextView, build_context, context_from_path
from engine.accounting.gauge import GaugeReading
from engine.accounting.measure import ContextTokens, ObjectSource, measure_context, message_tokens
from engine.accounting.windows import ContextWindow
from engine.agents.agent_entries import AgentEntryReader
from engine.agents.protocol import AgentCall, AgentReading
from engine.agents.session_reader import SessionReader, open_reader
from engine.config.loader import Config, resolve_state_dir
from engine.index.cache import IndexCache
from engine.index.entry_cache import restore_reader, save_reader
from engine.session.agent_limits import AgentLimits, agent_limits
from engine.session.compaction_count import compaction_count, own_compactions
from engine.stores.entries import Entry
from engine.stores.number_bounds import token_count
from engine.stores.source import AGENT_FORMATS, SessionSource
from engine.stores.timestamps import parse_iso
from engine.stores.transcript import BadLine, ReadBatch, TranscriptReader

__all__ = ["SAVE_MIN_BYTES", "SessionFollower", "SessionSnapshot", "snapshot_session"]

SAVE_MIN_BYTES = 64 << 10
"""A follower stores its entries once it has read this much since the last store, and at least a tenth of the
file: a restart then re-reads at most that, and a growing session is not stored on every append."""


@dataclass(frozen=True, slots=True)
class SessionSnapshot:
    """Everything ctxscope knows about a session at one moment."""

    source: SessionSource
    view: ContextView = field(repr=False)
    """Excluded from ``repr``: Textual describes workers by their arguments, and a path of 100k entries
    would cost milliseconds on every screen update."""
    tokens: ContextTokens
    window: ContextWindow
    gauge: GaugeReading
    model: str | None
    provider: str | None
    entries: int
    compactions_in_file: int
    store_compaction_count: int | None
    last_activity: datetime | None
    """Time of the last entry (its ``timestamp``), else the file's modification time."""
    malformed_lines: tuple[BadLine, ...] = field(repr=False)
    version: int
    headerless: bool
    revision: int
    """Increases on every refresh that read something new; lets UIs skip redundant renders."""
    limits: AgentLimits | None = None
    project: str | None = None
    """The directory the agent works in (the transcript header's ``cwd``), else ``None``."""
    """The agent's window, compaction line and keep-recent budget with their origins."""
    pi_loadable: bool = True
    """pi would load the file as is: its first entry is a session header with an id (docs/pi.md)."""
    is_session: bool = True
    """False for a file with no header and no entry (empty, or no JSON object at all): pi calls it invalid."""
    own_compactions: int = 0
    """Compactions ctxscope appended itself (audited): in the transcript, never in OpenClaw's counter."""
    agent_calls: tuple[AgentCall, ...] | None = field(default=None, repr=False)
    """Claude Code, Codex: the requests the agent made, which its spend is priced from (docs/usage.md)."""

    @property
    def key(self) -> str:
        """What followers and views know the session by (:attr:`SessionSource.follow_key`); checkpoints and
        captured state are filed under ``source.identity``."""
        return self.source.follow_key

    @property
    def compactions(self) -> int:
        """The session's compactions (:func:`engine.session.compaction_count.compaction_count`)."""
        return compaction_count(self.compactions_in_file, self.store_compaction_count, self.own_compactions) or 0

    @property
    def utilization(self) -> float | None:
        return self.gauge.utilization

    def to_status(self) -> dict[str, Any]:
        """The ``ctxscope status --json`` row."""
        return {
            "key": self.source.key,
            "path": str(self.source.path),
            "format": self.source.format,
            "kind": self.source.kind,
            "session_id": self.source.session_id,
            "model": self.model,
            "provider": self.provider,
            "context_window": self.window.tokens,
            "context_window_source": self.window.source,
            "context_tokens": self.tokens.tokens,
            "context_tokens_source": self.tokens.source,
            "token_method": self.tokens.method,
            "agent_estimate": self.tokens.agent_estimate,
            "agent_estimate_known": self.tokens.agent_estimate_known,
            "utilization": None if self.utilization is None else round(self.utilization, 4),
            "compaction_threshold_tokens": self.gauge.compaction_line if self.gauge.compaction_enabled else None,
            "compaction_threshold_source": self.limits.line_source if self.limits else None,
            "gauge_level": self.gauge.level,
            "gauge_line": self.gauge.line(),
            "compactions": self.compactions,
            "compactions_in_file": self.compactions_in_file,
            "compactions_on_path": self.view.compactions_on_path,
            "store_compaction_count": self.store_compaction_count,
            "entries": self.entries,
            "leaf_id": self.view.leaf.id if self.view.leaf else None,
            "last_activity": self.last_activity.isoformat().replace("+00:00", "Z") if self.last_activity else None,
            "malformed_lines": [{"line": b.line_no, "reason": b.reason} for b in self.malformed_lines],
            "version": self.version,
            "headerless": self.headerless,
            "pi_loadable": self.pi_loadable,
        }


def _model_on_path(path: tuple[Entry, ...]) -> tuple[str | None, str | None]:
    for entry in reversed(path):
        if entry.type == "model_change" and entry.model:
            return entry.model, entry.provider
        if entry.role == "assistant" and entry.model and entry.provider != "openclaw":
            return entry.model, entry.provider
    return None, None


class SessionFollower:
    """Follows one session; :meth:`refresh` returns a new snapshot when something changed."""

    def __init__(self, source: SessionSource, config: Config | None = None, index: IndexCache | None = None) -> None:
        self.source = source
        self.config = config or Config()
        self.index = (index if index is not None and index.enabled and not source.in_database
                      and source.format not in AGENT_FORMATS else None)
        """Where entries are stored between runs (JSONL transcripts only)."""
        restored = restore_reader(self.index, source.path) if self.index is not None else None
        self.reader: SessionReader = restored if restored is not None else open_reader(source)
        self.restored_bytes = restored.offset if restored is not None else 0
        """Bytes the first refresh did not read because a previous run had stored their entries."""
        self._saved_at = self.restored_bytes
        self.token_cache: dict[tuple[int, int, str], int] = {}
        self._path: list[Entry] = []
        self._compactions = 0
        self._snapshot: SessionSnapshot | None = None
        self._revision = 0

    @property
    def objects(self) -> ObjectSource:
        """Where message text is re-read from."""
        return self.reader

    @property
    def snapshot(self) -> SessionSnapshot | None:
        return self._snapshot

    @property
    def entries(self) -> Sequence[Entry]:
        """Every entry read so far, in file order (the whole tree, not only the context path)."""
        return self.reader.entries

    def message_tokens(self, message: ContextMessage) -> int:
        """Tokens of one context message by the offline tokenizer, cached per entry across refreshes."""
        return message_tokens(message, self.objects, cache=self.token_cache)

    def _extend_path(self, batch: ReadBatch) -> None:
        reader = self.reader
        if batch.reset:
            self._path = []
            self._compactions = 0
        self._compactions += sum(1 for e in batch.entries if e.type == "compaction")
        leaf = reader.leaf
        tail = self._path[-1] if self._path else None
        appended = [e for e in batch.entries if e.id is not None and e.type != "session"]
        linear = bool(appended) and all(
            e.parent_id == (appended[i - 1].id if i else (tail.id if tail else None)) for i, e in enumerate(appended)
        )
        # An OpenClaw ``leaf`` entry (a rewind) moves the leaf off the appended chain: walk the path again.
        moved = leaf is not None and bool(appended) and leaf.id != appended[-1].id
        # So does an entry without an id: pi's context ends on it only while it is the last one (docs/pi.md).
        idless = (tail is not None and tail.id is None) or any(
            e.id is None and e.type != "session" for e in batch.entries)
        if linear and not moved and not idless and (tail is not None or appended[0].parent_id is None):
            self._path.extend(appended)
        elif appended or batch.reset or idless:
            self._path = list(build_context(reader.entries, reader.by_id, leaf).path)

    def refresh(self) -> SessionSnapshot:
        """Read what was appended and return the current snapshot (the same object if nothing changed).

        Raises:
            engine.stores.transcript.TranscriptError: the session can no longer be read.
        """
        first = self._snapshot is None
        batch = self.reader.read_new()
        if not first and not batch.entries and not batch.bad_lines and not batch.reset:
            return self._snapshot  # type: ignore[return-value]
        if first and self.restored_bytes and not batch.reset:
            batch = replace(batch, entries=tuple(self.reader.entries))  # the stored entries are news to this run
        self._store_entries(batch)
        self._extend_path(batch)
        self._revision += 1
        self._snapshot = self._compute()
        return self._snapshot

    def _store_entries(self, batch: ReadBatch) -> None:
        reader = self.reader
        if self.index is None or not isinstance(reader, TranscriptReader):
            return
        if batch.reset:
            self._saved_at = 0
        unsaved = reader.offset - self._saved_at
        if unsaved >= SAVE_MIN_BYTES and unsaved * 10 >= reader.offset:
            try:
                if save_reader(self.index, reader):
                    self._saved_at = reader.offset
            except OSError:
                pass  # the transcript vanished between the read and the store: nothing worth keeping

    def _compute(self) -> SessionSnapshot:
        reader = self.reader
        source = self.source
        config = self.config
        view = context_from_path(tuple(self._path), reader.leaf)
        if isinstance(reader, AgentEntryReader) and reader.reading is not None:
            return self._agent_snapshot(view, reader.reading)
        tokens = measure_context(view, reader, cache=self.token_cache)
        model, provider = _model_on_path(view.path)
        store = source.store_entry or {}
        if not model and isinstance(store.get("model"), str):
            model, provider = store.get("model"), store.get("modelProvider")
        header = reader.header
        cwd = header.get("cwd") if header is not None else None
        limits = agent_limits(source, config, model=model, provider=provider if isinstance(provider, str) else None,
                              cwd=cwd if isinstance(cwd, str) else None)
        window = limits.window
        gauge = limits.gauge(tokens.tokens, config)
        last = reader.entries[-1].timestamp if reader.entries else None
        last_activity = parse_iso(last)
        if source.last_activity_ms is not None:
            # The store's own record: a database's mtime moves with every session in it (docs/openclaw.md).
            last_activity = datetime.fromtimestamp(source.last_activity_ms / 1000, UTC)
        if last_activity is None and reader.mtime is not None:
            last_activity = datetime.fromtimestamp(reader.mtime, UTC)
        count = store.get("compactionCount")
        return SessionSnapshot(
            source=source,
            view=view,
            tokens=tokens,
            window=window,
            gauge=gauge,
            model=model,
            provider=provider if isinstance(provider, str) else None,
            entries=len(reader.entries),
            compactions_in_file=self._compactions,
            store_compaction_count=token_count(count) if type(count) is int else None,
            own_compactions=own_compactions(resolve_state_dir(source.state_dir, self.config), source.key)
            if source.store_entry else 0,
            last_activity=last_activity,
            malformed_lines=tuple(reader.bad_lines),
            version=reader.parser.version,
            headerless=reader.parser.headerless,
            revision=self._revision,
            limits=limits,
            project=cwd if isinstance(cwd, str) and cwd else None,
            pi_loadable=header is not None and isinstance(header.get("id"), str),
            is_session=header is not None or view.leaf is not None,
        )


    def _agent_snapshot(self, view: ContextView, reading: AgentReading) -> SessionSnapshot:
        """Claude Code, Codex: the agent's own figures on the gauge (docs/claude-code.md, docs/codex.md)."""
        from engine.session.agent_glance import agent_gauge

        window, gauge = agent_gauge(reading, self.config)
        figure = reading.context_tokens
        # Before the agent's first figure (or after its compaction) the size is unknown; what a checkpoint and a
        # compaction plan record then is the context at 4 characters a token, as they say (docs/claude-code.md).
        estimate = figure.tokens if figure.tokens is not None else sum(m.entry.pi_tokens for m in view.messages)
        tokens = ContextTokens(figure.tokens, figure.source, figure.tokens, None, 0, 0, "agent", estimate,
                               figure.tokens is not None)
        last_activity = parse_iso(reading.last_timestamp) if reading.last_timestamp else None
        if last_activity is None and self.reader.mtime is not None:
            last_activity = datetime.fromtimestamp(self.reader.mtime, UTC)
        return SessionSnapshot(
            source=self.source, view=view, tokens=tokens, window=window, gauge=gauge, model=reading.model,
            provider=reading.agent, entries=reading.records, compactions_in_file=len(reading.compactions),
            store_compaction_count=None, last_activity=last_activity, malformed_lines=tuple(self.reader.bad_lines),
            version=3, headerless=False, revision=self._revision, limits=None, project=reading.cwd,
            pi_loadable=False, is_session=reading.is_session, agent_calls=reading.calls,
        )


def snapshot_session(source: SessionSource, config: Config | None = None) -> SessionSnapshot:
    """Read a session once and measure it."""
    return SessionFollower(source, config).refresh()

