"""How many times a session was compacted: one function for ``status``, ``inspect``, ``history``, the dry run's
"this will be compaction #N", the degradation report and the TUI (docs/compaction.md, Compaction count).

Two records exist and neither is complete. OpenClaw's store (``sessions.json`` ``compactionCount``) counts the
compactions OpenClaw made, also those of transcripts it rotated away; the transcript holds every compaction written
into it, OpenClaw's and ctxscope's. A compaction ctxscope appends itself never reaches the store's counter, so taking
the larger of the two (as before) left ``status`` on the old count right after ``compact --yes``. The count is the
store's plus ctxscope's own (read from the audit log), and never less than the transcript's.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from engine.fs.audit import read_audit
from engine.fs.layout import audit_path

__all__ = ["compaction_count", "own_compactions"]


def compaction_count(in_file: int | None, store: int | None, own: int = 0) -> int | None:
    """The session's compactions: ``in_file`` in its transcript, ``store`` in OpenClaw's counter (``None`` when
    unknown), ``own`` appended by ctxscope's jsonl controller (in the transcript, never in the store's counter)."""
    if store is None:
        return in_file
    counted = store + own
    return counted if in_file is None else max(in_file, counted)


def own_compactions(state_dir: Path, session_key: str) -> int:
    """How many compactions ctxscope appended to ``session_key``'s transcript itself (audited, result ``ok``)."""
    path = audit_path(state_dir)
    try:
        stat = path.stat()
    except OSError:
        return 0
    return _own_by_key(path, stat.st_mtime_ns, stat.st_size).get(session_key, 0)


@lru_cache(maxsize=16)
def _own_by_key(path: Path, mtime_ns: int, size: int) -> dict[str, int]:
    # Keyed by the log's mtime and size: ``status`` over many sessions reads one log once.
    del mtime_ns, size
    counts: dict[str, int] = {}
    for record in read_audit(path.parent.parent):
        if (record.action in ("compact", "prune") and record.result == "ok"
                and record.params.get("controller") == "jsonl"):
            counts[record.session_key] = counts.get(record.session_key, 0) + 1
    return counts
