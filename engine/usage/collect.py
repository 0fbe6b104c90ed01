"""Reading what a usage report needs from every session — the one module of :mod:`engine.usage` that reads files.

Each transcript goes through its persistent index (:mod:`engine.index`), so a report costs the bytes appended
since the last one. Live sessions come first, then the archived transcripts discovery set aside (resets,
deletions, backups, pre-compaction copies): their calls were billed too, and a copy of a live session's entries
is counted once by :func:`engine.usage.aggregate.aggregate_usage`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.agents import registry
from engine.index.cache import IndexCache, LoadedIndex, shard_of
from engine.stores.number_bounds import cost_usd
from engine.stores.source import AGENT_FORMATS, Discovery, SessionSource
from engine.stores.transcript_error import TranscriptError
from engine.usage.model import SessionUsage

if TYPE_CHECKING:
    from engine.index.transcript_index import TranscriptIndex

__all__ = ["SPLIT_AT", "archive_source", "collect_usage", "index_source", "session_usage"]


def archive_source(path: Path) -> SessionSource:
    """A source for an archived transcript discovery found but did not list as a session (the agent whose layout
    holds it says which: docs/agents.md)."""
    return registry.archive_source(path)


def _estimate(store: Mapping[str, Any] | None) -> float | None:
    # Bounded like every recorded cost (docs/formats.md, Number bounds).
    value = cost_usd((store or {}).get("estimatedCostUsd"))
    return value if value else None


def _claimed_by(source: SessionSource) -> str:
    """Whose session a file nothing could read was taken for: where it lies says more than the format discovery
    fell back to (a Codex rollout or a Claude Code transcript with a damaged first line reads as pi's)."""
    agent = registry.adapter_for(None, source.path) or registry.agent_of(source.format)
    title = agent.title if agent is not None else source.format
    return ("an " if title[:1] in "AEIOU" else "a ") + title


def index_source(source: SessionSource, cache: IndexCache | None) -> TranscriptIndex:
    """The up-to-date index of one session's transcript, with its calls.

    Raises:
        TranscriptError, OSError: the session cannot be read.
    """
    if source.in_database:
        from engine.index.sqlite_index import index_sqlite_session  # only SQLite users pay for sqlite3

        return index_sqlite_session(source.path, source.session_id or "", cache)
    # Imported here: pi's and OpenClaw's index is not loaded for a report over the other agents' files alone.
    from engine.index.transcript_index import index_transcript

    return index_transcript(source.path, cache, calls=True)


def session_usage(source: SessionSource, cache: IndexCache | None = None) -> SessionUsage:
    """The calls and compactions of one session, from its index.

    Raises:
        TranscriptError, OSError: the session cannot be read.
    """
    if source.format in AGENT_FORMATS:  # Claude Code, Codex (engine/agents)
        from engine.usage.agent_usage import agent_session_usage

        return agent_session_usage(source, cache)
    indexed = index_source(source, cache)
    found = registry.agent_of(source.format)
    agent = source.agent_id or (found.name if found is not None else source.format)
    if indexed.header.headerless and not indexed.calls and not indexed.compactions:
        # No header, no call, no compaction: nothing pi or OpenClaw would load. Counted, it would read as a
        # session that cost $0 (docs/usage.md).
        from engine.usage.agent_usage import UnreadableSessionError

        kind = _claimed_by(source)
        raise UnreadableSessionError(f"not {kind} session ctxscope can read ({indexed.lines} lines, no session "
                                     "header, no call)")
    return SessionUsage(
        key=source.key,
        agent=agent,
        project=indexed.header.cwd or "-",
        calls=indexed.calls or (),
        compactions=indexed.compactions,
        estimated_cost_usd=_estimate(source.store_entry) if source.kind == "live" else None,
        archived=source.kind != "live",
    )


SPLIT_AT = 64
"""Sessions the index cannot answer from which a report reads them over two processes (docs/usage.md, Speed):
below it, forking a worker costs more than the worker saves."""


def collect_usage(
    discovery: Discovery,
    cache: IndexCache | None = None,
    *,
    archives: bool = True,
    progress: Callable[[int, int], None] | None = None,
    split_at: int | None = None,
) -> tuple[tuple[SessionUsage, ...], tuple[str, ...]]:
    """Every session's usage and the problems met (one line per session that could not be read).

    Args:
        archives: also read the archived transcripts discovery found.
        progress: called with ``(done, total)`` after each session.
        split_at: with this many sessions or more that the index cannot answer, a forked worker reads a share of
            them (:mod:`engine.usage.split_reading`; only in a process with no other thread, and never with
            ``progress``); ``None``: one process. The result is the same either way.
    """
    sources: list[SessionSource] = list(discovery.sessions)
    if archives:
        known = {s.path for s in sources}
        sources += [archive_source(p) for p in discovery.archives if p not in known]
    found: list[SessionUsage] = []
    problems: list[str] = []
    with cache.batch() if cache is not None else contextlib.nullcontext():  # each shard written once
        outcomes = _split(sources, cache, split_at) if split_at is not None and progress is None else None
        if outcomes is None:
            outcomes = []
            for done, source in enumerate(sources, 1):
                outcomes.append(_read_one(source, cache))
                if progress is not None:
                    progress(done, len(sources))
    for outcome in outcomes:
        if isinstance(outcome, str):
            problems.append(outcome)
        else:
            found.append(outcome)
    return tuple(found), tuple(problems)


def _read_one(source: SessionSource, cache: IndexCache | None) -> SessionUsage | str:
    """A session's usage, or the line that names why it could not be read."""
    try:
        return session_usage(source, cache)
    except (TranscriptError, OSError, ValueError) as exc:
        return f"{source.path}: {exc}"


def _split(sources: list[SessionSource], cache: IndexCache | None, split_at: int) -> list[SessionUsage | str] | None:
    """Every outcome, read over two processes; ``None`` when too few sessions need reading to be worth it."""
    if len(sources) < split_at:
        return None
    from engine.usage.split_reading import can_split, read_split

    if not can_split():
        return None
    todo = [i for i, s in enumerate(sources) if _unindexed(s, cache)]
    if len(todo) < split_at:
        return None
    return read_split(sources, todo, _read_one, cache)


def _unindexed(source: SessionSource, cache: IndexCache | None) -> bool:
    """Nothing is stored for the session: reading it means reading its whole file. A SQLite store stays with the
    process that opened it."""
    if source.in_database:
        return False
    if cache is None or not cache.enabled:
        return True
    if source.format in AGENT_FORMATS:
        from engine.usage.agent_usage import stored_key

        key, shard = stored_key(source.path)
    else:
        from engine.index.transcript_index import stored_key as transcript_key

        key = transcript_key(source.path)
        shard = shard_of(key)
    return not isinstance(cache.load(key, shard=shard), LoadedIndex)
