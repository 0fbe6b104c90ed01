"""The last output of a usage report, kept with a stamp of everything it was made from (``docs/usage.md``).

A report over a thousand unchanged sessions used to redo its whole work on every run: discovery (a listing and
a sniff of every file), one index lookup per session, and pricing every call again. Here a run first takes a
*stamp*: device, inode, size, modification and change times of every file and directory under the report's
roots, of the OpenClaw SQLite store that may sit beside a root (``../agent/openclaw-agent.sqlite``, which
discovery looks for outside the root), and of ctxscope's own code, hashed with the report's options. When the
stamp equals the one stored with the last output, that output is the answer; otherwise the report runs —
through the per-file indexes, so it re-reads only the files that changed — and its output is stored under the
stamp taken before it read anything (a file that changes meanwhile changes the next stamp).

Two records answer a repeated report. The *output* record is keyed by the parsed options, so any spelling of
the same report finds it once the command line is parsed. The *invocation* record is keyed by the command line
as typed, the working directory, the whole environment and the local time zone, and holds the output as shown
beside a *listing*: every path under the roots and ctxscope's code, the config file and the OpenClaw stores
beside the roots, with their status when the report started. :func:`answer_invocation` checks it before the
command line, the engine or anything else is imported, with one ``stat`` per path and no directory listing: a
directory's times change whenever an entry is added, removed or renamed in it, so an unchanged directory still
holds the listed entries. A directory changed in the two seconds before the report could change again within the
same timestamp tick unseen, so such a listing is not stored (git's "racily clean" entries; docs/usage.md).

A root that is a file, not a directory, or a symbolic link met anywhere in the walk (its target lies outside the
stamp) turns the memo off for that run. Like the index, the memo fails open: any problem reading or writing it
means the report runs.

This module imports only what Python has loaded at start-up (``os``, ``stat``, ``time``) and ``_blake2`` and
``_struct`` (``hashlib`` and ``struct`` load OpenSSL and more): it runs before every warm report.
"""

from __future__ import annotations

import os
import stat
import time
from _blake2 import blake2b  # what hashlib.blake2b is, without hashlib's OpenSSL load
from _struct import Struct

__all__ = ["Listing", "MemoOutput", "Walk", "answer_invocation", "invocation_key", "load_output", "report_stamp",
           "save_invocation", "save_output", "stamp_of", "take_listing"]

_FORMAT = b"ctxscope-report-memo 1\n"
_INVOCATION_FORMAT = b"ctxscope-report-invocation 2\n"
_ANCESTORS = 3
"""Levels above a root where an OpenClaw SQLite store beside it is looked for (``agents/<id>/agent/``): its
presence turns the root's transcripts into legacy files (docs/openclaw.md)."""
SQLITE_NAME = "openclaw-agent.sqlite"
"""The OpenClaw store's file name, spelled out so that the entry path imports no engine module (tested equal to
the engine's)."""
_HERE = os.path.dirname(os.path.abspath(__file__))
_CODE = (os.path.join(os.path.dirname(os.path.dirname(_HERE)), "engine"), _HERE)
"""ctxscope's own engine and command line: an upgrade or an edit changes what a report prints."""

_BYTECODE = frozenset({"__pycache__"})
_PACK = Struct("<QQQQqq")
_SIZES = Struct("<iQQ")
MemoOutput = tuple[int, bytes, bytes]
"""Exit code, stdout and stderr of a report run."""


def _name(parts: list[str] | tuple[str, ...]) -> str:
    return blake2b("\0".join(parts).encode("utf-8", "surrogateescape"), digest_size=12).hexdigest()


def _file(directory: str | os.PathLike[str], options: list[str] | tuple[str, ...]) -> str:
    return os.path.join(directory, f"{_name(options)}.out")


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as stored:
            return stored.read()
    except OSError:
        return None


