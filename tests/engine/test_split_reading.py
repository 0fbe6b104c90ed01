"""A cold report's sessions read over two processes give what one process gives — the same usages and problems
in the same order, the same index written by this process alone — however the worker ends: done, killed mid-way,
raising, or never finishing; and no worker outlives the call (docs/usage.md, Speed)."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.agents.discovery import discover_sessions
from engine.index.cache import IndexCache, decode_index
from engine.stores.source import Discovery, SessionSource
from engine.usage import collect
from engine.usage.collect import collect_usage
from engine.usage.model import SessionUsage
from sim.agent_corpus import write_claude_code, write_codex, write_pi

pytestmark = pytest.mark.skipif(not (hasattr(os, "fork") and hasattr(os, "memfd_create")), reason="Linux only")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Three agents' trees, and a Claude Code file no reader recognises (a problem line, in its place)."""
    home = tmp_path_factory.mktemp("homes")
    list(write_claude_code(home / "claude", 9, turns=3))
    list(write_codex(home / "codex", 7, turns=3))
    list(write_pi(home / "pi", 5, session_bytes=6_000))
    junk = home / "claude" / "projects" / "-home-dev-project-0" / "0000-not-a-session.jsonl"
    junk.write_bytes(b'{"type":"nothing-known"}\n')
    return [home / "claude" / "projects", home / "codex" / "sessions", home / "pi" / "sessions"]


def _children() -> set[int]:
    """This process's children, running or not yet reaped."""
    found = set()
    me = str(os.getpid())
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = Path(f"/proc/{name}/stat").read_text()
            except OSError:
                continue
            if stat.rsplit(")", 1)[1].split()[1] == me:
                found.add(int(name))
    return found


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The workers forked during the test; none may be left when it ends."""
    before = _children()
    made: list[int] = []
    real = os.fork

    def fork() -> int:
        pid = real()
        if pid:
            made.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", fork)
    yield made
    assert _children() - before == set()


def _discovery(roots: list[Path]) -> Discovery:
    return discover_sessions(roots)


def _index(directory: Path) -> dict[str, dict[str, bytes]]:
    """Every stored key's sections."""
    found: dict[str, dict[str, bytes]] = {}
    for path in sorted((directory / "index").glob("*.idx")):
        entries = decode_index(path.read_bytes())
        assert entries is not None
        for key, sections in entries.items():
            found[key] = {name: bytes(data) for name, (data, _) in sections.items()}
    return found


def _one_process(corpus: list[Path], cache: IndexCache | None) -> tuple[tuple[SessionUsage, ...], tuple[str, ...]]:
    return collect_usage(_discovery(corpus), cache)


@pytest.mark.parametrize("indexed", [True, False], ids=["index", "CTXSCOPE_NO_INDEX"])
def test_two_processes_give_what_one_gives(corpus: list[Path], tmp_path: Path, forks: list[int],
                                           indexed: bool) -> None:
    alone = _one_process(corpus, IndexCache(tmp_path / "one") if indexed else None)
    split = collect_usage(_discovery(corpus), IndexCache(tmp_path / "two") if indexed else None, split_at=1)
    assert len(forks) == 1
    assert split == alone
    assert len(alone[0]) == 21 and len(alone[1]) == 1 and "0000-not-a-session" in alone[1][0]
    if indexed:
        assert _index(tmp_path / "two") == _index(tmp_path / "one")
        # What the split wrote answers the next report: nothing is read again, so nothing is forked.
        assert collect_usage(_discovery(corpus), IndexCache(tmp_path / "two"), split_at=1) == alone
        assert len(forks) == 1


def test_below_the_threshold_one_process_reads(corpus: list[Path], tmp_path: Path, forks: list[int]) -> None:
    assert collect_usage(_discovery(corpus), IndexCache(tmp_path / "c"), split_at=23) == _one_process(corpus, None)
    assert forks == []


def test_an_index_that_answers_leaves_too_few_to_split(corpus: list[Path], tmp_path: Path, forks: list[int]) -> None:
    _one_process(corpus, IndexCache(tmp_path / "c"))
    assert collect_usage(_discovery(corpus), IndexCache(tmp_path / "c"), split_at=2) == _one_process(corpus, None)
    assert forks == []


