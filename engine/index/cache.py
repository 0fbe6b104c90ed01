"""The index cache on disk: one file per transcript under ``$XDG_CACHE_HOME/ctxscope/index`` (``docs/index.md``).

A file is a JSON header line naming the format, its version and its sections (name, length, BLAKE2b digest),
then the sections back to back. A section is verified and parsed only when asked for, so ``status`` never pays
for the call records it does not show. Anything unexpected — another format version, a short file, a digest that
does not match, unparsable JSON — reads as "no cache": the caller rebuilds, and the next save replaces the file.

The cache fails open. Writes are atomic (temp file + rename, :func:`engine.fs.atomic.write_atomic`) but not
fsynced: the digest rejects what a power loss could leave. The first write that fails (a read-only or full
directory) turns the cache off for the rest of the process and is reported once through ``warn``; reading goes on
without it. The cache never lives inside a session store and holds derived data only.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
import time
from collections.abc import Callable, Mapping
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
]

FORMAT = "ctxscope-index"
FORMAT_VERSION = 1
"""Raised whenever what a section holds, or the rules that produced it, change: older files are then rebuilt."""

_DIGEST_BYTES = 16
_STALE_TEMP_SECONDS = 600.0
"""A temp file this old belongs to a writer that died (a write takes milliseconds)."""


def section_digest(data: bytes) -> str:
    """The digest an index file states for a section."""
    return hashlib.blake2b(data, digest_size=_DIGEST_BYTES).hexdigest()


_digest = section_digest


class UnusableIndex:
    """A stored file that cannot be used (another version, damaged): the caller rebuilds, and the save replaces it."""

    __slots__ = ()


UNUSABLE = UnusableIndex()


class LoadedIndex:
    """A verified header and the raw sections of one index file; :meth:`section` parses one on demand."""

    def __init__(self, sections: dict[str, tuple[bytes, str]]) -> None:
        self._sections = sections
        self._parsed: dict[str, Any] = {}

    def raw(self, name: str) -> bytes | None:
        """The section's bytes once its digest is checked; ``None`` when absent or damaged."""
        found = self._sections.get(name)
        if found is None:
            return None
        data, digest = found
        return data if _digest(data) == digest else None

    def unverified(self, name: str) -> tuple[bytes, str] | None:
        """The section's bytes and stated digest, unchecked: for a caller that checks them only if it uses them."""
        return self._sections.get(name)

    def section(self, name: str) -> Any:
        """The parsed section.

        Raises:
            KeyError: the section is missing, damaged or not JSON (the caller treats the file as absent).
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


def encode_index(sections: Mapping[str, bytes]) -> bytes:
    """The bytes of an index file holding ``sections`` (each already JSON-encoded)."""
    header = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "sections": [[name, len(data), _digest(data)] for name, data in sections.items()],
    }
    return b"".join([orjson.dumps(header), b"\n", *sections.values()])


def decode_index(data: bytes) -> LoadedIndex | None:
    """Split an index file into sections; ``None`` for another format or version, or a damaged layout."""
    head, newline, rest = data.partition(b"\n")
    if not newline:
        return None
    try:
        header = orjson.loads(head)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(header, dict) or header.get("format") != FORMAT or header.get("version") != FORMAT_VERSION:
        return None
    listed = header.get("sections")
    if not isinstance(listed, list):
        return None
    sections: dict[str, tuple[bytes, str]] = {}
    pos = 0
    for item in listed:
        if not (isinstance(item, list) and len(item) == 3 and isinstance(item[0], str)
                and isinstance(item[1], int) and isinstance(item[2], str)):
            return None
        name, length, digest = item
        if length < 0 or pos + length > len(rest):
            return None
        sections[name] = (rest[pos : pos + length], digest)
        pos += length
    return LoadedIndex(sections) if pos == len(rest) else None


class IndexCache:
    """Index files under ``root`` (``None``: a cache that is always empty and never writes).

    Safe to share between threads; several processes may use one directory (the last writer of a file wins, and
    every version it can hold is valid for the transcript it describes).
    """

    def __init__(self, root: Path | None, *, warn: Callable[[str], None] | None = None) -> None:
        self.root = root
        self.directory = index_dir(root) if root is not None else None
        self._prefix = os.path.join(self.directory, "") if self.directory is not None else None
        self.problem: str | None = None
        """Why the cache was turned off, once a write failed."""
        self._warn = warn
        self._lock = threading.Lock()
        self._swept = False

    @property
    def enabled(self) -> bool:
        return self.directory is not None and self.problem is None

    def path_for(self, key: str) -> Path | None:
        """The file that holds ``key``'s index (``None`` when the cache is off)."""
        name = self._name(key)
        return Path(name) if name is not None else None

    def _name(self, key: str) -> str | None:
        if self._prefix is None:
            return None
        return self._prefix + hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest() + ".idx"

    def load(self, key: str) -> LoadedIndex | UnusableIndex | None:
        """The index stored for ``key``; :data:`UNUSABLE` when a file is there but damaged or of another version;
        ``None`` when there is none (or it cannot be read)."""
        name = self._name(key)
        if name is None or self.problem is not None:
            return None
        try:
            with open(name, "rb") as handle:  # a plain str path: a report opens a thousand of these
                data = handle.read()
        except OSError:
            return None
        return decode_index(data) or UNUSABLE

    def save(self, key: str, sections: Mapping[str, bytes]) -> bool:
        """Store ``key``'s index; ``False`` (and the cache off from now on) when it cannot be written."""
        path = self.path_for(key)
        if path is None or self.problem is not None:
            return False
        try:
            write_atomic(path, encode_index(sections), mode=0o600, durable=False)
        except OSError as exc:
            self._disable(exc)
            return False
        if not self._swept:
            self._sweep()
        return True

    def _disable(self, exc: OSError) -> None:
        with self._lock:
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