def _write(path: str, data: bytes) -> None:
    """Best effort: a failed write only costs the next run."""
    from pathlib import Path  # only a run that computed a report writes; it has the engine loaded

    from engine.fs.atomic import write_atomic

    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        write_atomic(Path(path), data, durable=False, sync_dir=False)
    except OSError:
        pass


def load_output(directory: str | os.PathLike[str], options: list[str] | tuple[str, ...],
                stamp: str) -> MemoOutput | None:
    """The output stored for ``options`` under ``stamp``, or ``None``."""
    data = _read(_file(directory, options))
    head = _FORMAT + stamp.encode() + b"\n"
    if data is None or not data.startswith(head) or len(data) < len(head) + _SIZES.size:
        return None
    code, out_len, err_len = _SIZES.unpack_from(data, len(head))
    body = data[len(head) + _SIZES.size:]
    if len(body) != out_len + err_len:
        return None
    return code, body[:out_len], body[out_len:]


def save_output(directory: str | os.PathLike[str], options: list[str] | tuple[str, ...], stamp: str,
                output: MemoOutput) -> None:
    """Store ``output`` for ``options`` under ``stamp`` (best effort: a failed write only costs the next run)."""
    code, out, err = output
    _write(_file(directory, options),
           _FORMAT + stamp.encode() + b"\n" + _SIZES.pack(code, len(out), len(err)) + out + err)


def reports_dir(env: dict[str, str] | os._Environ[str]) -> str | None:
    """Where report memos live: ``reports`` beside the index directory of the user's cache
    (:func:`engine.fs.layout.cache_root`, spelled out here and tested equal), ``None`` when the cache is off
    (``CTXSCOPE_NO_INDEX``)."""
    if env.get("CTXSCOPE_NO_INDEX"):
        return None
    base = env.get("XDG_CACHE_HOME")
    if base and os.path.isabs(base):
        return os.path.join(base, "ctxscope", "reports")
    home = env.get("HOME") or os.path.expanduser("~")
    return os.path.join(home, ".cache", "ctxscope", "reports")


def invocation_key(argv: list[str] | tuple[str, ...], env: dict[str, str] | os._Environ[str]) -> list[str]:
    """What a command line as typed means beyond itself: the working directory (relative paths), every
    environment variable (config, cache and discovery locations) and the local time zone now (a report cuts its
    days in it; a DST change changes it)."""
    local = time.localtime()
    return [str(len(argv)), *argv, os.getcwd(), *sorted(f"{k}={v}" for k, v in env.items()),
            f"zone={local.tm_zone}|{local.tm_gmtoff}"]


def _fields(values: list[str] | tuple[str, ...]) -> bytes:
    return "\0".join(values).encode("utf-8", "surrogateescape")


_ABSENT = bytes(_PACK.size)
_RACY_NS = 2_000_000_000
"""A directory changed this recently may change again within the same timestamp tick, unseen by its times:
its listing is not trusted (like git's racily clean entries)."""


