"""A session at a glance without indexing it: the fast path behind ``ctxscope status`` (SPEC §8, §9).

:func:`glance_session` reads the header, scans back from the end for the gauge
(:func:`engine.session.quick_gauge.quick_context_tokens`) and counts compactions from the store and from a byte
search for compaction lines (no JSON parsing), all through one descriptor. It does not validate
every line: ``malformed_lines`` is ``None`` ("not checked") — ``status --full`` and ``inspect`` index the whole
file and report them. Cost: a few kilobytes per session plus the compaction count, so a thousand sessions
take well under a second.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from engine.accounting.gauge import GaugeReading, read_gauge
from engine.accounting.windows import ContextWindow, resolve_context_window
from engine.config.loader import Config
from engine.fs.byte_count import count_in_file
from engine.session.quick_gauge import QuickGauge, quick_context_tokens
from engine.stores.source import SessionSource
from engine.stores.timestamps import parse_iso

__all__ = ["COUNT_LIMIT_BYTES", "Glance", "glance_session"]

COUNT_LIMIT_BYTES = 256 << 20
"""Files larger than this are not scanned for compactions when the store has no count (``None`` instead)."""
_COMPACTION = b'\n{"type":"compaction","id":"'
"""A compaction line as pi and OpenClaw write it (``type`` then ``id``, JSON.stringify order). The longer the
needle, the further the byte search skips: this one counts 400 MB in ~60 ms where ``"compaction"`` takes
130 ms. A writer that orders keys differently is missed here; ``status --full`` parses every line."""
_V1_COMPACTION = b'\n{"type":"compaction","timestamp":"'
"""A compaction line of pi's version-1 files (before entry ids), counted only in files whose header has no
``version``."""


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

    @property
    def compactions(self) -> int | None:
        counts = [c for c in (self.compactions_in_file, self.store_compaction_count) if c is not None]
        return max(counts) if counts else None

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
            "utilization": None if util is None else round(util, 4),
            "compaction_threshold_tokens": self.gauge.compaction_line,
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
            "scan": "tail",
        }


def _count_compactions(fd: int, size: int, *, headerless: bool) -> int | None:
    """Compaction lines in the first ``size`` bytes of ``fd``, or ``None`` past :data:`COUNT_LIMIT_BYTES`."""
    if size > COUNT_LIMIT_BYTES:
        return None
    # The needle starts at a newline: only a header-less file can open with a compaction, with none before it.
    first = headerless and os.pread(fd, len(_COMPACTION) - 1, 0) == _COMPACTION[1:]
    count = count_in_file(fd, _COMPACTION, size) + first
    header = os.pread(fd, 4096, 0).split(b"\n", 1)[0]
    if not headerless and b'"type":"session"' in header and b'"version"' not in header:
        count += count_in_file(fd, _V1_COMPACTION, size)  # pi's v1 files: no ids, so another key follows
    return count


def glance_session(source: SessionSource, config: Config | None = None) -> Glance:
    """Read just enough of a JSONL session for its status row.

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
        quick = quick_context_tokens(fd)
        compactions_in_file = _count_compactions(fd, stat.st_size, headerless=quick.headerless)
    finally:
        os.close(fd)
    store = source.store_entry or {}
    model = quick.model
    if model is None and isinstance(store.get("model"), str):
        model = store["model"]
    window = resolve_context_window(
        store_context_tokens=store.get("contextTokens"), model=model, overrides=config.context_windows
    )
    gauge = read_gauge(
        quick.tokens, window, thresholds=config.thresholds, reserve_floor=config.reserve_floor_for(source.format)
    )
    count = store.get("compactionCount")
    store_count = count if isinstance(count, int) and not isinstance(count, bool) else None
    last = parse_iso(quick.leaf_timestamp) or datetime.fromtimestamp(stat.st_mtime, UTC)
    return Glance(
        source=source,
        quick=quick,
        window=window,
        gauge=gauge,
        model=model,
        compactions_in_file=compactions_in_file,
        store_compaction_count=store_count,
        last_activity=last,
        version=quick.version,
        headerless=quick.headerless,
    )
