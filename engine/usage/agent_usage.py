"""Usage of Claude Code and Codex sessions: their readings (engine/agents) as the records a report aggregates.

Each request the agent made is one call, keyed by its own identity (Claude Code's message and request ids,
Codex's response id) so a copy of a file is counted once (docs/usage.md).

A session's usage is kept in the index cache (docs/index.md, Claude Code and Codex) under its path, checked
against the file's device, inode, size, modification and change times: a report reads again only the files
that changed since the last one. A file that grew is read from where the last reading stopped, when the bytes
before that point are the ones read (their digest, as pi's index checks them): the stored reader state — the
calls so far, the session id and cwd, Codex's model and running totals — continues with the appended lines only.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from engine.index.cache import IndexCache, LoadedIndex
from engine.index.file_check import bytes_check, file_check
from engine.index.record_types import CompactionRecord, UsageRecord
from engine.stores.source import SessionSource
from engine.usage.model import SessionUsage

if TYPE_CHECKING:
    from engine.agents.claude_code.reader import UsageReading
    from engine.agents.protocol import AgentCall, AgentCompaction

__all__ = ["UnreadableSessionError", "agent_session_usage", "stored_key", "usage_of"]

_PROVIDERS = {"claude-code": "anthropic", "codex": "openai"}
_VERSION = 4
"""Raised when what is stored, or the readers' rules that produced it, change: older records are read again."""


class UnreadableSessionError(ValueError):
    """A file discovery took for an agent's session holds nothing that agent's reader recognises."""


def usage_of(source: SessionSource, agent: str, session_id: str | None, cwd: str | None,
              calls: Iterable[AgentCall], compactions: Iterable[AgentCompaction]) -> SessionUsage:
    provider = _PROVIDERS.get(agent)
    return SessionUsage(
        key=source.key, agent=agent, project=cwd or "-",
        calls=tuple([UsageRecord(line, key, None, timestamp, model, provider, input_, output, cache_read, cache_write,
                                 cost, None)
                     for line, key, timestamp, model, input_, output, cache_read, cache_write, cost in calls]),
        compactions=tuple(CompactionRecord(c.line_no, f"{agent}:{session_id}:{c.line_no}", c.id, c.timestamp,
                                           c.tokens_before, None, None, False) for c in compactions),
        estimated_cost_usd=None, archived=source.kind != "live")
"""The calls and compactions of one agent session as a report counts and prices them."""


def _shard(path: Path) -> str:
    """Every session of one agent's tree in one index file: a Codex rollout's ``YYYY/MM/DD`` directories are
    folded into the ``sessions`` directory above them (a thousand days would be a thousand files)."""
    parent = os.path.dirname(path)
    found = _SHARDS.get(parent)
    if found is None:
        # Worked out once per directory, from its name as a string (a Path's parts per file cost 12 ms of a
        # cold report over 1,000 sessions: docs/usage.md, Speed).
        folded: str | Path = parent
        # No component a Path would drop (".") or find empty ("//"); a hidden directory (".codex") is kept by both.
        if "//" not in parent and "/./" not in parent + "/" and not parent.startswith("./") and parent != ".":
            head, day = os.path.split(parent)
            rest, month = os.path.split(head)
            above, year = os.path.split(rest)
            if day.isdigit() and month.isdigit() and year.isdigit() and above:
                folded = above
        else:
            parts = Path(parent).parts
            if len(parts) > 3 and all(p.isdigit() for p in parts[-3:]):
                folded = Path(*parts[:-3])
        found = "agent-usage:" + os.path.abspath(folded)
        if os.path.isabs(parent):  # a relative name's shard follows the working directory: not kept
            _SHARDS[parent] = found
    return found


_SHARDS: dict[str, str] = {}
"""Absolute directory → its shard (which depends on nothing but the directory's name)."""


def stored_key(path: Path) -> tuple[str, str]:
    """The key a session's usage is stored under in the index cache, and its shard."""
    return "agent-usage:" + os.path.abspath(path), _shard(path)


