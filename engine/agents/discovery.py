"""Finding sessions: OpenClaw state dirs, pi session dirs, ``sessions.json`` stores and SQLite databases.

Discovery looks in every agent's default locations (``Agent.default_roots``: ``$OPENCLAW_STATE_DIR`` or
``~/.openclaw``, legacy ``~/.clawdbot``, ``$PI_CODING_AGENT_DIR/sessions`` or ``~/.pi/agent/sessions``, then
Claude Code's and Codex's) and in any paths given. Archives
(``*.jsonl.reset.<ts>``, ``.deleted.``, ``.bak*``), pre-compaction copies (``*.checkpoint.<uuid>.jsonl``) and
trajectory sidecars are recognised and never treated as live transcripts — unless a user names one
explicitly, in which case it is read and marked ``archive``. ``.lock`` files are reported. Read-only throughout.
See docs/formats.md (Discovery, File kinds, sessions.json).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import orjson

from engine.agents import registry
from engine.agents.openclaw.layout import agent_database, openclaw_place
from engine.agents.registry import own_roots, read_head, shaped_session, sniff_format
from engine.stores.placement import confinement_problem, file_problem, read_regular
from engine.stores.source import Discovery, FileKind, SessionSource, classify_file

__all__ = [
    "SessionNotFoundError",
    "Walked",
    "default_roots",
    "discover_sessions",
    "find_session",
    "load_store",
]

def default_roots(env: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """The default places sessions live on this machine (existing or not)."""
    env = os.environ if env is None else env
    home = Path(env.get("HOME") or Path.home())
    with_home = {**env, "HOME": str(home)}
    return tuple(root for agent in registry.ADAPTERS for root in agent.default_roots(with_home))


Walked = tuple[Mapping[str, Sequence[str]], Mapping[str, os.stat_result]]
"""A tree its caller listed already: each directory's entry names and each path's ``lstat``, keyed by absolute
path, with no symbolic link anywhere in it (the report's memo listing, docs/usage.md, Speed). Discovery walks it
instead of listing the directories again, and takes each file's type from it instead of a ``stat`` and an
``lstat`` of its own."""

_MAX_STORE_BYTES = 256 << 20
"""A ``sessions.json`` larger than this is reported, not parsed (real stores are a few MB at most)."""


def load_store(path: Path) -> tuple[dict[str, Mapping[str, Any]], str | None]:
    """Read a ``sessions.json`` store: ``({key: entry}, problem)``; never raises on bad content, never blocks."""
    try:
        data = orjson.loads(read_regular(path, _MAX_STORE_BYTES))
    except OSError as exc:
        return {}, f"{path}: cannot read ({exc.strerror or exc}); skipped"
    except orjson.JSONDecodeError as exc:
        return {}, f"{path}: not valid JSON ({exc})"
    if not isinstance(data, dict):
        return {}, f"{path}: expected a JSON object of session keys"
    return {str(k): v for k, v in data.items() if isinstance(v, Mapping)}, None


def _first_line(head: bytes | None) -> tuple[bool, str | None]:
    """``(looks like a transcript, header id)`` from the first line, in ``head`` (the file's first bytes,
    :func:`engine.agents.registry.read_head`; ``None``: unreadable).

    A transcript's first line is an object with a ``type`` (the session header, or an entry in a header-less
    file); other JSONL files (ctxscope's own ``audit.jsonl``, tool logs) are not sessions. Unreadable or
    non-JSON first lines count as transcripts so that damaged files are still shown and reported.
    """
    if head is None:
        return True, None
    # pi's own listing reads only the first 512 bytes; a long header still fits in 4 KiB.
    first = head[:4096].partition(b"\n")[0]
    try:
        obj = orjson.loads(first.removeprefix(b"\xef\xbb\xbf"))
    except orjson.JSONDecodeError:
        return True, None
    if not isinstance(obj, dict):
        return True, None
    if obj.get("type") == "session" and isinstance(obj.get("id"), str):
        return True, str(obj["id"])
    return "type" in obj, None


class _Collector:
    def __init__(self, env: Mapping[str, str] | None = None, walked: Walked | None = None) -> None:
        self.walked = walked
        self.own_roots = own_roots(os.environ if env is None else env)
        self._unlinked: set[str] = set()
        """Directories known to be no symbolic link (walked): no ``lstat`` to resolve them."""
        self.sessions: dict[tuple[str, str | None], SessionSource] = {}
        self.archives: list[Path] = []
        self.sidecars: list[Path] = []
        self.locks: list[Path] = []
        self.problems: list[str] = []
        self._stores: dict[Path, dict[str, Mapping[str, Any]]] = {}
        self._listings: dict[Path, list[str]] = {}
        self._store_index: dict[Path, dict[str, tuple[str, Mapping[str, Any]]]] = {}
        self._stores_near: dict[Path, list[tuple[Path, dict[str, Mapping[str, Any]]]]] = {}
        self._places: dict[str, tuple[Path | None, str | None]] = {}
        self._real_dirs: dict[str, str] = {}
        self._databases: dict[tuple[Path, str], bool] = {}

    def place(self, path: Path, link: bool | None = None) -> tuple[str, Path | None, str | None, bool]:
        """``(resolved path, state dir, agent id, is a symlink)`` of a file: the state dir is that of the directory
        the file was found in, never of a symlink's target.

        The directory is resolved once (``realpath`` costs an ``lstat`` per component and thousands of
        transcripts share it); only symlinked files are resolved on their own. The resolved path is a string:
        it only keys the sessions found, and a ``Path`` per transcript is measurable over thousands.
        """
        directory = os.path.dirname(path)
        known = self._places.get(directory)
        if known is None:
            known = self._places[directory] = openclaw_place(Path(self._real_dir(directory)))
        resolved, link = self.resolved(path, link)
        return resolved, known[0], known[1], link

    def resolved(self, path: Path, link: bool | None = None) -> tuple[str, bool]:
        """``(resolved path, is a symlink)`` of a file, as :meth:`place` gives them, without the OpenClaw layout a
        Claude Code or Codex file has no use for (a Codex tree has a directory per day: a ``Path`` per directory
        was measurable). ``link``: whether it is one, when a walked tree says so."""
        directory, name = os.path.split(path)
        if link is None:
            link = os.path.islink(path)
        return (os.path.realpath(path) if link else os.path.join(self._real_dir(directory), name)), link

    def _real_dir(self, directory: str) -> str:
        """``os.path.realpath(directory)``, from its parent's when it is no symbolic link itself: one ``lstat``
        per directory instead of one per component (a Codex tree has a directory per day)."""
        known = self._real_dirs.get(directory)
        if known is None:
            parent, name = os.path.split(directory)
            if name in ("", ".", "..") or not parent or parent == directory or (
                    directory not in self._unlinked and os.path.islink(directory)):
                known = os.path.realpath(directory or ".")
            else:
                known = os.path.join(self._real_dir(parent), name)
            self._real_dirs[directory] = known
        return known

    def listing(self, directory: Path) -> list[str]:
        """The names in ``directory``, listed once per discovery (a store may name thousands of sessions)."""
        names = self._listings.get(directory)
        if names is None:
            try:
                names = sorted(os.listdir(directory))
            except OSError as exc:
                self.problems.append(f"{directory}: cannot list ({exc.strerror or exc})")
                names = []
            self._listings[directory] = names
        return names

    def has_database(self, state_dir: Path | None, agent_id: str | None) -> bool:
        """Whether the agent keeps its sessions in SQLite: its JSONL transcripts are then legacy files."""
        if state_dir is None or agent_id is None:
            return False
        known = self._databases.get((state_dir, agent_id))  # keyed before any path is built: asked per transcript
        if known is None:
            known = self._databases[(state_dir, agent_id)] = agent_database(state_dir, agent_id).is_file()
        return known

    def stores_near(self, directory: Path) -> list[tuple[Path, dict[str, Mapping[str, Any]]]]:
        # Once per directory: asked for every transcript in it, a scan of the listing each time was quadratic.
        cached = self._stores_near.get(directory)
        if cached is not None:
            return cached
        found = []
        for name in self.listing(directory):
            if not name.endswith("sessions.json"):
                continue
            store_path = directory / name
            if store_path not in self._stores:
                entries, problem = load_store(store_path)
                if problem:
                    self.problems.append(problem)
                self._stores[store_path] = entries
            found.append((store_path, self._stores[store_path]))
        self._stores_near[directory] = found
        return found

    def _index_of(self, store_path: Path) -> dict[str, tuple[str, Mapping[str, Any]]]:
        """Transcript file name → (key, entry) for one store, built once. Names come from data, so only plain
        file names (no separators, no dot names) are indexed: nothing outside the store can be named."""
        index = self._store_index.get(store_path)
        if index is None:
            index = {}
            for store_key, value in self._stores.get(store_path, {}).items():
                for name in _store_names(value):
                    index.setdefault(name, (store_key, value))
            self._store_index[store_path] = index
        return index

    def add_transcript(self, path: Path, kind: FileKind, *, explicit: bool,
                       status: os.stat_result | None = None) -> None:
        """``status``: the file's ``lstat`` from a walked tree (no link there), else it is taken here."""
        if kind in ("archive", "checkpoint-copy") and not explicit:
            self.archives.append(path)
            return
        if kind == "sidecar" and not explicit:
            self.sidecars.append(path)
            return
        if status is None:
            status, problem = _regular(path)
        else:
            problem = None if stat.S_ISREG(status.st_mode) else file_problem(path)
        if problem is not None or status is None:
            self.problems.append(problem or f"{path}: cannot read; skipped")
            return
        link = False if self.walked is not None else None
        # A file whose place and name are Claude Code's or Codex's is theirs, unread (docs/usage.md, Speed); an
        # empty one is sniffed as before (an agent creating it, or nothing at all).
        shaped = shaped_session(str(path), self.own_roots) if not explicit and status.st_size else None
        if shaped is not None:
            self.add_agent_session(path, *shaped, link=link)
            return
        head = read_head(path)  # one read of the first bytes for both looks at the first line
        transcript_like, header_id = _first_line(head)
        agent = sniff_format(path, head) if header_id is None else None
        if agent is not None:
            self.add_agent_session(path, *agent)
            return
        if not transcript_like and not explicit:
            return
        key: str | None = None
        entry: Mapping[str, Any] | None = None
        store_path: Path | None = None
        for candidate_path, _entries in self.stores_near(path.parent):
            match = _match_in(self._index_of(candidate_path), path.name, header_id)
            if match is not None:
                key, entry = match
                store_path = candidate_path
                break
        resolved, state_dir, agent_id, link = self.place(path, link)
        openclaw = store_path is not None or state_dir is not None
        file_kind: Literal["live", "archive", "legacy"] = "live" if kind == "transcript" else "archive"
        if file_kind == "live" and self.has_database(state_dir, agent_id):
            file_kind = "legacy"
        source = SessionSource(
            key=key or header_id or str(path),
            path=path,
            format="openclaw-jsonl" if openclaw else "pi-jsonl",
            kind=file_kind,
            store_entry=entry,
            store_path=store_path,
            session_id=(entry or {}).get("sessionId") or header_id,
            agent_id=agent_id,
            state_dir=state_dir,
            # Only a symlinked file can resolve outside its directory (``place`` resolved the directory once).
            read_only_reason=confinement_problem(path, path.parent) if link else None,
        )
        self.sessions.setdefault((resolved, None), source)

    def add_agent_session(self, path: Path, session_format: str, session_id: str | None, *,
                          link: bool | None = None) -> None:
        """A Claude Code or Codex session file (docs/claude-code.md, docs/codex.md): read-only."""
        resolved, link = self.resolved(path, link)
        source = SessionSource(
            key=session_id or str(path), path=path, format=session_format,  # type: ignore[arg-type]
            session_id=session_id,
            read_only_reason=confinement_problem(path, path.parent) if link else None,
        )
        self.sessions.setdefault((resolved, None), source)

    def add_sqlite(self, db: Path) -> None:
        from engine.agents.openclaw.sqlite_store import list_sqlite_sessions  # local: only SQLite users pay for it

        problem = file_problem(db)
        if problem is not None:
            self.problems.append(problem)
            return
        try:
            found = list_sqlite_sessions(db)
        except Exception as exc:  # noqa: BLE001 - a broken database is reported, not fatal to discovery
            self.problems.append(f"{db}: cannot read OpenClaw SQLite store ({exc})")
            return
        for source in found:
            self.sessions.setdefault((str(db.resolve()), source.session_id), source)

    def add_store(self, store_path: Path) -> None:
        directory = store_path.parent
        entries = dict(self.stores_near(directory)).get(store_path, {})
        names = set(self.listing(directory))
        suffixes = _suffix_index(names)
        for value in entries.values():
            for name in _store_names(value):
                # An exact name, else one carrying a prefix (copies, as in the test fixtures): never a glob.
                found = name if name in names else suffixes.get(name)
                if found is not None:
                    candidate = directory / found
                    self.add_transcript(candidate, classify_file(candidate), explicit=False)
                    break

    def scan_dir(self, directory: Path) -> None:
        if self.walked is not None and os.path.abspath(directory) in self.walked[0]:
            self._scan_walked(os.fspath(directory), os.path.abspath(directory))
            return

        def report(exc: OSError) -> None:
            self.problems.append(f"{exc.filename or directory}: cannot list ({exc.strerror or exc})")

        for root, dirs, files in os.walk(directory, onerror=report):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "session-sqlite-import-archive")
            base = Path(root)
            for name in sorted(files):  # os.walk lists directories apart: no stat needed here
                self.add_file(base / name, explicit=False)

    def _scan_walked(self, shown: str, real: str) -> None:
        """:meth:`scan_dir` over the walked tree: the same directories and files in the same order as ``os.walk``
        with sorted names gives them (``shown``: the directory as that walk names it, ``real``: its key)."""
        names, statuses = self.walked or ({}, {})
        self._unlinked.add(shown)
        dirs: list[str] = []
        files: list[tuple[str, os.stat_result]] = []
        for name in names[real]:
            status = statuses[os.path.join(real, name)]
            if stat.S_ISDIR(status.st_mode):
                dirs.append(name)
            else:
                files.append((name, status))
        base = Path(shown)
        for name, status in sorted(files):
            self.add_file(base / name, explicit=False, status=status)
        for name in sorted(dirs):
            if not name.startswith(".") and name != "session-sqlite-import-archive":
                self._scan_walked(os.path.join(shown, name), os.path.join(real, name))

    def add_path(self, path: Path, *, explicit: bool) -> None:
        if path.is_dir():
            self.scan_dir(path)
        else:
            self.add_file(path, explicit=explicit)

    def add_file(self, path: Path, *, explicit: bool, status: os.stat_result | None = None) -> None:
        kind = classify_file(path)
        if kind == "lock":
            self.locks.append(path)
        elif kind == "store":
            self.add_store(path)
        elif kind == "sqlite" or (explicit and path.suffix in (".sqlite", ".db")):
            self.add_sqlite(path)
        elif kind in ("transcript", "archive", "checkpoint-copy", "sidecar"):
            self.add_transcript(path, kind, explicit=explicit, status=status)
        elif explicit:
            # Named by the user, so silence would read as "no sessions here": say what ctxscope reads instead.
            self.problems.append(f"{path}: not a session file (ctxscope reads *.jsonl transcripts, sessions.json "
                                 "and OpenClaw's *.sqlite stores)")


