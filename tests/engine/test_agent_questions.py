"""Every agent answers the same questions, and the generic engine asks them instead of testing format names
(docs/agents.md): a fifth agent registered here gets its own summary format, gateway answer, entry reader and
usage attribution without a line of generic code changed."""

from __future__ import annotations

import io
import json
import os
import tokenize
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, cast

import pytest

from engine.accounting import gauge
from engine.agents import registry
from engine.agents.claude_code import ADAPTER as CLAUDE_CODE
from engine.agents.codex import ADAPTER as CODEX
from engine.agents.openclaw import ADAPTER as OPENCLAW
from engine.agents.pi import ADAPTER as PI
from engine.agents.pi.config import PI_DEFAULT_RESERVE
from engine.agents.protocol import CompactionRule, WindowHints
from engine.agents.session_reader import open_reader
from engine.compaction.choice import choose_controller
from engine.compaction.layer_summary import summary_format_for
from engine.fs.session_lock import acquire_lock
from engine.stores.source import SessionFormat, SessionSource
from engine.stores.transcript import TranscriptReader
from engine.usage.agent_usage import UnreadableSessionError
from engine.usage.collect import archive_source, session_usage

FIFTH_FORMAT = cast(SessionFormat, "fifth-jsonl")


class _Fifth:
    """An entry agent that answers every question differently from the default a format test would give."""

    name = "fifth"
    title = "Fifth"
    format = "fifth-jsonl"
    formats: tuple[str, ...] = ("fifth-jsonl",)
    controller = "jsonl"
    summary_format = "pi"
    reserve_floor = 0

    def __init__(self) -> None:
        self.opened: list[SessionSource] = []

    def default_roots(self, env: Mapping[str, str]) -> tuple[Path, ...]:
        return ()

    def window_hints(self, source: SessionSource, provider: str | None, model: str | None,
                     env: Mapping[str, str] | None) -> WindowHints:
        return WindowHints()

    def compaction_rule(self, cwd: str | None, env: Mapping[str, str] | None) -> CompactionRule | None:
        return None

    def claims(self, first: Mapping[str, Any] | None, path: Path) -> bool:
        return path.name.startswith("fifth-")

    def writer(self, path: Path, session_id: str | None, env: Mapping[str, str]) -> str | None:
        return None

    def entry_reader(self, source: SessionSource) -> TranscriptReader:
        self.opened.append(source)
        return TranscriptReader(source.path)

    def gateway_addresses(self, source: SessionSource) -> bool:
        return True

    def archive_source(self, path: Path) -> SessionSource | None:
        if not self.claims(None, path):
            return None
        return SessionSource(key=str(path), path=path, format=FIFTH_FORMAT, kind="archive", agent_id="fifth-agent")


@pytest.fixture
def fifth(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Fifth]:
    agent = _Fifth()
    monkeypatch.setattr(registry, "ENTRY_AGENTS", (agent, *registry.ENTRY_AGENTS))
    monkeypatch.setattr(registry, "ADAPTERS", (agent, *registry.ADAPTERS))
    yield agent


def _source(path: Path, fmt: str = "fifth-jsonl", **kw: Any) -> SessionSource:
    return SessionSource(key=str(path), path=path, format=cast(SessionFormat, fmt), **kw)


def _pi_session(path: Path) -> Path:
    header = {"type": "session", "version": 3, "id": "s-1", "timestamp": "2026-11-27T10:00:00.000Z", "cwd": "/w"}
    user = {"type": "message", "id": "u1", "parentId": None, "timestamp": "2026-11-27T10:00:01.000Z",
            "message": {"role": "user", "content": "hello", "timestamp": 1}}
    path.write_text("".join(json.dumps(r) + "\n" for r in (header, user)))
    return path


# -- the generic modules ask the registered agent --------------------------------------------------------------

def test_summary_format_is_the_agents(fifth: _Fifth, tmp_path: Path) -> None:
    assert summary_format_for(_source(tmp_path / "fifth-a.jsonl")) == "pi"
    # The four agents keep what they had.
    assert [summary_format_for(_source(tmp_path / "a.jsonl", f)) for f in
            ("pi-jsonl", "openclaw-jsonl", "openclaw-sqlite", "claude-code-jsonl", "codex-jsonl")] == [
        "pi", "openclaw", "openclaw", "openclaw", "openclaw"]