def _stamp(st: os.stat_result) -> list[int]:
    return [_VERSION, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def _stored(loaded: LoadedIndex, source: SessionSource, stamp: list[int]) -> SessionUsage | None:
    """The usage stored for ``source`` if the file is still the one it was read from; raises the stored
    :class:`UnreadableSessionError`."""
    meta = loaded.section("meta")
    if not isinstance(meta, dict) or meta.get("stamp") != stamp:
        return None
    if meta.get("unreadable") is not None:
        raise UnreadableSessionError(str(meta["unreadable"]))
    body = loaded.section("usage")
    agent, project, calls, compactions = body
    return SessionUsage(key=source.key, agent=agent, project=project, calls=tuple(map(UsageRecord._make, calls)),
                        compactions=tuple(map(CompactionRecord._make, compactions)), estimated_cost_usd=None,
                        archived=source.kind != "live")


def _check(path: Path, st: os.stat_result, offset: int) -> list[Any] | None:
    """The digest of the bytes before ``offset`` (:func:`engine.index.file_check.file_check`), read from
    the file ``st`` describes; ``None`` when it is no longer that file."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        now = os.fstat(fd)
        if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino) or now.st_size < offset:
            return None
        return file_check(fd, offset)
    finally:
        os.close(fd)


def _resumable(loaded: LoadedIndex | None, path: Path, st: os.stat_result) -> dict[str, Any] | None:
    """The reader state stored for ``path`` when the file is the same one, grown or not, and its bytes up to
    where that state stopped are unchanged: an agent appends to its transcript (docs/index.md)."""
    if loaded is None:
        return None
    meta = loaded.section("meta")
    if not isinstance(meta, dict) or not isinstance(meta.get("resume"), dict):
        return None
    stamp, check, state = meta.get("stamp"), meta.get("check"), meta["resume"]
    if not isinstance(stamp, list) or stamp[:3] != _stamp(st)[:3] or not isinstance(check, list) or not check:
        return None  # another ctxscope version, device or inode
    offset = check[0]
    if type(offset) is not int or st.st_size < offset or _check(path, st, offset) != check:
        return None
    return dict(state)


def _read(source: SessionSource, since: dict[str, Any] | None = None
          ) -> tuple[SessionUsage, dict[str, Any] | None, bytes | None]:
    """The usage of ``source``, read from where ``since`` stopped when it is given, the state to resume from next
    time (``None``: the file was read by the full reader, which does not resume) and the file's bytes when the
    reader read them from the start in one go."""
    # Each agent's reader is imported when a file of that agent is read: a report over one agent's files loads
    # no other agent's reader (docs/usage.md, Speed; tests/tui/test_report_imports.py).
    if source.format == "claude-code-jsonl":
        from engine.agents.claude_code.reader import read_usage

        # Only the lines that can hold a call or a compaction are parsed: the same figures as the full reader.
        quick = read_usage(source.path, _claude_since(since) if since is not None else None)
        if quick is not None:
            state = {"offset": quick.offset, "lines": quick.lines, "session_id": quick.session_id, "cwd": quick.cwd,
                     "calls": [list(c) for c in quick.calls], "compactions": [list(c) for c in quick.compactions]}
            return usage_of(source, "claude-code", quick.session_id, quick.cwd, quick.calls,
                            quick.compactions), state, quick.whole
    elif source.format == "codex-jsonl":
        from engine.agents.codex.reader import CodexReader

        reader = (CodexReader.resume(source.path, since) if since is not None
                  else CodexReader(source.path, usage_only=True))
        reading = reader.read_new()
        if reading.session_id is not None or reading.calls:
            return usage_of(source, reading.agent, reading.session_id, reading.cwd, reading.calls,
                            reading.compactions), reader.usage_state(), reader.whole
    from engine.session.agent_glance import read_agent_session

    reading = read_agent_session(source)
    if not reading.is_session:
        raise UnreadableSessionError(f"not a {reading.agent} session ctxscope can read ({reading.records} records, "
                                     f"{len(reading.problems)} bad lines)")
    return (usage_of(source, reading.agent, reading.session_id, reading.cwd, reading.calls, reading.compactions),
            None, None)


def _claude_since(state: dict[str, Any]) -> UsageReading:
    """Raises KeyError, TypeError, ValueError: ``state`` is not one :func:`_read` stored."""
    from engine.agents.claude_code.reader import UsageReading
    from engine.agents.protocol import AgentCall, AgentCompaction

    return UsageReading(state["session_id"], state["cwd"], tuple(AgentCall(*c) for c in state["calls"]),
                        tuple(AgentCompaction(*c) for c in state["compactions"]), int(state["offset"]),
                        int(state["lines"]))


def agent_session_usage(source: SessionSource, cache: IndexCache | None = None) -> SessionUsage:
    """The calls and compactions of one Claude Code or Codex session (from ``cache`` when the file is unchanged,
    reading only its appended lines when it grew).

    Raises:
        UnreadableSessionError: the file holds no record its agent's reader recognises.
        OSError: the file cannot be read.
    """
    if cache is None or not cache.enabled:
        return _read(source)[0]
    st = os.stat(source.path)
    (key, shard), stamp = stored_key(source.path), _stamp(st)
    loaded = cache.load(key, shard=shard)
    since = None
    if isinstance(loaded, LoadedIndex):
        try:
            found = _stored(loaded, source, stamp)
            since = _resumable(loaded, source.path, st) if found is None else None
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, UnreadableSessionError):
                raise
            found = None  # a damaged record of derived data: read the file again
        if found is not None:
            return found
    try:
        try:
            usage, state, whole = _read(source, since)
        except (KeyError, TypeError, ValueError) as exc:
            if since is None or isinstance(exc, UnreadableSessionError):
                raise
            usage, state, whole = _read(source)  # a damaged reader state: read the whole file
    except UnreadableSessionError as exc:
        cache.save(key, {"meta": orjson.dumps({"stamp": stamp, "unreadable": str(exc)})}, shard=shard)
        raise
    # Stored under the stat taken before reading: a file that grew meanwhile no longer matches and is read again
    # (from where this reading stopped, if the bytes before it are the ones read).
    meta: dict[str, Any] = {"stamp": stamp}
    if state is not None:
        # The bytes the reader just read give the digest without a second read (the stamp still names the file
        # stat'ed before: one replaced meanwhile is read again next time).
        check = bytes_check(whole, state["offset"]) if whole is not None else _check(source.path, st, state["offset"])
        if check is not None:
            meta.update(check=check, resume=state)
    body = [usage.agent, usage.project, [list(c) for c in usage.calls], [list(c) for c in usage.compactions]]
    cache.save(key, {"meta": orjson.dumps(meta), "usage": orjson.dumps(body)}, shard=shard)
    return usage
