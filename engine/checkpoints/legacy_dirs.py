"""Checkpoint directories named by the old, non-injective mapping (:func:`engine.fs.layout.legacy_safe_key`).

Two sessions whose keys sanitise alike (``agent:main:dm:Иван``, ``agent:main:dm:Олег``) shared one directory.
Reads of a session that has no directory under the new name look in the old one and take only the files whose
``meta.session_key`` is that session's (reads never write); the next checkpoint write moves those files into
the session's own directory, keeping their names, and leaves the other sessions' files where they are.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path
from typing import Final

from engine.checkpoints.model import CheckpointFormatError
from engine.checkpoints.yaml_io import load_checkpoint, replace_lone_surrogates
from engine.fs.layout import legacy_session_checkpoint_dir, session_checkpoint_dir
from engine.fs.safe_path import UnsafePathError, open_dir

__all__ = ["checkpoint_owner", "migrate_legacy_checkpoints", "readable_checkpoint_dir", "same_session"]

_FILE_RE: Final = re.compile(r"cp_([0-9]{3,})\.yaml")
_MAX_BYTES: Final = 16 << 20


def readable_checkpoint_dir(state_dir: Path, key: str) -> tuple[Path, bool]:
    """``(directory to read, shared)``: the session's own directory, else the legacy one when only it exists."""
    own = session_checkpoint_dir(state_dir, key)
    legacy = legacy_session_checkpoint_dir(state_dir, key)
    if legacy != own and not own.is_dir() and legacy.is_dir() and not legacy.is_symlink():
        return legacy, True
    return own, False


def same_session(stored: str | None, key: str) -> bool:
    """Whether a checkpoint's ``meta.session_key`` names session ``key`` (YAML cannot hold lone surrogates)."""
    return stored is not None and (stored == key or stored == replace_lone_surrogates(key))


def checkpoint_owner(path: Path) -> str | None:
    """``meta.session_key`` of a checkpoint file, or ``None`` when it cannot be read or validated."""
    try:
        with path.open("rb") as handle:
            data = handle.read(_MAX_BYTES + 1)
        if len(data) > _MAX_BYTES:
            return None
        return load_checkpoint(data.decode("utf-8")).meta.session_key
    except (OSError, UnicodeDecodeError, CheckpointFormatError):
        return None


def migrate_legacy_checkpoints(state_dir: Path, key: str, target_fd: int) -> list[str]:
    """Move ``key``'s files from its legacy directory into the directory open as ``target_fd``.

    Only files whose ``meta.session_key`` is ``key`` move; a name already taken in the target stays behind.
    Returns the names moved. Called by the checkpoint writer under the session's write lock.

    Raises:
        OSError: a rename failed (the files not yet moved stay where they were).
    """
    legacy = legacy_session_checkpoint_dir(state_dir, key)
    if legacy == session_checkpoint_dir(state_dir, key):
        return []
    try:
        source_fd = open_dir(state_dir, legacy, create=False)
    except (FileNotFoundError, NotADirectoryError, UnsafePathError):
        return []
    moved: list[str] = []
    try:
        taken = set(os.listdir(target_fd))
        for name in sorted(os.listdir(source_fd)):
            if not _FILE_RE.fullmatch(name) or name in taken or not same_session(checkpoint_owner(legacy / name), key):
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
