"""Checkpoint directories earlier versions named, which several sessions may share (docs/checkpoints.md, Session
identity).

Two kinds: the old, non-injective mapping (:func:`engine.fs.layout.legacy_safe_key`), under which keys that
sanitise alike (``agent:main:dm:Иван``, ``agent:main:dm:Олег``) shared one directory; and the directory of a bare
header id, which a copied pi transcript shared with its original before sessions were filed under
:func:`engine.fs.layout.file_identity`. Reads of a session that has no directory under its own name look in the
old one and take only the files that are that session's — ``meta.session_key``, and for a file identity also
``meta.session_file`` (reads never write); the next checkpoint write moves those files into the session's own
directory, keeping their names, and leaves the other sessions' files where they are.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path
from typing import Final

from engine.checkpoints.model import CheckpointFormatError
from engine.checkpoints.yaml_io import load_checkpoint, replace_lone_surrogates
from engine.fs.layout import (
    legacy_session_checkpoint_dir,
    session_checkpoint_dir,
    split_file_identity,
    transcript_digest,
)
from engine.fs.safe_path import UnsafePathError, open_dir

__all__ = [
    "checkpoint_dirs",
    "checkpoint_owner",
    "migrate_legacy_checkpoints",
    "owned_by",
    "readable_checkpoint_dir",
    "same_session",
]

_FILE_RE: Final = re.compile(r"cp_([0-9]{3,})\.yaml")
_MAX_BYTES: Final = 16 << 20


def checkpoint_dirs(state_dir: Path, key: str) -> tuple[Path, list[Path]]:
    """``(home, previous)``: where ``key``'s checkpoints are written, and the directories earlier versions may have
    left some of them in (which other sessions may share), most recent layout first.

    A file identity (``<id>@<digest>``) lives in the directory of its bare ``<id>`` when that holds no checkpoint
    yet or its oldest one is this transcript's (``meta.session_file``), so existing directories keep working;
    otherwise — a copy of a transcript that already has checkpoints there — in a directory of its own.
    """
    split = split_file_identity(key)
    if split is None:
        own = session_checkpoint_dir(state_dir, key)
        legacy = legacy_session_checkpoint_dir(state_dir, key)
        return own, [legacy] if legacy != own else []
    base, digest = split
    qualified = session_checkpoint_dir(state_dir, key)
    plain = session_checkpoint_dir(state_dir, base)
    legacy = legacy_session_checkpoint_dir(state_dir, base)
    if not qualified.is_dir() and _first_owner_is(plain, base, digest):
        return plain, [legacy] if legacy != plain else []
    return qualified, [d for d in dict.fromkeys((plain, legacy)) if d != qualified]


def _first_owner_is(directory: Path, base: str, digest: str) -> bool:
    """Whether the oldest readable checkpoint in ``directory`` is the transcript's with ``digest`` (or there is
    none)."""
    if directory.is_symlink():
        return False
    try:
        names = [n for n in os.listdir(directory) if _FILE_RE.fullmatch(n)]
    except (FileNotFoundError, NotADirectoryError):
        return True
    for name in sorted(names, key=lambda n: int(n[3:-5])):
        owner = checkpoint_owner(directory / name)
        if owner is not None:
            return same_session(owner[0], f"{base}@{digest}", owner[1])
    return True


def readable_checkpoint_dir(state_dir: Path, key: str) -> tuple[Path, bool]:
    """``(directory to read, filtered)``: the session's home, else an earlier directory when only it exists.

    ``filtered``: the directory may hold other sessions' files, so only the session's own are taken (a home
    shared with files an earlier version wrote for a copy, or an earlier directory).
    """
    home, previous = checkpoint_dirs(state_dir, key)
    filtered = split_file_identity(key) is not None
    if not home.is_dir():
        for directory in previous:
            if directory.is_dir() and not directory.is_symlink():
                return directory, True
    return home, filtered


def same_session(stored: str | None, key: str, stored_file: str | None = None) -> bool:
    """Whether a checkpoint's ``meta.session_key`` (and ``meta.session_file``) name session ``key``.

    A file identity (``<id>@<digest>``) also owns the checkpoints an earlier version wrote under the bare ``<id>``
    for the same transcript: ``meta.session_file`` resolves to the digest. A relative ``session_file`` (earlier
    versions recorded the path as given on the command line) cannot be resolved from here: it counts for every
    transcript with the key, as it did before. YAML cannot hold lone surrogates.
    """
    if stored is None:
        return False
    if stored == key or stored == replace_lone_surrogates(key):
        return True
    split = split_file_identity(key)
    if split is None or stored_file is None or stored not in (split[0], replace_lone_surrogates(split[0])):
        return False
    return not os.path.isabs(stored_file) or transcript_digest(stored_file) == split[1]


def checkpoint_owner(path: Path) -> tuple[str, str] | None:
    """``(meta.session_key, meta.session_file)`` of a checkpoint file, or ``None`` when it cannot be read."""
    try:
        with path.open("rb") as handle:
            data = handle.read(_MAX_BYTES + 1)
        if len(data) > _MAX_BYTES:
            return None
        meta = load_checkpoint(data.decode("utf-8")).meta
        return meta.session_key, meta.session_file
    except (OSError, UnicodeDecodeError, CheckpointFormatError):
        return None


def owned_by(path: Path, key: str) -> bool:
    """Whether the checkpoint file at ``path`` is session ``key``'s."""
    owner = checkpoint_owner(path)
    return owner is not None and same_session(owner[0], key, owner[1])


def migrate_legacy_checkpoints(state_dir: Path, key: str, target_fd: int) -> list[str]:
    """Move ``key``'s files from the directories earlier versions used into the directory open as ``target_fd``.

    Only files that are ``key``'s (:func:`same_session`) move; a name already taken in the target stays behind.
    Returns the names moved. Called by the checkpoint writer under the session's write lock.

    Raises:
        OSError: a rename failed (the files not yet moved stay where they were).
    """
    moved: list[str] = []
    for legacy in checkpoint_dirs(state_dir, key)[1]:
        moved += _move_owned(state_dir, legacy, key, target_fd)
    return moved


def _move_owned(state_dir: Path, legacy: Path, key: str, target_fd: int) -> list[str]:
    try:
        source_fd = open_dir(state_dir, legacy, create=False)
    except (FileNotFoundError, NotADirectoryError, UnsafePathError):
        return []
    moved: list[str] = []
    try:
        taken = set(os.listdir(target_fd))
        for name in sorted(os.listdir(source_fd)):
            if not _FILE_RE.fullmatch(name) or name in taken or not owned_by(legacy / name, key):
                continue
            os.rename(name, name, src_dir_fd=source_fd, dst_dir_fd=target_fd)
            moved.append(name)
        if moved:
            with contextlib.suppress(OSError):
                os.fsync(target_fd)
                os.fsync(source_fd)
    finally:
        os.close(source_fd)
    return moved
