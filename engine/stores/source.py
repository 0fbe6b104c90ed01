"""The session source value: where one session lives, in which format, and what a file in a store is.

Read-only; this module knows names and shapes only (see ``docs/formats.md``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from engine.fs.layout import file_identity

__all__ = [
    "AGENT_FORMATS", "SQLITE_NAME", "Discovery", "FileKind", "SessionFormat", "SessionSource", "classify_file",
    "shared_keys",
]

SessionFormat = Literal["openclaw-jsonl", "pi-jsonl", "openclaw-sqlite", "claude-code-jsonl", "codex-jsonl"]
AGENT_FORMATS: frozenset[SessionFormat] = frozenset({"claude-code-jsonl", "codex-jsonl"})
"""Formats read through :mod:`engine.agents` (docs/claude-code.md, docs/codex.md): read-only for now."""
FileKind = Literal["transcript", "archive", "checkpoint-copy", "sidecar", "lock", "store", "sqlite", "other"]

_ARCHIVE_TS = r"\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(\.\d{3})?Z"
_ARCHIVE = re.compile(rf"\.jsonl\.(reset|deleted|bak)\.{_ARCHIVE_TS}$|\.jsonl\.bak(-\d+-\d+)?$|\.jsonl\.bak-\d+-\d+$")
_REPAIR_TMP = re.compile(r"\.jsonl\.repair-\d+-\d+\.tmp$")
_CHECKPOINT_COPY = re.compile(r"\.checkpoint\.[0-9a-fA-F-]+\.jsonl$")
SQLITE_NAME = "openclaw-agent.sqlite"


@dataclass(frozen=True, slots=True)
class SessionSource:
    """Where one session lives and what its store says about it."""

    key: str
    """Stable key: the OpenClaw session key, else the header id, else the file path."""
    path: Path
    """The transcript file, or the SQLite database for ``openclaw-sqlite``."""
    format: SessionFormat
    kind: Literal["live", "archive", "legacy"] = "live"
    """``archive``: reset, deleted, archived or cold-stored; ``legacy``: a JSONL transcript beside an OpenClaw
    SQLite store, which OpenClaw ≥ 2026.8 no longer reads (docs/openclaw.md). Both are read-only."""
    store_entry: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)
    """The ``sessions.json`` value (or SQLite ``entry_json``) for this key, if any."""
    store_path: Path | None = None
    session_id: str | None = None
    agent_id: str | None = None
    state_dir: Path | None = None
    """The OpenClaw state dir this session belongs to, if any."""
    read_only_reason: str | None = field(default=None, compare=False)
    """Why ctxscope may only read this session although it is a live JSONL transcript (e.g. a symlink that
    resolves outside its sessions directory)."""
    last_activity_ms: int | None = None
    """The store's own last-activity time (epoch ms), where it records one (SQLite ``last_activity_at``)."""
    cold_archive: bool = False
    """The transcript was moved to OpenClaw's cold storage (SQLite era)."""
    shared_key: bool = field(default=False, compare=False)
    """Another followed transcript has the same :attr:`key` (a copied file keeps its header id): it is followed
    under its :attr:`identity` (set by the tracker)."""
    _identity: str | None = field(default=None, init=False, compare=False, repr=False)

    @property
    def identity(self) -> str:
        """What ctxscope files this session's checkpoints, captured state and live follower under: the key when a
        store gives it (``sessions.json``, SQLite) or it is the file's path, else the header id qualified by the
        transcript's real path — a copied file keeps the header id, never the path (docs/checkpoints.md, Session
        identity).

        Worked out on first use: resolving the real path of every file discovery lists was a fifth of a warm
        ``report`` over a thousand sessions, which never asks for it."""
        found = self._identity
        if found is None:
            plain = self.store_entry is not None or self.in_database or self.key == str(self.path)
            # An archive (``.reset.<time>``, ``.bak``) keeps the identity of the transcript it was renamed from.
            live = self.path.with_name(_ARCHIVE.sub(".jsonl", self.path.name))
            found = self.key if plain else file_identity(self.key, live)
            object.__setattr__(self, "_identity", found)
        return found

    @property
    def follow_key(self) -> str:
        """What the TUI and ``watch`` follow this session under: its key, or its identity when the key is shared."""
        return self.identity if self.shared_key else self.key

    @property
    def in_database(self) -> bool:
        """The session lives in OpenClaw's SQLite store: no file tail to scan, only the gateway writes it."""
        return self.format == "openclaw-sqlite"

    @property
    def lock_path(self) -> Path | None:
        """OpenClaw's write lock next to a JSONL transcript (SQLite sessions have none)."""
        return None if self.in_database else self.path.with_name(self.path.name + ".lock")

    @property
    def writable(self) -> bool:
        """Whether ctxscope may append to the transcript itself (the jsonl controller)."""
        return (not self.in_database and self.kind == "live" and self.read_only_reason is None
                and self.format not in AGENT_FORMATS)

    @property
    def watch_paths(self) -> tuple[Path, ...]:
        """Files whose changes can mean new entries or a changed right to compact."""
        path = self.path.resolve()
        if self.in_database:
            return (path, path.with_name(path.name + "-wal"))
        # The lock comes and goes while the agent runs: its changes re-judge who may compact.
        return (path, path.with_name(path.name + ".lock"))


@dataclass(frozen=True, slots=True)
class Discovery:
    """Everything found under the searched roots."""

    sessions: tuple[SessionSource, ...]
    archives: tuple[Path, ...] = ()
    sidecars: tuple[Path, ...] = ()
    locks: tuple[Path, ...] = ()
    problems: tuple[str, ...] = ()


def shared_keys(sources: Iterable[SessionSource]) -> frozenset[str]:
    """The keys that transcripts of different identities share (a copied file keeps its header id): each such
    session is one of several, and every view names it by its path (docs/checkpoints.md, Session identity)."""
    identities: dict[str, set[str]] = {}
    for source in sources:
        identities.setdefault(source.key, set()).add(source.identity)
    return frozenset(key for key, found in identities.items() if len(found) > 1)


def classify_file(path: Path) -> FileKind:
    """What a file in a sessions directory is, by name (OpenClaw's ``isPrimarySessionTranscriptFileName``)."""
    name = path.name
    if name.endswith(".lock"):
        return "lock"
    if name.endswith("sessions.json"):
        return "store"
    if name == SQLITE_NAME:
        return "sqlite"
    if _ARCHIVE.search(name) or _REPAIR_TMP.search(name):
        return "archive"
    if _CHECKPOINT_COPY.search(name):
        return "checkpoint-copy"
    if name.endswith(".trajectory.jsonl") or name.endswith(".trajectory-path.json"):
        return "sidecar"
    if name.endswith(".jsonl"):
        return "transcript"
    return "other"
