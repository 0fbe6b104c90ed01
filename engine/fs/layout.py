"""Where ctxscope keeps what it writes: checkpoints, captured state and the audit log under a state dir.

The only module that knows the ``<stateDir>/context/…`` layout (see ``docs/checkpoints.md``); every reader and
writer asks it for paths, so a session key always maps to the same single directory component.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Final

__all__ = ["audit_path", "checkpoints_root", "safe_key", "session_checkpoint_dir", "session_state_dir"]

_UNSAFE_CHAR: Final = re.compile(r"[^a-zA-Z0-9._-]")
_MAX_KEY_CHARS: Final = 100
_WINDOWS_RESERVED: Final = frozenset(
    {"con", "prn", "aux", "nul", "conin$", "conout$"} | {f"{dev}{n}" for dev in ("com", "lpt") for n in "0123456789"}
)


def safe_key(key: str) -> str:
    """The directory name of a session key: always one safe path component.

    ``re.sub(r"[^a-zA-Z0-9._-]", "_", key)`` as the TypeScript ``sanitizeSessionKeyForPath`` does, counting
    UTF-16 code units like JavaScript does (a non-BMP character becomes ``__``), so both tools pick the same
    directory. Results that are not a usable name — empty, only dots (``.``, ``..``), ending in a dot, a
    Windows device name (``con``, ``com1.x``), or longer than 100 characters — become
    ``<first 64 chars without edge dots>~<16 hex of sha256(key)>``; ``~`` never appears in a sanitised
    name, so escaped names cannot collide with plain ones.
    """
    name = _UNSAFE_CHAR.sub(lambda m: "__" if ord(m.group()) > 0xFFFF else "_", key)
    stem = name.split(".", 1)[0].lower()
    if name.strip(".") and not name.endswith(".") and len(name) <= _MAX_KEY_CHARS and stem not in _WINDOWS_RESERVED:
        return name
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{name.strip('.')[:64]}~{digest}"


def checkpoints_root(state_dir: Path) -> Path:
    """``<stateDir>/context/checkpoints``."""
    return state_dir / "context" / "checkpoints"


def session_checkpoint_dir(state_dir: Path, key: str) -> Path:
    """The directory holding one session's checkpoints (a direct child of :func:`checkpoints_root`)."""
    return checkpoints_root(state_dir) / safe_key(key)


def session_state_dir(state_dir: Path, key: str) -> Path:
    """The directory holding one session's state files (always a direct child of ``context/state``)."""
    return state_dir / "context" / "state" / safe_key(key)


def audit_path(state_dir: Path) -> Path:
    """Where the audit log of a state dir lives."""
    return state_dir / "context" / "audit.jsonl"