def _stats(tree: list[str], followed: list[str], kept: dict[str, os.stat_result] | None = None) -> bytes | None:
    """The packed status of every path, ``tree`` not following links, ``followed`` following them (a config
    file kept as a link to dotfiles); ``None`` when one cannot be read. ``kept``: filled with each ``tree``
    path's status (a cold report's discovery takes them)."""
    out: list[bytes] = []
    add, pack = out.append, _PACK.pack  # bound once: this loop is most of a warm report's own time
    for paths, look in ((tree, os.lstat), (followed, os.stat)):
        for path in paths:
            try:
                st = look(path)
            except FileNotFoundError:
                add(_ABSENT)
                continue
            except OSError:
                return None
            add(pack(st.st_mode, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
            if kept is not None and paths is tree:
                kept[path] = st
    return b"".join(out)


def _listing(root: str, found: list[str], skip: frozenset[str], names: dict[str, list[str]]) -> bool:
    """Every path under ``root`` into ``found`` and each directory's entry names into ``names``; ``False`` on a
    symbolic link or an unreadable directory."""
    try:
        with os.scandir(root) as listing:
            entries = list(listing)
    except OSError:
        return False
    here = names[root] = []
    for entry in entries:
        if entry.name in skip:
            continue
        if entry.is_symlink():
            return False
        found.append(entry.path)
        here.append(entry.name)
        if entry.is_dir(follow_symlinks=False) and not _listing(entry.path, found, skip, names):
            return False
    return True


Listing = tuple[list[str], list[str], bytes, bool]
"""The paths walked without following links, those followed, their packed status, and whether a directory
changed in the last two seconds (:func:`take_listing`)."""
Walk = tuple[dict[str, list[str]], dict[str, os.stat_result]]
"""The walk a listing was taken from: each directory's entry names and each walked path's ``lstat``, by absolute
path — what discovery takes instead of walking the same tree again (:data:`engine.agents.discovery.Walked`)."""


def take_listing(roots: list[str], files: tuple[str, ...] = (), walk: Walk | None = None) -> Listing | None:
    """What a report's output is stored against: every path under ``roots`` and ctxscope's code, the OpenClaw
    stores that may sit beside a root, the ``files`` (config) — and their status now. A directory's times change
    whenever an entry is added, removed or renamed in it, so checking the status of every listed path also sees a
    new file (docs/usage.md). ``None`` when it cannot be taken safely: a root that is a file, a link inside.

    ``walk``: filled with the walk itself (:data:`Walk`) when the listing is taken."""
    since_ns = time.time_ns() - _RACY_NS
    code = list(_CODE)  # a list: a set's order changes with each process's string hashing
    tree: list[str] = []
    followed = list(files)
    names: dict[str, list[str]] = {}
    for root in [*code, *(os.path.abspath(r) for r in roots)]:
        tree.append(root)
        try:
            st = os.lstat(root)
        except FileNotFoundError:
            st = None
        except OSError:
            return None
        if st is not None:
            if not stat.S_ISDIR(st.st_mode):
                return None
            # Bytecode is written on first import: it follows the sources, which are listed.
            if not _listing(root, tree, _BYTECODE if root in code else frozenset(), names):
                return None
        parent = root
        for _ in range(_ANCESTORS):
            parent = os.path.dirname(parent)
            followed.append(os.path.join(parent, "agent", SQLITE_NAME))
    kept: dict[str, os.stat_result] = {}
    stats = _stats(tree, followed, kept)
    if stats is None:
        return None
    # Racy: a directory whose stored times are this recent (taken after its entries were listed). The statuses
    # stored serve: a second lstat of each directory for this was a thousand for Codex's day directories.
    racy = any(stat.S_ISDIR(st.st_mode) and max(st.st_mtime_ns, st.st_ctime_ns) >= since_ns for st in kept.values())
    if walk is not None:
        walk[0].update(names)
        walk[1].update(kept)
    return tree, followed, stats, racy


def report_stamp(roots: list[str], options: list[str], files: tuple[str, ...] = ()) -> str | None:
    """The stamp of a report over ``roots`` with ``options`` (everything else that shapes its output) and the
    single ``files`` it also read (the config file), or ``None`` when it cannot be taken safely."""
    listing = take_listing(roots, files)
    return stamp_of(listing, options) if listing is not None else None


def stamp_of(listing: Listing, options: list[str]) -> str:
    """The stamp of a report with ``options`` over what ``listing`` holds."""
    out = blake2b(digest_size=20)
    for option in options:
        out.update(option.encode("utf-8", "surrogateescape") + b"\0")
    out.update(_fields(listing[0]) + b"\1" + _fields(listing[1]) + b"\1" + listing[2])
    return out.hexdigest()


def _grouped(tree: list[str]) -> bytes:
    """The walked paths as groups, each a root and its paths relative to it: ``root\0rel\0rel…``, the groups
    joined by ``\0\0`` (no path is empty). A path under no earlier root starts a group of its own."""
    groups: list[list[str]] = []
    prefix = ""
    for path in tree:
        if prefix and path.startswith(prefix):
            groups[-1].append(path[len(prefix):])
        else:
            groups.append([path])
            prefix = path.rstrip(os.sep) + os.sep
    return b"\0\0".join(_fields(group) for group in groups)


_UNDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_RELATIVE = os.stat in os.supports_dir_fd and os.open in os.supports_dir_fd  # lstat is stat without following


def _tree_stats(grouped: bytes, out: list[bytes]) -> bool:
    """The packed ``lstat`` of every path of :func:`_grouped`'s groups into ``out``, as :func:`_stats` packs them,
    each looked up from its root's directory: a shorter lookup than from ``/`` for each of thousands of paths
    (docs/usage.md, Speed). The root itself is the directory opened, without following a link: a root replaced by
    another directory or by a link is seen. ``False`` when a status cannot be read."""
    add, pack, lstat = out.append, _PACK.pack, os.lstat
    for chunk in grouped.split(b"\0\0") if grouped else ():
        root, *paths = _split(chunk)
        try:
            fd = os.open(root, _UNDER)
        except FileNotFoundError:
            out.extend([_ABSENT] * (1 + len(paths)))  # listed as absent, or gone with all under it
            continue
        except OSError:
            return False  # a link, a file, or unreadable: the listing had none of these
        try:
            st = os.fstat(fd)
            add(pack(st.st_mode, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
            for path in paths:
                try:
                    st = lstat(path, dir_fd=fd)
                except FileNotFoundError:
                    add(_ABSENT)
                    continue
                add(pack(st.st_mode, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
        except OSError:
            return False
        finally:
            os.close(fd)
    return True


def save_invocation(directory: str | os.PathLike[str], key: list[str], listing: Listing,
                    output: tuple[int, str, str]) -> None:
    """Store the output of the report ``key`` names, as shown (``output``: exit code, stdout and the stderr
    messages, each already one line), with the listing (:func:`take_listing`) taken before it ran."""
    code, out, err = output
    tree, followed, stats, _ = listing
    parts = [_grouped(tree) if _RELATIVE else _fields(tree), _fields(followed), stats,
             out.encode("utf-8", "surrogateescape"), err.encode("utf-8", "surrogateescape")]
    sizes = Struct(f"<i{len(parts)}Q").pack(code, *map(len, parts))
    _write(os.path.join(directory, f"{_name(key)}.run"), _INVOCATION_FORMAT + sizes + b"".join(parts))


def _split(data: bytes) -> list[str]:
    return data.decode("utf-8", "surrogateescape").split("\0") if data else []


def answer_invocation(argv: list[str], env: dict[str, str] | os._Environ[str]) -> tuple[int, str, str] | None:
    """The exit code, stdout and stderr of the report ``argv`` asks for when the same command line, in the same
    directory and environment, ran before and no path of its listing changed since; else ``None``."""
    directory = reports_dir(env)
    if directory is None:
        return None
    data = _read(os.path.join(directory, f"{_name(invocation_key(argv, env))}.run"))
    sizes = Struct("<i5Q")
    if data is None or not data.startswith(_INVOCATION_FORMAT) or len(data) < len(_INVOCATION_FORMAT) + sizes.size:
        return None
    code, *lengths = sizes.unpack_from(data, len(_INVOCATION_FORMAT))
    at = len(_INVOCATION_FORMAT) + sizes.size
    if len(data) != at + sum(lengths):
        return None
    parts = []
    for length in lengths:
        parts.append(data[at:at + length])
        at += length
    if _RELATIVE:
        found: list[bytes] = []
        followed = _stats([], _split(parts[1]))
        if followed is None or not _tree_stats(parts[0], found) or b"".join(found) + followed != parts[2]:
            return None
    elif _stats(_split(parts[0]), _split(parts[1])) != parts[2]:
        return None
    return code, parts[3].decode("utf-8", "surrogateescape"), parts[4].decode("utf-8", "surrogateescape")
