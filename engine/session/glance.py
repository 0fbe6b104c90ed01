"""A session at a glance without indexing it: the fast path behind ``ctxscope status``.

See docs/context-accounting.md, Reading from the tail.

:func:`glance_session` reads the header, scans back from the end for the gauge
(:func:`engine.session.quick_gauge.quick_context_tokens`) and counts compactions from the store and from a byte
search for compaction lines (no JSON parsing), all through one descriptor. It does not validate
every line: ``malformed_lines`` is ``None`` ("not checked") — ``status --full`` and ``inspect`` index the whole
file and report them. Cost: a few kilobytes per session plus the compaction count, so a thousand sessions
take well under a second.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from engine.accounting.gauge import GaugeReading
from engine.accounting.windows import ContextWindow
from engine.config.loader import Config
from engine.fs.byte_count import find_in_file
from engine.session.agent_limits import AgentLimits, agent_limits
from engine.session.quick_gauge import QuickGauge, quick_context_tokens
from engine.stores.source import SessionSource
from engine.stores.timestamps import parse_iso
from engine.stores.transcript import header_version, read_header

__all__ = ["COUNT_LIMIT_BYTES", "Glance", "glance_session"]

COUNT_LIMIT_BYTES = 256 << 20
"""Files larger than this are not scanned for compactions when the store has no count (``None`` instead)."""
_KEPT_KEY = b'"firstKeptEntryId"'
"""The one key every compaction line carries, whatever the writer's whitespace (v1 files: :data:`_KEPT_KEY_V1`).
A long needle lets the byte search skip about as far as a whole pi-style line prefix would; an escaped copy inside
a message's text (``\\"firstKeptEntryId\\"``) is told apart by its backslash."""
_KEPT_KEY_V1 = b'"firstKeptEntryIndex"'
_COMPACTION_LINE = re.compile(rb'\s*\{\s*"type"\s*:\s*"compaction"\s*[,}]')
"""The start of a compaction line: ``type`` first, as pi, OpenClaw and our own writers order it."""
_LINE_PROBE = 4096


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


def _count_compactions(fd: int, size: int, *, version: int = 3) -> int | None:
    """Compaction lines in the first ``size`` bytes of ``fd``, or ``None`` past :data:`COUNT_LIMIT_BYTES`.

    Each hit of :data:`_KEPT_KEY` is checked against the start of its line (JSON whitespace anywhere), so a file
    written with ``": "`` counts like one written by ``JSON.stringify``.
    """
    if size > COUNT_LIMIT_BYTES:
        return None
    count = 0
    counted_line = -1
    for hit in find_in_file(fd, _KEPT_KEY_V1 if version == 1 else _KEPT_KEY, size):
        if hit > 0 and os.pread(fd, 1, hit - 1) == b"\\":
            continue
        start = _line_start(fd, hit)
        if start == counted_line:
            continue
        head = os.pread(fd, min(_LINE_PROBE, hit - start), start).removeprefix(b"\xef\xbb\xbf")
        if _COMPACTION_LINE.match(head):
            count += 1
            counted_line = start
    return count


def _line_start(fd: int, pos: int) -> int:
    """Offset of the first byte of the line holding ``pos``."""
    end = pos
    while end > 0:
        begin = max(0, end - _LINE_PROBE)
        chunk = os.pread(fd, end - begin, begin)
        newline = chunk.rfind(b"\n")
        if newline >= 0:
            return begin + newline + 1
        end = begin
    return 0


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
        header = read_header(fd)
        compactions_in_file = _count_compactions(fd, stat.st_size, version=header_version(header))
        quick = quick_context_tokens(fd, compactions_possible=compactions_in_file != 0, header=header)
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
        limits=limits,
    )
