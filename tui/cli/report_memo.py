"""The last output of a usage report, kept with a stamp of everything it was made from (``docs/usage.md``).

A report over a thousand unchanged sessions used to redo its whole work on every run: discovery (a listing and
a sniff of every file), one index lookup per session, and pricing every call again. Here a run first takes a
*stamp*: device, inode, size, modification and change times of every file and directory under the report's
roots, of the OpenClaw SQLite store that may sit beside a root (``../agent/openclaw-agent.sqlite``, which
discovery looks for outside the root), and of ctxscope's own code, hashed with the report's options. When the
stamp equals the one stored with the last output, that output is the answer; otherwise the report runs —
through the per-file indexes, so it re-reads only the files that changed — and its output is stored under the
stamp taken before it read anything (a file that changes meanwhile changes the next stamp).

A root that is a file, not a directory, or a symbolic link met anywhere in the walk (its target lies outside the
stamp) turns the memo off for that run. Like the index, the memo fails open: any problem reading or writing it
means the report runs.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import struct
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from engine.fs.atomic import write_atomic
from engine.stores.source import SQLITE_NAME

__all__ = ["MemoOutput", "load_output", "report_stamp", "save_output"]

_FORMAT = b"ctxscope-report-memo 1\n"
_ANCESTORS = 3
"""Levels above a root where an OpenClaw SQLite store beside it is looked for (``agents/<id>/agent/``): its
presence turns the root's transcripts into legacy files (docs/openclaw.md)."""
_CODE = (Path(__file__).resolve().parents[1], Path(__file__).resolve().parents[2] / "tui" / "cli")
"""ctxscope's own engine and command line: an upgrade or an edit changes what a report prints."""

_BYTECODE = frozenset({"__pycache__"})
MemoOutput = tuple[int, bytes, bytes]
"""Exit code, stdout and stderr of a report run."""


def _walk(root: str, out: Any, pack: struct.Struct, skip: frozenset[str]) -> bool:
    """Hash every entry under ``root`` in name order but ``skip``; ``False`` on a symbolic link or an unreadable
    directory."""
    try:
        with os.scandir(root) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError:
        return False
    for entry in entries:
        if entry.name in skip:
            continue
        if entry.is_symlink():
            return False
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            return False
        out.update(entry.path.encode("utf-8", "surrogateescape") + b"\0")
        out.update(pack.pack(st.st_mode, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
        if stat.S_ISDIR(st.st_mode) and not _walk(entry.path, out, pack, skip):
            return False
    return True


def report_stamp(roots: Sequence[Path], options: Iterable[str]) -> str | None:
    """The stamp of a report over ``roots`` with ``options`` (everything else that shapes its output), or
    ``None`` when it cannot be taken safely (a root that is a file or a link, a link inside)."""
    out = hashlib.blake2b(digest_size=20)
    pack = struct.Struct("<QQQQqq")
    for option in options:
        out.update(option.encode("utf-8", "surrogateescape") + b"\0")
    code = [str(r) for r in _CODE]  # a list: a set's order changes with each process's string hashing
    for root in [*code, *(os.path.abspath(r) for r in roots)]:
        out.update(b"\1" + root.encode("utf-8", "surrogateescape") + b"\0")
        try:
            st = os.lstat(root)
        except FileNotFoundError:
            out.update(b"absent")
        except OSError:
            return None
        else:
            if not stat.S_ISDIR(st.st_mode):
                return None
            out.update(pack.pack(st.st_mode, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
            # Bytecode is written on first import: it follows the sources, which are stamped.
            if not _walk(root, out, pack, _BYTECODE if root in code else frozenset()):
                return None
        parent = root
        for _ in range(_ANCESTORS):
            parent = os.path.dirname(parent)
            try:
                st = os.stat(os.path.join(parent, "agent", SQLITE_NAME))
            except OSError:
                out.update(b"\2")
            else:
                out.update(pack.pack(st.st_mode, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return out.hexdigest()


def _file(directory: Path, options: Iterable[str]) -> Path:
    name = hashlib.blake2b("\0".join(options).encode("utf-8", "surrogateescape"), digest_size=12).hexdigest()
    return directory / f"{name}.out"


def load_output(directory: Path, options: Sequence[str], stamp: str) -> MemoOutput | None:
    """The output stored for ``options`` under ``stamp``, or ``None``."""
    try:
        data = _file(directory, options).read_bytes()
    except OSError:
        return None
    head = _FORMAT + stamp.encode() + b"\n"
    if not data.startswith(head):
        return None
    try:
        code, out_len, err_len = struct.unpack_from("<iQQ", data, len(head))
    except struct.error:
        return None
    body = data[len(head) + 20:]
    if len(body) != out_len + err_len:
        return None
    return code, body[:out_len], body[out_len:]


def save_output(directory: Path, options: Sequence[str], stamp: str, output: MemoOutput) -> None:
    """Store ``output`` for ``options`` under ``stamp`` (best effort: a failed write only costs the next run)."""
    code, out, err = output
    path = _file(directory, options)
    data = _FORMAT + stamp.encode() + b"\n" + struct.pack("<iQQ", code, len(out), len(err)) + out + err
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_atomic(path, data, durable=False, sync_dir=False)
