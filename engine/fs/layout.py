"""Where ctxscope keeps what it writes: checkpoints, captured state and the audit log under a state dir, and the
index cache under the user's cache dir.

The only module that knows the ``<stateDir>/context/…`` layout (see ``docs/checkpoints.md``); every reader and
writer asks it for paths, so a session key always maps to the same single directory component — and two keys
never to the same one: the name is a readable prefix plus a hash of the exact key (:func:`safe_key`). Earlier
versions used the sanitised key alone (:func:`legacy_safe_key`), under which ``agent:main:dm:Иван`` and
``agent:main:dm:Олег`` shared a directory; the checkpoint store migrates such directories on its next write.
The index cache lives under ``$XDG_CACHE_HOME/ctxscope/`` (see ``docs/index.md``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Final

__all__ = [
    "audit_path",
    "cache_root",
    "checkpoints_root",
    "display_key",
    "file_identity",
    "index_dir",
    "legacy_safe_key",
    "legacy_session_checkpoint_dir",
    "safe_key",
    "session_checkpoint_dir",
    "session_state_dir",
    "split_file_identity",
    "transcript_digest",
]

_UNSAFE_CHAR: Final = re.compile(r"[^a-zA-Z0-9._-]")
_MAX_KEY_CHARS: Final = 100
_PREFIX_CHARS: Final = 64
_WINDOWS_RESERVED: Final = frozenset(
    {"con", "prn", "aux", "nul", "conin$", "conout$"} | {f"{dev}{n}" for dev in ("com", "lpt") for n in "0123456789"}
)


def _sanitised(key: str) -> str:
    # JavaScript's replace() sees UTF-16 code units: one astral character becomes two underscores.
    return _UNSAFE_CHAR.sub(lambda m: "__" if ord(m.group()) > 0xFFFF else "_", key)


def _digest(key: str) -> str:
    import hashlib  # here: loading it loads OpenSSL, which a usage report never needs

    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def safe_key(key: str) -> str:
    """The directory name of a session key: one safe path component, different for every key.

    ``<readable prefix>~<16 hex of sha256(key)>``: the prefix is the key with every character outside
    ``[a-zA-Z0-9._-]`` replaced by ``_`` (as the TypeScript tools sanitise), edge dots removed, at most 64
    characters. The hash of the exact key makes the mapping injective (``a/b`` and ``a\\0b``, ``Иван`` and
    ``Олег`` differ); ``~`` never appears in a prefix.
    """
    return f"{_sanitised(key).strip('.')[:_PREFIX_CHARS]}~{_digest(key)}"


def legacy_safe_key(key: str) -> str:
    """The directory name earlier versions used: the sanitised key alone when usable (NOT injective).

    Results that were not a usable name — empty, only dots, ending in a dot, a Windows device name, or longer
    than 100 characters — were already escaped like :func:`safe_key`.
    """
    name = _sanitised(key)
    stem = name.split(".", 1)[0].lower()
    if name.strip(".") and not name.endswith(".") and len(name) <= _MAX_KEY_CHARS and stem not in _WINDOWS_RESERVED:
        return name
    return f"{name.strip('.')[:_PREFIX_CHARS]}~{_digest(key)}"


_IDENTITY_SEP: Final = "@"
_DIGEST_RE: Final = re.compile(r"[0-9a-f]{16}")


def transcript_digest(path: str | os.PathLike[str]) -> str:
    """16 hex digits of the SHA-256 of a transcript's real path (symlinks and ``..`` resolved, made absolute)."""
    return _digest(os.path.realpath(path))


def file_identity(key: str, path: str | os.PathLike[str]) -> str:
    """The identity ctxscope files a session's own state under when its key does not tell its files apart.

    A pi session's key is the id in its header, which a copied file keeps: ``<key>@<transcript_digest(path)>``
    gives the copy its own checkpoints, captured state and place in ``watch`` (docs/checkpoints.md, Session
    identity).
    """
    return f"{key}{_IDENTITY_SEP}{transcript_digest(path)}"


def split_file_identity(identity: str) -> tuple[str, str] | None:
    """``(key, digest)`` of an identity :func:`file_identity` made, or ``None`` for a plain key."""
    key, sep, digest = identity.rpartition(_IDENTITY_SEP)
    return (key, digest) if sep and key and _DIGEST_RE.fullmatch(digest) else None


def display_key(identity: str) -> str:
    """The session key inside an identity: ``<key>`` of ``<key>@<digest>``, else the identity itself."""
    split = split_file_identity(identity)
    return split[0] if split else identity


def checkpoints_root(state_dir: Path) -> Path:
    """``<stateDir>/context/checkpoints``."""
    return state_dir / "context" / "checkpoints"


def session_checkpoint_dir(state_dir: Path, key: str) -> Path:
    """The directory holding one session's checkpoints (a direct child of :func:`checkpoints_root`)."""
    return checkpoints_root(state_dir) / safe_key(key)


def legacy_session_checkpoint_dir(state_dir: Path, key: str) -> Path:
    """Where earlier versions kept the session's checkpoints (possibly shared with other sessions)."""
    return checkpoints_root(state_dir) / legacy_safe_key(key)


def session_state_dir(state_dir: Path, key: str) -> Path:
    """The directory holding one session's state files (always a direct child of ``context/state``)."""
    return state_dir / "context" / "state" / safe_key(key)


def audit_path(state_dir: Path) -> Path:
    """Where the audit log of a state dir lives."""
    return state_dir / "context" / "audit.jsonl"


def cache_root(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CACHE_HOME/ctxscope`` (default ``~/.cache/ctxscope``): derived data only, never inside a store."""
    env = os.environ if env is None else env
    base = env.get("XDG_CACHE_HOME")
    if base and Path(base).is_absolute():  # the XDG spec: a relative value is invalid and ignored
        return Path(base) / "ctxscope"
    home = Path(env.get("HOME") or Path.home())
    return home / ".cache" / "ctxscope"


def index_dir(root: Path) -> Path:
    """Where the per-transcript index files live under a cache root."""
    return root / "index"
