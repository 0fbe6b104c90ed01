"""Reading a cold report's sessions over two processes (docs/usage.md, Speed: reading over both cores).

A forked worker reads the sessions the index cannot answer from the front of their list while this process reads
every other session, then takes the unread ones from the back: the two meet wherever their speeds put them, so
neither waits for the other. The worker writes nothing: each session it finishes becomes one frame — its outcome
and the index saves it would have made — in an anonymous in-memory file. This process applies those saves and
places each outcome where the session stands in the list, so the result is the one a single process gives.

Fail safe: a worker that dies, raises or stops making progress only stops adding frames; this process reads
whatever has no complete frame itself. When it is done the worker is killed (it may be working on a session this
process already read) and reaped, so none outlives the call.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import signal
import threading
from collections.abc import Callable, Sequence
from typing import Any

from engine.index.cache import IndexCache
from engine.index.record_types import CompactionRecord, UsageRecord
from engine.stores.source import SessionSource
from engine.usage.model import SessionUsage

__all__ = ["Outcome", "can_split", "read_split"]

Outcome = SessionUsage | str
"""One session's usage, or the line naming why it could not be read."""

_HEAD = 8
"""Bytes of a frame's length prefix (little-endian)."""


def can_split() -> bool:
    """A worker can be forked here: Linux's ``fork`` and ``memfd_create``, and this thread alone in the process
    (a fork copies no other thread, so a lock one of them held would stay held in the worker for ever)."""
    return hasattr(os, "fork") and hasattr(os, "memfd_create") and threading.active_count() == 1


def read_split(sources: Sequence[SessionSource], todo: Sequence[int],
               read_one: Callable[[SessionSource, IndexCache | None], Outcome],
               cache: IndexCache | None) -> list[Outcome]:
    """``read_one`` of every source, in order, the sources at positions ``todo`` (ascending) shared with a worker.

    The caller checks :func:`can_split` first. Whatever ``read_one`` raises in this process propagates as it
    would without a worker (the worker is reaped first).
    """
    results: list[Outcome | None] = [None] * len(sources)
    # The first one read here before the fork: the modules reading needs are imported, and the index shards
    # loaded, once for both processes.
    results[todo[0]] = read_one(sources[todo[0]], cache)
    todo = todo[1:]
    fd = os.memfd_create("ctxscope-reading", os.MFD_CLOEXEC)
    parent = os.getpid()
    try:
        pid = os.fork()
    except OSError:
        os.close(fd)
        return [r if r is not None else read_one(s, cache) for s, r in zip(sources, results, strict=True)]
    if pid == 0:
        _work(fd, [sources[i] for i in todo], read_one, cache, parent)  # never returns
    worker = _Worker(pid, fd)

    def take(stop: int) -> None:
        """Place the worker's outcomes up to ``stop`` and apply its saves; done while it still runs, so that
        little is left to merge once the two meet."""
        for j, flat, saves in worker.take(stop):
            if cache is not None:
                for key, shard, sections in saves:
                    cache.save(key, sections, shard=shard)
            results[todo[j]] = _outcome(flat)

    try:
        theirs = set(todo)
        for i, source in enumerate(sources):
            if i not in theirs and results[i] is None:
                results[i] = read_one(source, cache)
        high = len(todo)  # todo[high:] are read here; the worker's frames of todo[:high] count
        while (done := worker.done()) < high:
            take(done)
            if not worker.running():
                done = worker.done()  # what it wrote before it exited
                for j in range(done, high):
                    results[todo[j]] = read_one(sources[todo[j]], cache)
                high = min(high, done)  # frames past it are of sessions read here already
                break
            high -= 1
            results[todo[high]] = read_one(sources[todo[high]], cache)
        worker.stop()
        take(high)
    finally:
        worker.stop()
        worker.close()
    assert all(r is not None for r in results)
    return results  # type: ignore[return-value]


def _work(fd: int, sources: list[SessionSource], read_one: Callable[[SessionSource, IndexCache | None], Outcome],
          cache: IndexCache | None, parent: int) -> None:
    """The worker: one frame per source, in order, then exit. Nothing it does may reach the parent's code: any
    exception ends the process (its frames so far stand)."""
    code = 1
    try:
        if cache is not None:
            cache.divert_saves()
        for j, source in enumerate(sources):
            if os.getppid() != parent:
                break  # the parent was killed: no one will read what follows
            outcome = read_one(source, cache)
            saves = cache.take_diverted() if cache is not None else []
            frame = marshal.dumps((j, _flat(outcome), saves))
            _write_all(fd, len(frame).to_bytes(_HEAD, "little") + frame)
        code = 0
    finally:
        os._exit(code)  # no atexit handler, no flush of buffers the parent owns


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _flat(outcome: Outcome) -> Any:
    """What marshal can carry (no named tuple, no dataclass)."""
    if isinstance(outcome, str):
        return outcome
    return (outcome.key, outcome.agent, outcome.project, [tuple(c) for c in outcome.calls],
            [tuple(c) for c in outcome.compactions], outcome.estimated_cost_usd, outcome.archived)


def _outcome(flat: Any) -> Outcome:
    if isinstance(flat, str):
        return flat
    key, agent, project, calls, compactions, estimate, archived = flat
    return SessionUsage(key=key, agent=agent, project=project, calls=tuple(map(UsageRecord._make, calls)),
                        compactions=tuple(map(CompactionRecord._make, compactions)), estimated_cost_usd=estimate,
                        archived=archived)


class _Worker:
    """The forked worker as this process sees it: its complete frames so far, whether it still runs."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid: int | None = pid
        """``None`` once reaped (its id may then belong to another process: never signalled again)."""
        self.fd: int | None = fd
        self._read = 0
        self._frames: list[bytes] = []
        self._taken = 0

    def done(self) -> int:
        """How many sessions, from the front, the worker has finished (frames complete in the file)."""
        assert self.fd is not None
        size = os.fstat(self.fd).st_size
        while size - self._read >= _HEAD:
            length = int.from_bytes(os.pread(self.fd, _HEAD, self._read), "little")
            if size - self._read - _HEAD < length:
                break  # still being written
            self._frames.append(os.pread(self.fd, length, self._read + _HEAD))
            self._read += _HEAD + length
        return len(self._frames)

    def running(self) -> bool:
        """The worker has not exited (reaped here when it has)."""
        if self.pid is None:
            return False
        try:
            found, _ = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:  # reaped by someone else (SIGCHLD ignored): gone all the same
            found = self.pid
        if found == 0:
            return True
        self.pid = None
        return False

    def stop(self) -> None:
        """Kill and reap the worker if it is still there; idempotent."""
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = None

    def take(self, stop: int) -> list[tuple[int, Any, list[tuple[str, str | None, dict[str, bytes]]]]]:
        """The frames not taken yet before ``stop`` (all complete: :meth:`done` said so), decoded."""
        found = [marshal.loads(f) for f in self._frames[self._taken:stop]]
        self._taken = max(self._taken, stop)
        return found

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
