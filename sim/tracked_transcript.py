"""A transcript appended to under OpenClaw's lock, with its context path and pi token estimate kept current.

The writer side of a simulated agent. Each :meth:`TrackedTranscript.append` takes ``<file>.lock``, re-reads what
was appended since (by anyone), chains the new entries to the last entry in the file (docs/formats.md, Writing
rules), and writes each line with one ``write()`` on an ``O_APPEND`` descriptor. Reading back goes through the
engine's own :class:`~engine.stores.transcript.TranscriptReader`, so the context the agent believes it has is
exactly what :func:`engine.accounting.context.build_context` says — including compactions appended by another
writer (ctxscope).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import orjson

from engine.accounting.context import build_context, context_from_path
from engine.fs.session_lock import acquire_lock
from engine.stores.entries import Entry
from engine.stores.transcript import TranscriptReader
from sim.synthetic import IdFactory

__all__ = ["EntryBatch", "TrackedTranscript"]

EntryBatch = Iterable[dict[str, Any]] | Callable[[], list[dict[str, Any]]]


class TrackedTranscript:
    """One JSONL transcript, its root→leaf path, and pi's estimate of the context on that path."""

    def __init__(
        self,
        path: Path,
        ids: IdFactory,
        *,
        lock_timeout: float = 30.0,
        on_compaction: Callable[[Entry], None] | None = None,
    ) -> None:
        self.path = Path(path)
        self.ids = ids
        self.lock_timeout = lock_timeout
        self.reader = TranscriptReader(self.path)
        self.entries_path: list[Entry] = []
        """The context path, root first (rebuilt when the file branches or is replaced)."""
        self.context_tokens = 0
        """pi's ``ceil(chars/4)`` summed over the context messages on the path (compaction summary included)."""
        self.entries_written = 0
        self._on_compaction = on_compaction

    def sync(self) -> None:
        """Read what was appended since the last call and bring the path and the estimate up to date."""
        if not self.path.exists():
            return  # nothing written yet
        batch = self.reader.read_new()
        new = [e for e in batch.entries if e.id is not None and e.type != "session"]
        self.ids.reserve([e.id for e in new if e.id is not None])
        if not new and not batch.reset:
            return
        path = self.entries_path
        tail = path[-1] if path and not batch.reset else None
        linear = all(e.parent_id == (new[i - 1].id if i else (tail.id if tail else None)) for i, e in enumerate(new))
        recompute = not linear or batch.reset
        if recompute:
            self.entries_path = list(build_context(self.reader.entries, self.reader.by_id, self.reader.leaf).path)
        for entry in new:
            if not recompute:
                self.entries_path.append(entry)
            if entry.type == "compaction":
                recompute = True
                if self._on_compaction is not None:
                    self._on_compaction(entry)
            elif entry.in_context:
                self.context_tokens += entry.pi_tokens
        if recompute:
            view = context_from_path(tuple(self.entries_path), self.reader.leaf)
            self.context_tokens = sum(m.entry.pi_tokens for m in view.messages)

    def append(self, entries: EntryBatch) -> list[dict[str, Any]]:
        """Append entries chained to the current leaf; returns what was written.

        A callable is called under the lock after the re-read, so it can build entries from the current path.

        Raises:
            engine.fs.session_lock.LockHeldError: another process held the lock for ``lock_timeout`` seconds.
            OSError: the transcript could not be written.
        """
        with acquire_lock(self.path, timeout=self.lock_timeout):
            self.sync()
            batch = entries() if callable(entries) else list(entries)
            leaf = self.reader.leaf
            parent = leaf.id if leaf is not None else None
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                for entry in batch:
                    if entry["type"] != "session":
                        entry["parentId"] = parent
                        parent = entry["id"]
                    # One write() per whole line; the loop only finishes a short write (ENOSPC-style edge).
                    view = memoryview(orjson.dumps(entry) + b"\n")
                    while view:
                        view = view[os.write(fd, view) :]
            finally:
                os.close(fd)
        self.sync()
        self.entries_written += len(batch)
        return batch
