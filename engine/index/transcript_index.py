"""A JSONL transcript's index, kept up to date from its cache so that a read costs what the new bytes cost.

:func:`index_transcript` loads what an earlier run learned, checks that it still describes the file, scans the
bytes appended since, and stores the result again. The stored index is trusted only when the file is the same
one (device and inode), did not shrink below the indexed offset, and still has the same first bytes and the same
bytes just before that offset (BLAKE2b of up to 4 KiB each); a file of the same size with a new modification
time is taken as rewritten in place. Anything else is rebuilt from the first byte (``docs/index.md``).

pi and OpenClaw only append to a transcript, or replace it whole (migration, repair, reset: a new inode). An
edit in the middle that keeps the size and the modification time, or comes with an append, is not detected.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import orjson

from engine.index.cache import IndexCache, LoadedIndex, section_digest, shard_of
from engine.index.file_check import bytes_check, file_check
from engine.index.records import CompactionRecord, HeaderInfo, UsageRecord
from engine.index.scanner import ScanState, resolve_calls, scan_file

__all__ = ["CacheOutcome", "DamagedSectionError", "TranscriptIndex", "bytes_check", "file_check", "index_transcript",
           "stored_key"]

CacheOutcome = Literal["off", "cold", "warm", "extended", "rebuilt"]
"""``off``: no cache; ``cold``: none stored; ``warm``: nothing new; ``extended``: new bytes scanned on top of the
stored index; ``rebuilt``: the stored index no longer described the file."""

_EMPTY_DIGEST = section_digest(b"[]")
_EMPTY_HEADER = HeaderInfo(None, None, 3, True)

GaugeProbe = Callable[[int], Mapping[str, Any]]
"""Computes the tail gauge of the open descriptor, as a JSON-able mapping the index stores verbatim."""


@dataclass(frozen=True, slots=True)
class TranscriptIndex:
    """What the index knows about a transcript, as of :attr:`offset`."""

    path: Path
    size: int
    """File size when it was read (a partial last line beyond :attr:`offset` included)."""
    offset: int
    """End of the last complete line indexed."""
    lines: int
    """Non-blank lines up to :attr:`offset` (the header, the entries, and any malformed line)."""
    header: HeaderInfo
    compactions: tuple[CompactionRecord, ...]
    calls: tuple[UsageRecord, ...] | None
    """Every billed call, when asked for (``None`` otherwise: ``status`` never parses them)."""
    bad_lines: int
    """Malformed lines among those the index parsed (it does not parse every line)."""
    gauge: Mapping[str, Any] | None
    """The tail gauge stored for :attr:`offset`, when one was asked for."""
    scanned_bytes: int
    """Bytes read and scanned by this call (0 when the stored index was current)."""
    cache: CacheOutcome


class DamagedSectionError(KeyError):
    """A stored section does not match its digest or is not JSON: the stored index is rebuilt."""


class _Section:
    """A JSON array section: kept as stored bytes until someone needs its items, appended to either way.

    Stored bytes are checked against their digest only when they are used — parsed, or written back — so a
    ``status`` never hashes the call records it does not read, and damage is never copied into a new file.
    """

    def __init__(self, raw: bytes | memoryview | None = None, digest: str | None = None) -> None:
        self._raw = raw
        self._digest = digest
        """The stated digest of :attr:`_raw` while it is unchecked (``None`` once checked or built here)."""
        self._items: list[Any] | None = None if raw is not None else []

    def _checked(self) -> bytes | memoryview:
        assert self._raw is not None
        if self._digest is not None:
            expected = _EMPTY_DIGEST if self._raw == b"[]" else section_digest(self._raw)  # most are empty
            if expected != self._digest:
                raise DamagedSectionError("section digest")
            self._digest = None
        return self._raw

    def items(self) -> list[Any]:
        if self._items is None and self._raw == b"[]" and self._digest in (None, _EMPTY_DIGEST):
            self._raw, self._digest, self._items = None, None, []
        if self._items is None:
            try:
                self._items = orjson.loads(self._checked())
            except orjson.JSONDecodeError as exc:
                raise DamagedSectionError("section json") from exc
            if not isinstance(self._items, list):
                raise DamagedSectionError("section type")
            self._raw = None
        return self._items

    def extend(self, values: Iterable[Any]) -> None:
        values = list(values)
        if not values:
            return
        if self._items is not None:
            self._items.extend(values)
            return
        raw = bytes(self._checked())
        tail = orjson.dumps(values)
        # Two JSON arrays joined as bytes, so an unread section is never parsed just to grow it.
        self._raw = tail if raw == b"[]" else raw[:-1] + b"," + tail[1:]

    def encode(self) -> bytes | memoryview:
        return self._checked() if self._raw is not None else orjson.dumps(self._items)

    def clear(self) -> None:
        self._raw, self._digest, self._items = None, None, []


class _Stored:
    """A stored index being brought up to date: the scan state plus the sections it keeps unread."""

    def __init__(self, key: str, st: os.stat_result) -> None:
        self.key = key
        self.st = st
        self.scan = ScanState()
        self.calls = _Section()
        self.pending = _Section()
        self.gauge: Mapping[str, Any] | None = None
        self.gauge_offset = -1

    @classmethod
    def restore(cls, key: str, st: os.stat_result, fd: int, loaded: LoadedIndex) -> _Stored | None:
        """The stored state if it still describes the file, else ``None``.

        Raises:
            KeyError: a section is damaged.
        """
        core = loaded.section("core")
        if not isinstance(core, dict) or core.get("path") != key:
            return None
        offset = core["offset"]
        if (core["dev"], core["ino"]) != (st.st_dev, st.st_ino) or st.st_size < offset:
            return None  # replaced (rotation, rewrite) or truncated
        if st.st_size == core["size"] and (st.st_mtime_ns, st.st_ctime_ns) != (core["mtime_ns"], core.get("ctime_ns")):
            # Same size, a new content or change time: rewritten in place (`rsync --inplace -t` restores the
            # mtime, never the ctime; docs/index.md).
            return None
        if file_check(fd, offset) != core["check"]:
            return None  # edited where we already read
        header = core["header"]
        state = cls(key, st)
        scan = state.scan
        scan.offset, scan.line_no, scan.lines, scan.bad_lines = offset, core["line_no"], core["lines"], core["bad"]
        scan.header = HeaderInfo(*header) if header is not None else None
        if scan.legacy and st.st_size > offset:
            return None  # v1 ids depend on every earlier line: a grown v1 file is read again
        scan.compactions = [*map(CompactionRecord._make, core["compactions"])]
        calls, pending = loaded.unverified("calls"), loaded.unverified("pending")
        if calls is None or pending is None:
            raise DamagedSectionError("calls")
        state.calls, state.pending = _Section(*calls), _Section(*pending)
        state.gauge, state.gauge_offset = core["gauge"], core["gauge_offset"]
        return state

    def sections(self, fd: int) -> dict[str, bytes | memoryview]:
        scan, st = self.scan, self.st
        core = {
            "path": self.key, "dev": st.st_dev, "ino": st.st_ino, "size": st.st_size, "mtime_ns": st.st_mtime_ns,
            "ctime_ns": st.st_ctime_ns,
            "offset": scan.offset, "line_no": scan.line_no, "lines": scan.lines, "bad": scan.bad_lines,
            "header": list(scan.header) if scan.header is not None else None, "check": file_check(fd, scan.offset),
            "gauge": self.gauge, "gauge_offset": self.gauge_offset, "compactions": [list(r) for r in scan.compactions],
        }
        return {"core": orjson.dumps(core), "calls": self.calls.encode(), "pending": self.pending.encode()}


def _scan_new(state: _Stored, fd: int) -> int:
    scan = state.scan
    before_calls, before_pending = len(scan.calls), len(scan.pending)
    scanned = scan_file(fd, scan, state.st.st_size)
    state.calls.extend(list(r) for r in scan.calls[before_calls:])
    state.pending.extend(v for span in scan.pending[before_pending:] for v in span)
    del scan.calls[:], scan.pending[:]  # the sections hold them now
    return scanned


def _resolve(state: _Stored, fd: int) -> bool:
    flat = state.pending.items()
    if not flat:
        return False
    spans = [(flat[i], flat[i + 1], flat[i + 2]) for i in range(0, len(flat), 3)]
    calls, compactions, bad = resolve_calls(fd, spans)
    state.calls.extend(list(r) for r in calls)
    if compactions:
        state.scan.compactions = sorted([*state.scan.compactions, *compactions], key=lambda r: r.line)
    state.scan.bad_lines += bad
    state.pending.clear()
    return True


def stored_key(path: str | Path) -> str:
    """The key the index of the transcript at ``path`` is stored under (in the shard :func:`shard_of` names)."""
    return os.path.abspath(path)  # no resolve(): a symlinked path just gets its own entry, checked by inode


def index_transcript(
    path: Path,
    cache: IndexCache | None = None,
    *,
    fd: int | None = None,
    calls: bool = False,
    gauge: GaugeProbe | None = None,
) -> TranscriptIndex:
    """Bring the index of the JSONL transcript at ``path`` up to date (scanning only new bytes) and return it.

    Args:
        cache: where indexes are stored (``None`` or a disabled cache: everything is scanned, nothing stored).
        fd: an open descriptor of ``path`` to read through (left open); default: one opened here.
        calls: also parse every billed call (what ``report`` needs; ``status`` does not).
        gauge: computes the tail gauge when the stored one is not for the current offset.

    Raises:
        OSError: the transcript cannot be read, or it shrank while being read twice in a row.
    """
    own = fd is None
    if fd is None:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        try:
            return _index(path, cache, fd, calls, gauge)
        except (OSError, DamagedSectionError):
            # Truncated while we read it, or a stored section found damaged once used: start over once from the
            # file as it is now.
            return _index(path, cache, fd, calls, gauge, fresh=True)
    finally:
        if own:
            os.close(fd)


def _index(
    path: Path, cache: IndexCache | None, fd: int, calls: bool, gauge: GaugeProbe | None, *, fresh: bool = False
) -> TranscriptIndex:
    st = os.fstat(fd)
    key = stored_key(path)
    enabled = cache is not None and cache.enabled
    outcome: CacheOutcome = "off" if not enabled else "rebuilt" if fresh else "cold"
    state: _Stored | None = None
    if enabled and not fresh:
        assert cache is not None
        loaded = cache.load(key, shard=shard_of(key))
        if isinstance(loaded, LoadedIndex):
            try:
                state = _Stored.restore(key, st, fd, loaded)
            except (KeyError, TypeError, ValueError, IndexError):
                state = None  # damaged: rebuilt like a stale one
            outcome = "rebuilt" if state is None else "warm"
        elif loaded is not None:
            outcome = "rebuilt"
    if state is None:
        state = _Stored(key, st)
    changed = outcome != "warm"
    if calls and _resolve(state, fd):  # the located lines come before any new one: file order is kept
        changed = True
    state.scan.parse_calls = calls
    scanned = _scan_new(state, fd)
    if scanned:
        changed = True
        outcome = "extended" if outcome == "warm" else outcome
    if gauge is not None and state.gauge_offset != state.scan.offset:
        state.gauge, state.gauge_offset = dict(gauge(fd)), state.scan.offset
        changed = True
    if scanned and os.fstat(fd).st_size < state.scan.offset:
        raise OSError(f"{path} shrank while it was indexed")
    if enabled and changed:
        assert cache is not None
        cache.save(key, state.sections(fd), shard=shard_of(key))
    scan = state.scan
    return TranscriptIndex(
        path=path if isinstance(path, Path) else Path(path),
        size=st.st_size,
        offset=scan.offset,
        lines=scan.lines,
        header=scan.header or _EMPTY_HEADER,
        compactions=tuple(scan.compactions),
        calls=tuple(map(UsageRecord._make, state.calls.items())) if calls else None,
        bad_lines=scan.bad_lines,
        gauge=state.gauge if gauge is not None else None,
        scanned_bytes=scanned,
        cache=outcome,
    )
