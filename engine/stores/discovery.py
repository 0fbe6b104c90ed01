"""Finding sessions: OpenClaw state dirs, pi session dirs, ``sessions.json`` stores and SQLite databases.

Discovery looks in the default locations (``$OPENCLAW_STATE_DIR`` or ``~/.openclaw``, legacy ``~/.clawdbot``,
``$PI_CODING_AGENT_DIR/sessions`` or ``~/.pi/agent/sessions``) and in any paths given. Archives
(``*.jsonl.reset.<ts>``, ``.deleted.``, ``.bak*``), pre-compaction copies (``*.checkpoint.<uuid>.jsonl``) and
trajectory sidecars are recognised and never treated as live transcripts — unless a user names one
explicitly, in which case it is read and marked ``archive``. ``.lock`` files are reported. Read-only throughout.
See docs/formats.md (Discovery, File kinds, sessions.json).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import orjson

from engine.stores.source import Discovery, FileKind, SessionSource, classify_file

__all__ = [
    "SessionNotFoundError",
    "default_roots",
    "discover_sessions",
    "find_session",
    "load_store",
]

def default_roots(env: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """The default places sessions live on this machine (existing or not)."""
    env = os.environ if env is None else env
    home = Path(env.get("HOME") or Path.home())
    roots: list[Path] = []
    if env.get("OPENCLAW_STATE_DIR"):
        roots.append(Path(env["OPENCLAW_STATE_DIR"]).expanduser())
    roots += [home / ".openclaw", home / ".clawdbot"]
    pi_dir = env.get("PI_CODING_AGENT_DIR")
    roots.append((Path(pi_dir).expanduser() if pi_dir else home / ".pi" / "agent") / "sessions")
    return tuple(roots)


def load_store(path: Path) -> tuple[dict[str, Mapping[str, Any]], str | None]:
    """Read a ``sessions.json`` store: ``({key: entry}, problem)``; never raises on bad content."""
    try:
        data = orjson.loads(path.read_bytes())
    except OSError as exc:
        return {}, f"{path}: cannot read ({exc.strerror})"
    except orjson.JSONDecodeError as exc:
        return {}, f"{path}: not valid JSON ({exc})"
    if not isinstance(data, dict):
        return {}, f"{path}: expected a JSON object of session keys"
    return {str(k): v for k, v in data.items() if isinstance(v, Mapping)}, None


def _first_line(path: Path) -> tuple[bool, str | None]:
    """``(looks like a transcript, header id)`` from the first line.

    A transcript's first line is an object with a ``type`` (the session header, or an entry in a header-less
    file); other JSONL files (ctxscope's own ``audit.jsonl``, tool logs) are not sessions. Unreadable or
    non-JSON first lines count as transcripts so that damaged files are still shown and reported.
    """
    # pi's own listing reads only the first 512 bytes; a long header still fits in 4 KiB.
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            first = os.pread(fd, 4096, 0).partition(b"\n")[0]
        finally:
            os.close(fd)
    except OSError:
        return True, None
    try:
        obj = orjson.loads(first.removeprefix(b"\xef\xbb\xbf"))
    except orjson.JSONDecodeError:
        return True, None
    if not isinstance(obj, dict):
        return True, None
    if obj.get("type") == "session" and isinstance(obj.get("id"), str):
        return True, str(obj["id"])
    return "type" in obj, None


def _place_of(directory: Path) -> tuple[Path | None, str | None]:
    """``(OpenClaw state dir, agent id)`` of a resolved sessions directory (``<state>/agents/<id>/…``)."""
    parts = directory.parts
    if "agents" not in parts:
        return None, None
    index = len(parts) - 1 - parts[::-1].index("agents")
    state_dir = Path(*parts[:index]) if index > 0 else None
    return state_dir, parts[index + 1] if index + 1 < len(parts) else None


class _Collector:
    def __init__(self) -> None:
        self.sessions: dict[tuple[str, str | None], SessionSource] = {}
        self.archives: list[Path] = []
        self.sidecars: list[Path] = []
        self.locks: list[Path] = []
        self.problems: list[str] = []
        self._stores: dict[Path, dict[str, Mapping[str, Any]]] = {}
        self._store_names: dict[Path, list[Path]] = {}
        self._store_index: dict[Path, dict[str, tuple[str, Mapping[str, Any]]]] = {}
        self._places: dict[str, tuple[Path, Path | None, str | None]] = {}

    def place(self, path: Path) -> tuple[Path, Path | None, str | None]:
        """``(resolved path, state dir, agent id)`` of a file.

        ``Path.resolve`` costs an ``lstat`` per path component; with thousands of transcripts in one
        directory, the directory is resolved once and only symlinked files are resolved on their own.
        """
        directory, name = os.path.split(path)
        known = self._places.get(directory)
        if known is None:
            resolved_dir = Path(directory or ".").resolve()
            known = self._places[directory] = (resolved_dir, *_place_of(resolved_dir))
        if os.path.islink(path):
            resolved = path.resolve()
            return resolved, *_place_of(resolved.parent)
        return known[0] / name, known[1], known[2]

    def stores_near(self, directory: Path) -> list[tuple[Path, dict[str, Mapping[str, Any]]]]:
        found = []
        candidates = self._store_names.get(directory)
        if candidates is None:  # listed once per directory: a sessions dir may hold thousands of transcripts
            try:
                candidates = sorted(directory / n for n in os.listdir(directory) if n.endswith("sessions.json"))
            except OSError:
                candidates = []
            self._store_names[directory] = candidates
        for store_path in candidates:
            if store_path not in self._stores:
                entries, problem = load_store(store_path)
                if problem:
                    self.problems.append(problem)
                self._stores[store_path] = entries
            found.append((store_path, self._stores[store_path]))
        return found

    def _index_of(self, store_path: Path) -> dict[str, tuple[str, Mapping[str, Any]]]:
        """Transcript file name → (key, entry) for one store, built once."""
        index = self._store_index.get(store_path)
        if index is None:
            index = {}
            for store_key, value in self._stores.get(store_path, {}).items():
                session_file = value.get("sessionFile")
                session_id = value.get("sessionId")
                if isinstance(session_file, str):
                    index.setdefault(Path(session_file).name, (store_key, value))
                if isinstance(session_id, str):
                    index.setdefault(f"{session_id}.jsonl", (store_key, value))
            self._store_index[store_path] = index
        return index

    def add_transcript(self, path: Path, kind: FileKind, *, explicit: bool) -> None:
        if kind in ("archive", "checkpoint-copy") and not explicit:
            self.archives.append(path)
            return
        if kind == "sidecar" and not explicit:
            self.sidecars.append(path)
            return
        transcript_like, header_id = _first_line(path)
        if not transcript_like and not explicit:
            return
        key: str | None = None
        entry: Mapping[str, Any] | None = None
        store_path: Path | None = None
        for candidate_path, _entries in self.stores_near(path.parent):
            by_name = self._index_of(candidate_path)
            match = by_name.get(path.name) or (by_name.get(f"{header_id}.jsonl") if header_id else None)
            if match is None:
                # OpenClaw names files <sessionId>.jsonl; copies may carry a prefix (as the test fixtures do).
                match = next((m for n, m in by_name.items() if path.name.endswith(n)), None)
            if match is not None:
                key, entry = match
                store_path = candidate_path
                break
        resolved, state_dir, agent_id = self.place(path)
        openclaw = store_path is not None or state_dir is not None
        source = SessionSource(
            key=key or header_id or str(path),
            path=path,
            format="openclaw-jsonl" if openclaw else "pi-jsonl",
            kind="live" if kind == "transcript" else "archive",
            store_entry=entry,
            store_path=store_path,
            session_id=(entry or {}).get("sessionId") or header_id,
            agent_id=agent_id,
            state_dir=state_dir,
        )
        self.sessions.setdefault((str(resolved), None), source)

    def add_sqlite(self, db: Path) -> None:
        from engine.stores.sqlite import list_sqlite_sessions  # local: only SQLite users pay for it

        try:
            found = list_sqlite_sessions(db)
        except Exception as exc:  # noqa: BLE001 - a broken database is reported, not fatal to discovery
            self.problems.append(f"{db}: cannot read OpenClaw SQLite store ({exc})")
            return
        for source in found:
            self.sessions.setdefault((str(db.resolve()), source.session_id), source)

    def add_store(self, store_path: Path) -> None:
        entries = dict(self.stores_near(store_path.parent)).get(store_path, {})
        for value in entries.values():
            candidates = []
            session_file = value.get("sessionFile")
            session_id = value.get("sessionId")
            if isinstance(session_file, str):
                candidates.append(store_path.parent / Path(session_file).name)
            if isinstance(session_id, str):
                candidates += sorted(store_path.parent.glob(f"*{session_id}.jsonl"))
            for candidate in candidates:
                if candidate.is_file():
                    self.add_transcript(candidate, classify_file(candidate), explicit=False)
                    break

    def scan_dir(self, directory: Path) -> None:
        try:
            walker = list(os.walk(directory))
        except OSError as exc:
            self.problems.append(f"{directory}: cannot list ({exc.strerror})")
            return
        for root, dirs, files in walker:
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "session-sqlite-import-archive")
            base = Path(root)
            for name in sorted(files):  # os.walk lists directories apart: no stat needed here
                self.add_file(base / name, explicit=False)

    def add_path(self, path: Path, *, explicit: bool) -> None:
        if path.is_dir():
            self.scan_dir(path)
        else:
            self.add_file(path, explicit=explicit)

    def add_file(self, path: Path, *, explicit: bool) -> None:
        kind = classify_file(path)
        if kind == "lock":
            self.locks.append(path)
        elif kind == "store":
            self.add_store(path)
        elif kind == "sqlite" or (explicit and path.suffix in (".sqlite", ".db")):
            self.add_sqlite(path)
        elif kind in ("transcript", "archive", "checkpoint-copy", "sidecar"):
            self.add_transcript(path, kind, explicit=explicit)


def discover_sessions(paths: Iterable[Path] | None = None, *, env: Mapping[str, str] | None = None) -> Discovery:
    """Find sessions under ``paths`` (files or directories), or under :func:`default_roots` when none are given."""
    collector = _Collector()
    given = [Path(p).expanduser() for p in paths] if paths else []
    if given:
        for path in given:
            if not path.exists():
                collector.problems.append(f"{path}: no such file or directory")
                continue
            collector.add_path(path, explicit=True)
    else:
        for root in default_roots(env):
            if root.is_dir():
                collector.scan_dir(root)
    sessions = sorted(collector.sessions.values(), key=lambda s: (s.format, str(s.path), s.session_id or ""))
    return Discovery(
        tuple(sessions),
        tuple(collector.archives),
        tuple(collector.sidecars),
        tuple(collector.locks),
        tuple(collector.problems),
    )


class SessionNotFoundError(LookupError):
    """No discovered session matches what the user asked for."""


def find_session(discovery: Discovery, spec: str) -> SessionSource:
    """The session a user means by ``spec``: a path, a key, a session id, or an unambiguous prefix of one.

    Raises:
        SessionNotFoundError: nothing matches, or a prefix matches several sessions (the message lists them).
    """
    sessions = discovery.sessions
    path = Path(spec).expanduser()
    if path.exists():
        resolved = path.resolve()
        for source in sessions:
            if source.path.resolve() == resolved:
                return source
    lowered = spec.lower()
    exact = [s for s in sessions if s.key == spec]
    if len(exact) == 1:
        return exact[0]
    folded = [s for s in sessions if s.key.lower() == lowered or (s.session_id or "").lower() == lowered]
    if len(folded) == 1:
        return folded[0]
    prefixed = [
        s for s in sessions if s.key.lower().startswith(lowered) or (s.session_id or "").lower().startswith(lowered)
    ]
    if len(prefixed) == 1:
        return prefixed[0]
    if prefixed:
        names = ", ".join(s.key for s in prefixed[:8])
        raise SessionNotFoundError(f"{spec!r} matches several sessions: {names}. Give the full key or a path.")
    raise SessionNotFoundError(
        f"no session matches {spec!r}. Run `ctxscope status` to list sessions, or pass a transcript path."
    )
