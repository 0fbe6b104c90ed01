"""A session at a glance without indexing it: the fast path behind ``ctxscope status``.

See docs/context-accounting.md, Reading from the tail.

:func:`glance_session` brings the transcript's persistent index up to date
(:func:`engine.index.transcript_index.index_transcript`: only bytes appended since the last run are scanned,
``docs/index.md``), which gives the compaction count, and takes the gauge from a scan back from the end
(:func:`engine.session.quick_gauge.quick_context_tokens`), stored in the index with the offset it is valid for —
all through one descriptor. It does not validate every line: ``malformed_lines`` is ``None`` ("not checked") —
``status --full`` and ``inspect`` index the whole file and report them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from typing import Any

from engine.accounting.gauge import GaugeReading
from engine.accounting.windows import ContextWindow
from engine.config.loader import Config, resolve_state_dir
from engine.index.cache import IndexCache
from engine.index.transcript_index import index_transcript
from engine.session.agent_limits import AgentLimits, agent_limits
from engine.session.compaction_count import compaction_count, own_compactions
from engine.session.quick_gauge import QuickGauge, quick_context_tokens
from engine.stores.number_bounds import token_count
from engine.stores.source import SessionSource
from engine.stores.timestamps import parse_iso

__all__ = ["COUNT_LIMIT_BYTES", "Glance", "glance_session"]

COUNT_LIMIT_BYTES = 256 << 20
"""Without an index cache, files larger than this are not scanned for compactions when the store has no count
(``None`` instead): the scan would be paid again on every run."""

_GAUGE_FIELDS = frozenset(f.name for f in fields(QuickGauge))


@dataclass(frozen=True, slots=True)
class Glance:
    """What ``status`` shows for one session, from the tail of its transcript."""

    source: SessionSource
    quick: QuickGauge
    window: ContextWindow
    gauge: GaugeReading
    model: str | None
    compactions_in_file: int | None
    store_compaction_count: int | None
    last_activity: datetime | None
    version: int
    headerless: bool
    limits: AgentLimits | None = None

    @property
    def is_session(self) -> bool:
        """False for a file with no header and no entry (empty, or no JSON object at all): pi calls it invalid."""
        return not self.headerless or self.quick.leaf_id is not None

    own_compactions: int = 0
    """Compactions ctxscope appended itself (audited): in the transcript, never in OpenClaw's counter."""

    @property
    def compactions(self) -> int | None:
        """The session's compactions (:func:`engine.session.compaction_count.compaction_count`)."""
        return compaction_count(self.compactions_in_file, self.store_compaction_count, self.own_compactions)

    def to_status(self) -> dict[str, Any]:
        """The ``ctxscope status --json`` row; same keys as
        :meth:`~engine.session.snapshot.SessionSnapshot.to_status`."""
        util = self.gauge.utilization
        return {
            "key": self.source.key,
            "path": str(self.source.path),
            "format": self.source.format,
            "kind": self.source.kind,
            "session_id": self.source.session_id,
            "model": self.model,
            "context_window": self.window.tokens,
            "context_window_source": self.window.source,
            "context_tokens": self.quick.tokens,
            "context_tokens_source": self.quick.source,
            "token_method": self.quick.method,
            "agent_estimate": self.quick.agent_estimate,
            "agent_estimate_known": self.quick.agent_estimate_known,
            "utilization": None if util is None else round(util, 4),
            "compaction_threshold_tokens": self.gauge.compaction_line if self.gauge.compaction_enabled else None,
            "compaction_threshold_source": self.limits.line_source if self.limits else None,
            "gauge_level": self.gauge.level,
            "gauge_line": self.gauge.line(),
            "compactions": self.compactions,
            "compactions_in_file": self.compactions_in_file,
            "store_compaction_count": self.store_compaction_count,
            "leaf_id": self.quick.leaf_id,
            "last_activity": self.last_activity.isoformat().replace("+00:00", "Z") if self.last_activity else None,
            "malformed_lines": None,
            "version": self.version,
            "headerless": self.headerless,
            "pi_loadable": self.quick.pi_loadable,
            "scan": "tail",
        }


def _gauge_wire(fd: int) -> Mapping[str, Any]:
    return asdict(quick_context_tokens(fd))


def _gauge_from(wire: Mapping[str, Any] | None, fd: int) -> QuickGauge:
    if wire is not None and set(wire) == _GAUGE_FIELDS:
        return QuickGauge(**wire)
    return quick_context_tokens(fd)


def glance_session(source: SessionSource, config: Config | None = None, index: IndexCache | None = None) -> Glance:
    """Read just enough of a JSONL session for its status row.

    Args:
        index: the persistent index cache (``None``: the compaction count is scanned on every call, up to
            :data:`COUNT_LIMIT_BYTES`).

    Raises:
        OSError: the transcript cannot be read.
        ValueError: ``source`` is a SQLite session (use :class:`engine.session.snapshot.SessionFollower`).
    """
    if source.in_database:
        raise ValueError("SQLite sessions have no tail to scan; read them with SessionFollower")
    config = config or Config()
    # One descriptor for the header, the tail and the count: on a thousand sessions, opens add up.
    fd = os.open(source.path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        stat = os.fstat(fd)
        compactions_in_file: int | None
        if (index is None or not index.enabled) and stat.st_size > COUNT_LIMIT_BYTES:
            quick = quick_context_tokens(fd)
            compactions_in_file = None
        else:
            indexed = index_transcript(source.path, index, fd=fd, gauge=_gauge_wire)
            quick = _gauge_from(indexed.gauge, fd)
            compactions_in_file = len(indexed.compactions)
    finally:
        os.close(fd)
    store = source.store_entry or {}
    model, provider = quick.model, quick.provider
    if model is None and isinstance(store.get("model"), str):
        model = store["model"]
        provider = store.get("modelProvider") if isinstance(store.get("modelProvider"), str) else None
    limits = agent_limits(source, config, model=model, provider=provider, cwd=quick.cwd)
    window = limits.window
    gauge = limits.gauge(quick.tokens, config)
    count = store.get("compactionCount")
    store_count = token_count(count) if type(count) is int else None  # bounded: docs/formats.md, Number bounds
    last = parse_iso(quick.leaf_timestamp) or datetime.fromtimestamp(stat.st_mtime, UTC)
    return Glance(
        source=source,
        quick=quick,
        window=window,
        gauge=gauge,
        model=model,
        compactions_in_file=compactions_in_file,
        store_compaction_count=store_count,
        own_compactions=own_compactions(resolve_state_dir(source.state_dir, config), source.key)
        if store_count is not None else 0,
        last_activity=last,
        version=quick.version,
        headerless=quick.headerless,
        limits=limits,
    )
