"""The index cache on disk under ``$XDG_CACHE_HOME/ctxscope/index`` (``docs/index.md``).

Indexes are stored by *shard*: the index of every transcript of one sessions directory lives in one file, so a
report over a thousand sessions reads one file and, cold, writes one — not a thousand. A follower's entries (large,
written on their own schedule) get a file each. A file is a JSON header line naming the format, its version and,
per key, its sections (name, offset, length, CRC-32), then the sections back to back. A section is checked
and parsed only when asked for, so ``status`` never pays for the call records it does not show. Anything
unexpected — another format version, a short file, a digest that does not match, unparsable JSON — reads as
"unusable": the caller rebuilds, and the next save replaces it.

The cache fails open. Writes are atomic (temp file + rename, :func:`engine.fs.atomic.write_atomic`) but not
fsynced: the digest rejects what a power loss could leave. Inside :meth:`IndexCache.batch` the saves to a shard
are written once, when the batch ends. The first write that fails (a read-only or full directory) turns the cache
off for the rest of the process and is reported once through ``warn``; reading goes on without it. Processes
sharing a shard overwrite each other's copy; every copy holds only indexes valid for the files they describe.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
import zlib
from _blake2 import blake2b  # hashlib.blake2b itself, without the OpenSSL load hashlib's import costs
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import orjson

from engine.fs.atomic import write_atomic
from engine.fs.layout import cache_root, index_dir

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "UNUSABLE",
    "IndexCache",
    "LoadedIndex",
    "UnusableIndex",
    "decode_index",
    "default_cache",
    "encode_index",
    "section_digest",
    "shard_of",
]

FORMAT = "ctxscope-index"
FORMAT_VERSION = 5  # 4: numbers bounded at the reader, the change time kept (docs/index.md); 5: pi's JSON.stringify
# length of tool-call arguments, usage records lacking parts, ids that are null (docs/pi.md)
"""Raised whenever what a section holds, or the rules that produced it, change: older files are then rebuilt."""

_STALE_TEMP_SECONDS = 600.0
"""A temp file this old belongs to a writer that died (a write takes milliseconds)."""

Blob = bytes | memoryview
"""A section's bytes: a slice of the file as read (a view, no copy), or bytes built here."""
Sections = Mapping[str, Blob]


def section_digest(data: bytes | memoryview) -> str:
    """The checksum an index file states for a section: CRC-32, which catches the damage a torn or corrupted file
    shows (it guards against accidents, not against someone forging a cache file)."""
    return f"{zlib.crc32(data):08x}"


def shard_of(path: str) -> str:
    """The shard a transcript's index lives in: its directory (every session of a sessions dir together)."""
    return os.path.dirname(path)


class UnusableIndex:
    """A stored index that cannot be used (another version, damaged): the caller rebuilds, and the save replaces it."""

    __slots__ = ()


UNUSABLE = UnusableIndex()


class LoadedIndex:
    """The stored sections of one key; :meth:`section` checks and parses one on demand."""

    def __init__(self, sections: dict[str, tuple[Blob, str]]) -> None:
        self._sections = sections
        self._parsed: dict[str, Any] = {}

    def raw(self, name: str) -> Blob | None:
        """The section's bytes once its digest is checked; ``None`` when absent or damaged."""
        found = self._sections.get(name)
        if found is None:
            return None
        data, digest = found
        return data if section_digest(data) == digest else None

    def unverified(self, name: str) -> tuple[Blob, str] | None:
        """The section's bytes and stated digest, unchecked: for a caller that checks them only if it uses them."""
        return self._sections.get(name)

    def section(self, name: str) -> Any:
        """The parsed section.

        Raises:
            KeyError: the section is missing, damaged or not JSON (the caller treats the index as unusable).
        """
        if name not in self._parsed:
            data = self.raw(name)
            if data is None:
                raise KeyError(name)
            try:
                self._parsed[name] = orjson.loads(data)
            except orjson.JSONDecodeError as exc:
                raise KeyError(name) from exc
        return self._parsed[name]