def test_gateway_answer_is_the_agents(fifth: _Fifth, tmp_path: Path) -> None:
    assert choose_controller(_source(tmp_path / "fifth-a.jsonl"), "gateway") == ("gateway", None)
    # pi has no gateway; OpenClaw's addresses a transcript only by its sessions.json key.
    assert choose_controller(_source(tmp_path / "a.jsonl", "pi-jsonl"), "gateway")[1] is not None
    keyless = _source(tmp_path / "a.jsonl", "openclaw-jsonl")
    assert choose_controller(keyless, "gateway")[1] is not None
    keyed = _source(tmp_path / "a.jsonl", "openclaw-jsonl", store_entry={"sessionId": "a"})
    assert choose_controller(keyed, "gateway") == ("gateway", None)
    assert choose_controller(_source(tmp_path / "a.jsonl", "codex-jsonl"), "gateway")[1] is not None


def test_open_reader_asks_the_agent(fifth: _Fifth, tmp_path: Path) -> None:
    source = _source(_pi_session(tmp_path / "fifth-a.jsonl"))
    reader = open_reader(source)
    assert fifth.opened == [source]
    reader.read_new()
    assert reader.header is not None and reader.header["id"] == "s-1"


def test_open_reader_for_the_four(tmp_path: Path) -> None:
    path = _pi_session(tmp_path / "a.jsonl")
    assert type(open_reader(_source(path, "pi-jsonl"))) is TranscriptReader
    assert type(open_reader(_source(path, "openclaw-jsonl"))) is TranscriptReader
    from engine.agents.agent_entries import AgentEntryReader
    from engine.agents.openclaw.sqlite_store import SqliteTranscriptReader

    assert type(open_reader(_source(path, "claude-code-jsonl"))) is AgentEntryReader
    assert type(open_reader(_source(path, "codex-jsonl"))) is AgentEntryReader
    assert type(open_reader(_source(tmp_path / "db.sqlite", "openclaw-sqlite", session_id="x"))) \
        is SqliteTranscriptReader


def test_usage_is_attributed_to_the_agent(fifth: _Fifth, tmp_path: Path) -> None:
    assert session_usage(_source(_pi_session(tmp_path / "fifth-a.jsonl"))).agent == "fifth"
    plain = _pi_session(tmp_path / "a.jsonl")
    assert session_usage(_source(plain, "pi-jsonl")).agent == "pi"
    assert session_usage(_source(plain, "openclaw-jsonl")).agent == "openclaw"
    assert session_usage(_source(plain, "openclaw-jsonl", agent_id="main")).agent == "main"


def test_unreadable_file_is_named_by_its_agent(fifth: _Fifth, tmp_path: Path) -> None:
    path = tmp_path / "fifth-a.jsonl"
    path.write_text("not json\n")
    with pytest.raises(UnreadableSessionError, match="not a Fifth session"):
        session_usage(_source(path))
    # Where a file lies names Claude Code's and Codex's; otherwise the format discovery gave it.
    claude = tmp_path / ".claude" / "projects" / "p" / "x.jsonl"
    rollout = tmp_path / "sessions" / "2026" / "rollout-1-x.jsonl"
    for file, fmt, who in ((claude, "pi-jsonl", "a Claude Code"), (rollout, "pi-jsonl", "a Codex"),
                           (path, "pi-jsonl", "a pi"), (path, "openclaw-jsonl", "an OpenClaw")):
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text("not json\n")
        with pytest.raises(UnreadableSessionError, match=f"not {who} session"):
            session_usage(_source(file, fmt))


