"""Writes many small byte strings to a file in large chunks, the disk write of one chunk overlapping the next.

The bulk session generator (:mod:`sim.session_generator`) produces lines far faster than single writes could take
them; joining them into multi-MB chunks and handing each chunk to one background thread (``write`` releases the
GIL) keeps generation and disk busy at the same time.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

__all__ = ["CHUNK_BYTES", "ChunkWriter"]

CHUNK_BYTES = 8 << 20


class ChunkWriter:
    """Buffers the lines given to :meth:`add_line`, writes them ``chunk`` bytes at a time; :meth:`close` when done."""

    def __init__(self, path: Path, chunk: int = CHUNK_BYTES) -> None:
        self.file = path.open("wb", buffering=0)
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="chunk-writer")
        self.pending: Future[None] | None = None
        self.chunk = chunk
        self.buffer: list[bytes] = []
        self.buffered = 0
        """Bytes added but not yet handed to the writing thread."""
        self.bytes = 0
        """Bytes handed to the writing thread (written once :meth:`flush` with ``final`` returns)."""

    def add_line(self, line: bytes) -> None:
        """Add ``line`` and a newline (two list items rather than a copy of ``line``: lines reach megabytes)."""
        self.buffer.append(line)
        self.buffer.append(b"\n")
        self.buffered += len(line) + 1
        if self.buffered >= self.chunk:
            self.flush()

    def _write(self, chunks: list[bytes]) -> None:
        view = memoryview(b"".join(chunks))
        while view:
            view = view[self.file.write(view) or 0 :]

    def flush(self, *, final: bool = False) -> None:
        """Hand the buffer to the writing thread (after the previous chunk is on disk); ``final`` waits for it."""
        if self.pending is not None:
            self.pending.result()
            self.pending = None
        if self.buffer:
            self.pending = self.pool.submit(self._write, self.buffer)
            self.bytes += self.buffered
            self.buffer = []
            self.buffered = 0
        if final and self.pending is not None:
            self.pending.result()
            self.pending = None

    def close(self) -> None:
        try:
            if self.pending is not None:
                self.pending.result()
        finally:
            self.pool.shutdown()
            self.file.close()
