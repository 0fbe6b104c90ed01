"""Everything a compaction plan reads besides the snapshot, gathered in one place (docs/compaction.md, Plan first).

:func:`gather_inputs` is the planner's only reader of the file system: which controller applies and what refuses it,
the session lock, the transcript's age, the latest checkpoint, OpenClaw's own budget figures, and the token counts
of the context messages (counted on a worker thread: tiktoken releases the GIL, so counting overlaps the summary
work). The stages that follow read transcript entries only through :class:`EntryObjects`, which loads each once.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.accounting.context import ContextMessage
from engine.accounting.measure import TokenCache, message_tokens, text_of
from engine.accounting.tokens import TokenCounter, get_counter
from engine.agents.session_reader import open_reader
from engine.checkpoints.store import LoadedCheckpoint, latest_checkpoint
from engine.compaction.choice import choose_controller, jsonl_problems, openclaw_budget_of
from engine.compaction.request import CompactionRequest
from engine.compaction.span_text import Loader
from engine.config.loader import Config, resolve_state_dir
from engine.fs.lock_info import LockInfo
from engine.fs.session_lock import inspect_lock
from engine.session.snapshot import SessionSnapshot
from engine.stores.entries import Entry
from engine.stores.message_content import IMAGE_CHARS

__all__ = ["EntryObjects", "PendingCounts", "PlanInputs", "TokenCounts", "gather_inputs"]


class EntryObjects:
    """Loads each entry's JSON once per plan (summary, tokens, archive and pins all read the same objects)."""

    def __init__(self, load: Loader) -> None:
        self._load = load
        self._cache: dict[tuple[int, int], dict[str, Any]] = {}

    def read_object(self, entry: Entry) -> dict[str, Any]:
        key = (entry.line_no, entry.offset)
        cached = self._cache.get(key)
        if cached is None:
            cached = self._cache[key] = dict(self._load(entry))
        return cached

    def __call__(self, entry: Entry) -> dict[str, Any]:
        return self.read_object(entry)


@dataclass(frozen=True, slots=True)
class TokenCounts:
    """Tokens of each context message by the engine's tokenizer (:func:`engine.accounting.measure.message_tokens`)."""

    method: str
    by_message: Mapping[int, int]
    """``id(message)`` → tokens, for every message of the snapshot's context view."""

    def of(self, message: ContextMessage) -> int:
        return self.by_message[id(message)]

    def total(self, messages: Iterable[ContextMessage]) -> int:
        return sum(self.by_message[id(m)] for m in messages)

    @property
    def context(self) -> int:
        """All context messages together."""
        return sum(self.by_message.values())


class PendingCounts:
    """The token counting started by :func:`gather_inputs`; :meth:`join` waits for it and returns the counts."""

    def __init__(self, snapshot: SessionSnapshot, objects: EntryObjects, counter: TokenCounter,
                 cache: TokenCache) -> None:
        self._messages = list(snapshot.view.messages)
        self._objects, self._counter, self._cache = objects, counter, cache
        self._keys: list[tuple[int, int, str]] = []
        texts: list[str] = []
        self._images: list[int] = []
        for m in self._messages:
            key = (m.entry.offset, m.entry.length, m.role)
            if key in cache:
                continue
            text, count = text_of(m, objects(m.entry))
            self._keys.append(key)
            texts.append(text)
            self._images.append(count)
        self._results: list[int] = []
        self._worker = threading.Thread(target=lambda: self._results.extend(counter.count(t) for t in texts),
                                        daemon=True)
        self._worker.start()

    def join(self) -> TokenCounts:
        self._worker.join()
        for key, tokens, count in zip(self._keys, self._results, self._images, strict=True):
            self._cache[key] = tokens + count * (IMAGE_CHARS // 4)
        # message_tokens's cache keys and formula are the ones above, so it finds every count cached.
        counts = {id(m): message_tokens(m, self._objects, counter=self._counter, cache=self._cache)
                  for m in self._messages}
        return TokenCounts(self._counter.method, counts)


@dataclass(frozen=True, slots=True)
class PlanInputs:
    """What the planner read at its edge; the stages compute from these and the snapshot alone."""

    controller: str
    """``jsonl``, ``gateway`` or ``none`` (:func:`engine.compaction.choice.choose_controller`)."""
    controller_problems: tuple[str, ...]
    """Why that controller cannot write this session (refusal, no header or old version, a broken lock)."""
    lock: LockInfo | None
    """The session lock as found (jsonl controller only)."""
    own_pid: int
    transcript_age: float | None
    """Seconds since the transcript was last written (``None``: it could not be read)."""
    latest: LoadedCheckpoint | None
    openclaw_budget: Mapping[str, Any] | None
    """OpenClaw's own figures from its store (gateway controller only)."""
    objects: EntryObjects
    counter: TokenCounter


def _default_loader(snapshot: SessionSnapshot) -> Loader:
    return open_reader(snapshot.source).read_object


def gather_inputs(
    snapshot: SessionSnapshot,
    request: CompactionRequest,
    *,
    config: Config,
    load: Loader | None = None,
    state_dir: Path | None = None,
    token_cache: TokenCache | None = None,
) -> tuple[PlanInputs, PendingCounts]:
    """Read what ``request`` needs besides ``snapshot``; the counts come when :meth:`PendingCounts.join` is called.

    Args:
        load: re-reads an entry's JSON (the follower's ``reader.read_object``); default: a fresh reader.
        state_dir: where checkpoints live (default: :func:`engine.config.loader.resolve_state_dir`).
        token_cache: the follower's counts, filled with the new ones.
    """
    source = snapshot.source
    objects = EntryObjects(load or _default_loader(snapshot))
    counter = get_counter()
    pending = PendingCounts(snapshot, objects, counter, token_cache if token_cache is not None else {})
    chosen, refusal = choose_controller(source, request.controller or config.compaction.controller)
    problems = [refusal] if refusal else []
    lock = None
    if chosen == "jsonl":
        problems += jsonl_problems(snapshot)
        lock = inspect_lock(source.path)
        if lock is not None and lock.problem is not None:
            problems.append(lock.problem)
    try:
        age: float | None = request.now.timestamp() - source.path.stat().st_mtime
    except OSError:
        age = None
    inputs = PlanInputs(
        controller=chosen,
        controller_problems=tuple(problems),
        lock=lock,
        own_pid=os.getpid(),
        transcript_age=age,
        latest=latest_checkpoint(state_dir or resolve_state_dir(source.state_dir, config), source.identity),
        openclaw_budget=openclaw_budget_of(source) if chosen == "gateway" else None,
        objects=objects,
        counter=counter,
    )
    return inputs, pending