def test_archives_are_claimed_by_the_agents_layout(fifth: _Fifth, tmp_path: Path) -> None:
    mine = archive_source(tmp_path / "fifth-a.jsonl.bak")
    assert (mine.format, mine.kind, mine.agent_id) == ("fifth-jsonl", "archive", "fifth-agent")
    state = tmp_path / "state" / "agents" / "main" / "sessions" / "s.jsonl.reset.2026-11-27T10-00-00Z"
    assert (archive_source(state).format, archive_source(state).agent_id) == ("openclaw-jsonl", "main")
    loose = tmp_path / "x" / "s.jsonl.bak"
    assert (archive_source(loose).format, archive_source(loose).agent_id) == ("pi-jsonl", None)


# -- pi and OpenClaw answer what Claude Code and Codex answer ---------------------------------------------------

@pytest.mark.parametrize("agent", registry.ADAPTERS, ids=lambda a: a.name)
def test_every_agent_answers_the_same_questions(agent: Any, tmp_path: Path) -> None:
    source = _source(tmp_path / "a.jsonl", agent.format)
    assert agent.format in agent.formats and agent.title and agent.summary_format in ("pi", "openclaw")
    assert isinstance(agent.claims(None, source.path), bool)
    assert agent.writer(source.path, "s-1", {"HOME": str(tmp_path)}) is None
    assert isinstance(agent.gateway_addresses(source), bool)
    assert callable(agent.entry_reader)


def test_pi_and_openclaw_claims(tmp_path: Path) -> None:
    header = {"type": "session", "version": 3, "id": "s"}
    in_layout = tmp_path / "state" / "agents" / "main" / "sessions" / "s.jsonl"
    loose = tmp_path / "agents" / "notes" / "s.jsonl"
    assert OPENCLAW.claims(header, in_layout) and OPENCLAW.claims(None, in_layout)
    assert not OPENCLAW.claims(header, loose)  # a directory named "agents" is not OpenClaw's layout
    assert PI.claims(header, loose) and PI.claims({"type": "message"}, loose) and PI.claims(None, loose)
    assert not PI.claims({"parentUuid": None}, loose)
    # The readers' claims of a parsed first record are unchanged; unparsed, where the file lies decides.
    assert registry.adapter_for({"type": "session_meta", "payload": {}}, loose) is CODEX
    assert registry.adapter_for(None, tmp_path / ".claude" / "projects" / "p" / "x.jsonl") is CLAUDE_CODE
    assert registry.adapter_for(None, tmp_path / "sessions" / "rollout-1-x.jsonl") is CODEX
    assert registry.adapter_for(None, loose) is None


def test_openclaw_writer_is_the_live_lock_holder(tmp_path: Path) -> None:
    transcript = _pi_session(tmp_path / "s.jsonl")
    env = {"HOME": str(tmp_path)}
    assert OPENCLAW.writer(transcript, "s-1", env) is None
    with acquire_lock(transcript, timeout=1.0):
        assert OPENCLAW.writer(transcript, "s-1", env) == f"pid {os.getpid()} holding s.jsonl.lock"
        assert PI.writer(transcript, "s-1", env) is None  # pi takes no lock: it cannot tell
    # A lock left by a dead process is stale: nobody is writing.
    (tmp_path / "s.jsonl.lock").write_text(json.dumps({"pid": 2**22 + 12345, "createdAt": "2026-11-27T10:00:00Z"}))
    assert OPENCLAW.writer(transcript, "s-1", env) is None


# -- one value, one place ----------------------------------------------------------------------------------------

def test_pi_default_reserve_is_spelled_once() -> None:
    assert gauge.Thresholds().reserve_tokens == PI_DEFAULT_RESERVE
    assert gauge.compaction_line(100_000) == 100_000 - PI_DEFAULT_RESERVE
    assert not hasattr(gauge, "PI_RESERVE_TOKENS")
    root = Path(__file__).resolve().parents[2]
    home = root / "engine" / "agents" / "pi" / "config.py"
    spelled = []
    for package in ("engine", "sim"):
        for file in sorted((root / package).rglob("*.py")):
            if file == home:
                continue
            tokens = tokenize.generate_tokens(io.StringIO(file.read_text(encoding="utf-8")).readline)
            spelled += [f"{file.relative_to(root)}:{t.start[0]}" for t in tokens
                        if t.type == tokenize.NUMBER and t.string.replace("_", "") == "16384"]
    assert spelled == []