def _regular(path: Path) -> tuple[os.stat_result | None, str | None]:
    """``(status, None)`` of a regular file, else ``(None, why it cannot be read)`` (:func:`file_problem`)."""
    try:
        status = os.stat(path)
    except OSError:
        return None, file_problem(path)
    if not stat.S_ISREG(status.st_mode):
        return None, file_problem(path)
    return status, None


def _plain_name(name: str) -> bool:
    return bool(name) and "/" not in name and "\\" not in name and "\0" not in name and name not in (".", "..")


def _store_names(value: Mapping[str, Any]) -> list[str]:
    """The transcript file names a store entry gives: ``sessionFile``'s base name, then ``<sessionId>.jsonl``."""
    names = []
    session_file = value.get("sessionFile")
    session_id = value.get("sessionId")
    if isinstance(session_file, str) and _plain_name(Path(session_file).name):
        names.append(Path(session_file).name)
    if isinstance(session_id, str) and _plain_name(f"{session_id}.jsonl"):
        names.append(f"{session_id}.jsonl")
    return names


def _suffix_index(names: Iterable[str]) -> dict[str, str]:
    """``<suffix>.jsonl`` → listed name, for names that carry a prefix before ``_``/``-``/``.`` (copies)."""
    index: dict[str, str] = {}
    for name in names:
        if not name.endswith(".jsonl"):
            continue
        for i in range(1, len(name) - 6):
            if name[i - 1] in "_-.":
                index.setdefault(name[i:], name)
    return index