class _Scripted:
    """``session_usage`` with what the worker does scripted: its ``n``-th session (from 1) ends it by ``how``.

    The parent's first session after the fork waits until the worker has got there (a pipe, no clock): the worker
    has then framed ``n - 1`` sessions, so the parent reads the rest and exactly that many fewer.
    """

    def __init__(self, how: str, n: int) -> None:
        self.how, self.n = how, n
        self.parent = os.getpid()
        self.read_here = 0
        self.there = 0
        self.ready = os.pipe()
        self.never = os.pipe()
        self.real = collect.session_usage

    def __call__(self, source: SessionSource, cache: IndexCache | None = None) -> SessionUsage:
        if os.getpid() == self.parent:
            self.read_here += 1
            if self.read_here == 2:  # the first after the fork (the first of all is read before it)
                ready, _, _ = select.select([self.ready[0]], [], [], 120)
                assert ready, "the worker never reached its scripted end"
                os.read(self.ready[0], 1)
            return self.real(source, cache)
        self.there += 1
        if self.there == self.n:
            os.write(self.ready[1], b"x")
            if self.how == "hang":
                os.read(self.never[0], 1)  # never written: the worker waits until it is killed
            if self.how == "killed":
                os.kill(os.getpid(), signal.SIGKILL)
            raise RuntimeError("a bug in the worker")
        return self.real(source, cache)

    def close(self) -> None:
        for fd in (*self.ready, *self.never):
            os.close(fd)


@pytest.mark.parametrize(("how", "n"), [("killed", 4), ("raises", 3), ("hang", 1)])
def test_however_the_worker_ends_every_session_is_read_once(
    corpus: list[Path], tmp_path: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch, how: str, n: int,
) -> None:
    alone = _one_process(corpus, IndexCache(tmp_path / "one"))
    scripted = _Scripted(how, n)
    monkeypatch.setattr(collect, "session_usage", scripted)
    try:
        split = collect_usage(_discovery(corpus), IndexCache(tmp_path / "two"), split_at=1)
    finally:
        scripted.close()
    assert len(forks) == 1
    assert split == alone
    assert _index(tmp_path / "two") == _index(tmp_path / "one")
    # 22 files: one read before the fork, the worker's ``n - 1`` framed ones taken from it, the rest read here.
    assert scripted.read_here == 22 - (n - 1)


def test_a_process_with_other_threads_does_not_fork(corpus: list[Path], tmp_path: Path, forks: list[int]) -> None:
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        split = collect_usage(_discovery(corpus), IndexCache(tmp_path / "c"), split_at=1)
    finally:
        stop.set()
        other.join()
    assert forks == []
    assert split == _one_process(corpus, None)


_ORPHAN = """
import os, sys, time
from pathlib import Path
from engine.agents.discovery import discover_sessions
from engine.usage import collect
parent, real, calls = os.getpid(), collect.session_usage, []
def scripted(source, cache=None):
    if os.getpid() != parent and not Path(sys.argv[1]).exists():
        # The worker's first session: it names itself, then waits until its parent is gone.
        Path(sys.argv[1]).write_text(str(os.getpid()))
        while os.getppid() == parent:
            time.sleep(0.01)
    elif os.getpid() != parent:
        os.read(0, 1)  # any later one would wait as long as the test holds the pipe
    else:
        calls.append(source)
        if len(calls) == 2:  # the first after the fork: the parent blocks until it is killed
            os.read(0, 1)
    return real(source, cache)
collect.session_usage = scripted
collect.collect_usage(discover_sessions([Path(p) for p in sys.argv[2:]]), None, split_at=1)
"""


def _gone(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")  # exited, not reaped yet by whoever adopted it


def test_a_worker_whose_parent_is_killed_stops_after_the_session_it_is_reading(corpus: list[Path],
                                                                                tmp_path: Path) -> None:
    named = tmp_path / "worker.pid"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    read_end, write_end = os.pipe()
    proc = subprocess.Popen([sys.executable, "-c", _ORPHAN, str(named), *map(str, corpus)], env=env,
                            stdin=read_end, cwd=tmp_path)
    os.close(read_end)
    try:
        for _ in range(12_000):  # the worker names itself once it reads (a safety bound, not a timing)
            if (named.exists() and named.read_text()) or proc.poll() is not None:
                break
            time.sleep(0.01)
        assert proc.poll() is None, "the report ended before its worker read anything"
        worker = int(named.read_text())
        proc.kill()
        proc.wait()
        for _ in range(12_000):
            if _gone(worker):
                break
            time.sleep(0.01)
        assert _gone(worker)
    finally:
        os.close(write_end)
        proc.kill()
        proc.wait()
