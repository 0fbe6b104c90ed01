"""A full reader's entries kept in the index cache, so a follower restarts where it stopped (``docs/index.md``).

The TUI and ``watch`` index every entry of every session they follow. :func:`save_reader` stores what a
:class:`~engine.stores.transcript.TranscriptReader` learned (entries, malformed lines, the parser's state and the
offset) under the same checks as the scan index — device, inode, size, modification time and the digest of the
bytes at both ends of what was read — and :func:`restore_reader` hands back a reader that continues from that
offset, or ``None`` when the stored entries no longer describe the file. Entries are compressed with zstd: a
session's entries are a few percent of its bytes, and they repeat.
"""

from __future__ import annotations

import os
from pathlib import Path
from sys import intern
from typing import Any

import orjson

from engine.index.cache import IndexCache, LoadedIndex
from engine.index.transcript_index import file_check
from engine.stores.entries import Entry, Usage
from engine.stores.transcript import BadLine, EntryParser, TranscriptReader

__all__ = ["restore_reader", "save_reader"]

_USAGE = 9
_TOOL_CALLS = 19
_NAMES = (3, 7, 10, 11, 12, 20)
"""Entry fields that repeat on every line (type, role, stop reason, provider, model, tool): interned on restore."""


def _key(path: Path) -> str:
    return "entries:" + os.path.abspath(path)


def _row(entry: Entry) -> tuple[Any, ...]:
    usage = entry.usage
    return (*entry[:_USAGE], tuple(usage) if usage is not None else None, *entry[_USAGE + 1 :])


def _entry(row: list[Any]) -> Entry:
    for i in _NAMES:
        if type(row[i]) is str:
            row[i] = intern(row[i])
    usage = row[_USAGE]
    row[_USAGE] = Usage(*usage) if usage is not None else None
    row[_TOOL_CALLS] = tuple(row[_TOOL_CALLS])
    return Entry(*row)


def save_reader(cache: IndexCache, reader: TranscriptReader) -> bool:
    """Store what ``reader`` has read so far; ``False`` when the cache is off or the file is not the one read.

    Raises:
        OSError: the transcript cannot be read to check it.
    """
    if not cache.enabled or reader.inode is None:
        return False
    import zstandard

    fd = os.open(reader.path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if st.st_ino != reader.inode or st.st_size < reader.offset:
            return False  # replaced or truncated since it was read: what the reader holds describes another file
        meta = {
            "path": _key(reader.path), "dev": st.st_dev, "ino": st.st_ino, "size": st.st_size,
            "mtime_ns": st.st_mtime_ns, "ctime_ns": st.st_ctime_ns, "offset": reader.offset,
            "line_no": reader.line_no,
            "check": file_check(fd, reader.offset), "parser": reader.parser.state(),
            "bad_lines": [[b.line_no, b.offset, b.reason, b.recovered] for b in reader.bad_lines],
        }
    finally:
        os.close(fd)
    rows = orjson.dumps([_row(e) for e in reader.entries])
    compressed = zstandard.ZstdCompressor(level=1).compress(rows)
    return cache.save(_key(reader.path), {"meta": orjson.dumps(meta), "entries": compressed})


def _restore(path: Path, loaded: LoadedIndex, st: os.stat_result, fd: int) -> TranscriptReader | None:
    meta = loaded.section("meta")
    if not isinstance(meta, dict) or meta.get("path") != _key(path):
        return None
    offset = meta["offset"]
    if (meta["dev"], meta["ino"]) != (st.st_dev, st.st_ino) or st.st_size < offset:
        return None
    if st.st_size == meta["size"] and (st.st_mtime_ns, st.st_ctime_ns) != (meta["mtime_ns"], meta.get("ctime_ns")):
        return None
    if file_check(fd, offset) != meta["check"]:
        return None
    compressed = loaded.raw("entries")
    if compressed is None:
        return None
    import zstandard

    rows = orjson.loads(zstandard.ZstdDecompressor().decompress(bytes(compressed)))
    entries = [_entry(row) for row in rows]
    bad = [BadLine(int(n), int(o), str(r), bool(rec)) for n, o, r, rec in meta["bad_lines"]]
    return TranscriptReader.resume(path, offset=offset, line_no=meta["line_no"], inode=st.st_ino, entries=entries,
                                   bad_lines=bad, parser=EntryParser.restore(meta["parser"]))


def restore_reader(cache: IndexCache | None, path: Path) -> TranscriptReader | None:
    """A reader that continues where a saved one stopped, or ``None`` (nothing stored, or it no longer fits)."""
    if cache is None or not cache.enabled:
        return None
    loaded = cache.load(_key(path))
    if not isinstance(loaded, LoadedIndex):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        return _restore(path, loaded, os.fstat(fd), fd)
    except Exception:  # noqa: BLE001 - a damaged store of derived data is only a reason to read the file again
        return None
    finally:
        os.close(fd)