def _match_in(
    index: Mapping[str, tuple[str, Mapping[str, Any]]], name: str, header_id: str | None
) -> tuple[str, Mapping[str, Any]] | None:
    match = index.get(name) or (index.get(f"{header_id}.jsonl") if header_id else None)
    if match is None:
        # OpenClaw names files <sessionId>.jsonl; copies may carry a prefix (as the test fixtures do).
        match = next((index[name[i:]] for i in range(1, len(name)) if name[i - 1] in "_-." and name[i:] in index),
                     None)
    return match


def discover_sessions(paths: Iterable[Path] | None = None, *, env: Mapping[str, str] | None = None,
                      walked: Walked | None = None) -> Discovery:
    """Find sessions under ``paths`` (files or directories), or under :func:`default_roots` when none are given.

    ``walked``: those directories as the caller listed them already (:data:`Walked`); a directory it does not
    hold is listed here."""
    collector = _Collector(env, walked)
    given = [Path(p).expanduser() for p in paths] if paths else []
    if given:
        for path in given:
            if not path.exists():
                collector.problems.append(f"{path}: no such file or directory")
                continue
            collector.add_path(path, explicit=True)
    else:
        for root in default_roots(env):
            try:
                is_dir = stat.S_ISDIR(os.stat(root).st_mode)
            except FileNotFoundError:
                continue
            except OSError as exc:
                collector.problems.append(f"{root}: cannot read ({exc.strerror or exc})")
                continue
            if is_dir:
                collector.scan_dir(root)
    sessions = sorted(collector.sessions.values(), key=lambda s: (s.format, str(s.path), s.session_id or ""))
    return Discovery(
        tuple(sessions),
        tuple(collector.archives),
        tuple(collector.sidecars),
        tuple(collector.locks),
        tuple(collector.problems),
    )