def encode_index(entries: Mapping[str, Sections]) -> bytes:
    """The bytes of an index file holding ``entries`` (key → sections, each already JSON or binary)."""
    return _encode({k: {n: (d, section_digest(d)) for n, d in v.items()} for k, v in entries.items()})


def _encode(entries: Mapping[str, Mapping[str, tuple[Blob, str]]]) -> bytes:
    """:func:`encode_index` of sections whose digest is already known: a shard's write does not checksum again
    what each save checksummed (docs/usage.md, Speed). A section kept from the file as read keeps the digest the
    file stated, so one damaged on disk stays detectably damaged in the copy written back."""
    listed: dict[str, list[list[Any]]] = {}
    body: list[bytes] = []
    pos = 0
    for key, sections in entries.items():
        listed[key] = []
        for name, (data, digest) in sections.items():
            listed[key].append([name, pos, len(data), digest])
            body.append(bytes(data))
            pos += len(data)
    header = {"format": FORMAT, "version": FORMAT_VERSION, "entries": listed}
    return b"".join([orjson.dumps(header), b"\n", *body])


def decode_index(data: bytes) -> dict[str, dict[str, tuple[Blob, str]]] | None:
    """Key → sections of an index file; ``None`` for another format or version, or a damaged layout."""
    head, newline, rest = data.partition(b"\n")
    if not newline:
        return None
    try:
        header = orjson.loads(head)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(header, dict) or header.get("format") != FORMAT or header.get("version") != FORMAT_VERSION:
        return None
    listed = header.get("entries")
    if not isinstance(listed, dict):
        return None
    view = memoryview(rest)
    out: dict[str, dict[str, tuple[Blob, str]]] = {}
    try:
        for key, sections in listed.items():
            found: dict[str, tuple[Blob, str]] = {}
            for name, offset, length, digest in sections:
                if not (isinstance(offset, int) and isinstance(length, int) and 0 <= offset <= offset + length
                        <= len(rest) and isinstance(digest, str)):
                    return None
                found[str(name)] = (view[offset : offset + length], digest)
            out[key] = found
    except (TypeError, ValueError):
        return None
    return out


class _Shard:
    """One index file's keys as this process knows them: as read, plus what it saved since."""

    def __init__(self, entries: dict[str, dict[str, tuple[Blob, str]]] | None, unusable: bool) -> None:
        self.entries = entries or {}
        self.unusable = unusable
        """The file was there but could not be read as an index (every key in it reads as unusable)."""
        self.dirty = False