def _prefer_live(found: list[SessionSource]) -> list[SessionSource]:
    """The live sessions among ``found`` when there are any: a legacy or archived copy never makes a key ambiguous."""
    live = [s for s in found if s.kind == "live"]
    return live or found


def _describe(source: SessionSource) -> str:
    return source.key if source.kind == "live" else f"{source.key} ({source.kind}: {source.path})"


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
        resolved = os.path.realpath(path)
        at_path = [s for s in sessions if os.path.realpath(s.path) == resolved]
        if len(at_path) == 1:
            return at_path[0]
        if at_path:
            # A database holds every session of an agent: never pick one silently.
            names = ", ".join(s.key for s in at_path[:12]) + (" …" if len(at_path) > 12 else "")
            raise SessionNotFoundError(
                f"{spec} holds {len(at_path)} sessions: {names}. Give the session key (with --in {spec})."
            )
    lowered = spec.lower()
    exact = _prefer_live([s for s in sessions if s.key == spec])
    if len(exact) == 1:
        return exact[0]
    folded = _prefer_live(
        [s for s in sessions if s.key.lower() == lowered or (s.session_id or "").lower() == lowered]
    )
    if len(folded) == 1:
        return folded[0]
    prefixed = _prefer_live([
        s for s in sessions if s.key.lower().startswith(lowered) or (s.session_id or "").lower().startswith(lowered)
    ])
    if len(prefixed) == 1:
        return prefixed[0]
    if prefixed:
        # Two copies of one session share its key: only their paths tell them apart, and a path names either.
        keys = [s.key for s in prefixed]
        names = ", ".join(f"{s.key} ({s.path})" if keys.count(s.key) > 1 else _describe(s) for s in prefixed[:8])
        raise SessionNotFoundError(f"{spec!r} matches several sessions: {names}. Give the full key or a path.")
    problems = "".join(f"\n  {problem}" for problem in discovery.problems[:5])
    raise SessionNotFoundError(
        f"no session matches {spec!r}. Run `ctxscope status` to list sessions, or pass a transcript path."
        + (f" While looking:{problems}" if problems else "")
    )