class IndexCache:
    """Index files under ``root`` (``None``: a cache that is always empty and never writes).

    Safe to share between threads; several processes may use one directory.
    """

    def __init__(self, root: Path | None, *, warn: Callable[[str], None] | None = None) -> None:
        self.root = root
        self.directory = index_dir(root) if root is not None else None
        self.problem: str | None = None
        """Why the cache was turned off, once a write failed."""
        self._warn = warn
        self._lock = threading.RLock()
        self._swept = False
        self._shards: dict[str, _Shard] = {}
        self._batches = 0
        self._diverted: list[tuple[str, str | None, dict[str, bytes]]] | None = None

    def divert_saves(self) -> None:
        """From now on, saves write nothing: they are kept for :meth:`take_diverted` (a worker process that reads
        a share of a report's sessions hands what it would save to the process that writes: docs/usage.md, Speed).
        Loads still see them."""
        self._diverted = []

    def take_diverted(self) -> list[tuple[str, str | None, dict[str, bytes]]]:
        """The saves diverted since the last call, in order: ``(key, shard, sections)``."""
        found = self._diverted or []
        if self._diverted is not None:
            self._diverted = []
        return found

    @property
    def enabled(self) -> bool:
        return self.directory is not None and self.problem is None

    def file_for(self, shard: str) -> Path | None:
        """The file that holds ``shard`` (``None`` when the cache is off)."""
        if self.directory is None:
            return None
        name = blake2b(shard.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
        return self.directory / f"{name}.idx"

    @staticmethod
    def _read(path: Path | None) -> _Shard:
        try:
            with open(str(path), "rb") as handle:  # a plain str path: a report may open many of these
                data = handle.read()
        except OSError:
            return _Shard(None, False)
        entries = decode_index(data)
        return _Shard(entries, entries is None)

    def _shard(self, shard: str) -> _Shard:
        found = self._shards.get(shard)
        if found is None:
            found = self._shards[shard] = self._read(self.file_for(shard))
        return found

    def load(self, key: str, *, shard: str | None = None) -> LoadedIndex | UnusableIndex | None:
        """The index stored for ``key`` (in ``shard``, else in a file of its own); :data:`UNUSABLE` when a file is
        there but damaged or of another version; ``None`` when there is none.

        A shard is read once per process and kept (this process's saves update it); a file of its own is read on
        every call and never kept (a follower's entries are large, and each is read once).
        """
        if not self.enabled:
            return None
        with self._lock:
            stored = self._shard(shard) if shard is not None else self._read(self.file_for(key))
            sections = stored.entries.get(key)
            if sections is None:
                return UNUSABLE if stored.unusable else None
            return LoadedIndex(sections)

    def save(self, key: str, sections: Sections, *, shard: str | None = None) -> bool:
        """Store ``key``'s index (written at once, or when the current :meth:`batch` ends); ``False`` when the
        cache is off or the write failed (the cache is then off from now on)."""
        if not self.enabled:
            return False
        data = {n: bytes(d) for n, d in sections.items()}
        entry: dict[str, tuple[Blob, str]] = {n: (d, section_digest(d)) for n, d in data.items()}
        with self._lock:
            if self._diverted is not None:
                self._diverted.append((key, shard, data))
                if shard is None:
                    return True
                stored = self._shard(shard)
                stored.entries[key] = entry
                stored.unusable = False
                return True  # never dirty: a diverting process writes nothing
            if shard is None:
                return self._write(key, _Shard({key: entry}, False))
            stored = self._shard(shard)
            stored.entries[key] = entry
            stored.unusable = False
            stored.dirty = True
            if self._batches:
                return True
            return self._write(shard, stored)

    @contextlib.contextmanager
    def batch(self) -> Iterator[IndexCache]:
        """Saves inside are written once per shard when the outermost batch ends."""
        with self._lock:
            self._batches += 1
        try:
            yield self
        finally:
            with self._lock:
                self._batches -= 1
                if not self._batches:
                    self.flush()

    def flush(self) -> bool:
        """Write every shard with unsaved indexes; ``False`` when a write failed."""
        with self._lock:
            ok = True
            for name, stored in list(self._shards.items()):
                if stored.dirty and self.enabled:
                    ok = self._write(name, stored) and ok
            return ok

    def _write(self, name: str, stored: _Shard) -> bool:
        path = self.file_for(name)
        assert path is not None
        data = _encode(stored.entries)
        try:
            write_atomic(path, data, mode=0o600, durable=False)
        except OSError as exc:
            self._disable(exc)
            return False
        stored.dirty = False
        if not self._swept:
            self._sweep()
        return True

    def _disable(self, exc: OSError) -> None:
        if self.problem is not None:
            return
        reason = exc.strerror or str(exc)
        self.problem = f"index cache disabled: cannot write {self.directory} ({reason}); running without it"
        if self._warn is not None:
            self._warn(self.problem)

    def _sweep(self) -> None:
        """Remove temp files left by writers that were killed mid-write (once per process)."""
        self._swept = True
        assert self.directory is not None
        now = time.time()
        try:
            names = [n for n in os.listdir(self.directory) if n.startswith(".") and n.endswith(".tmp")]
        except OSError:
            return
        for name in names:
            path = self.directory / name
            with contextlib.suppress(OSError):
                if now - path.stat().st_mtime > _STALE_TEMP_SECONDS:
                    path.unlink()


def default_cache(
    env: Mapping[str, str] | None = None, *, warn: Callable[[str], None] | None = None
) -> IndexCache:
    """The user's cache (``$XDG_CACHE_HOME/ctxscope``); off when ``CTXSCOPE_NO_INDEX`` is set to a non-empty value."""
    env = os.environ if env is None else env
    if env.get("CTXSCOPE_NO_INDEX"):
        return IndexCache(None, warn=warn)
    return IndexCache(cache_root(env), warn=warn)
