"""Claude Code 2.1.328 as the oracle for ctxscope's reading of every file it writes (docs/claude-code.md).

The real binary runs against the fake model on 127.0.0.1. After every turn, the file is read by ctxscope and
compared with what the agent itself did: the leaf it recorded (``last-prompt``), the usage the fake model
reported for the last request, the prompts of the last request it sent, the model, and at every compaction —
its own manual and automatic ones — the ``preTokens`` it recorded against ctxscope's count of the file as it
stood just before, and whether it compacted against ctxscope's compaction line.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any

import pytest

from engine.agents.claude_code import ADAPTER
from engine.agents.claude_code.reader import ClaudeCodeReader
from engine.agents.claude_code.records import HARNESS_PREFIXES
from tests.realagents.agent_tally import TALLY
from tests.realagents.claude_code.agent import ClaudeCode
from tests.realagents.wire_apis import WireModelServer, anthropic_usage, chat_view, is_summary_ask, wire_responder

pytestmark = pytest.mark.realagents

AGENT = "claude-code"


def _transcript(home: Path) -> Path:
    found = sorted((home / ".claude" / "projects").glob("*/*.jsonl"))
    assert len(found) == 1, found
    return found[0]


def _last_prompt_leaf(path: Path) -> str | None:
    leaf = None
    for line in path.read_text().splitlines():
        obj = json.loads(line)
        if obj.get("type") == "last-prompt":
            leaf = obj.get("leafUuid")
    return leaf


def _prompts_sent(body: dict[str, Any]) -> list[str]:
    """The user prompts (and a compaction summary) of a request: text the harness did not add."""
    out = []
    for message in body.get("messages", []):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        blocks = [content] if isinstance(content, str) else [b.get("text") for b in content or []
                                                              if isinstance(b, dict) and b.get("type") == "text"]
        # Stripped: the request joins a record's text to the next one with a newline.
        out += [t.strip() for t in blocks if isinstance(t, str) and not t.lstrip().startswith(HARNESS_PREFIXES)]
    return out


def _prompts_on_context(path: Path) -> list[str]:
    reader = ClaudeCodeReader(path)
    reading = reader.read_new()
    lines = path.read_bytes().split(b"\n")
    out = []
    for item in reading.context:
        if item.role in ("user", "summary"):
            content = json.loads(lines[item.line_no - 1])["message"]["content"]
            text = content if isinstance(content, str) else "".join(b.get("text", "") for b in content)
            out.append(text.strip())
    return out


def _tokens_before(path: Path, line_no: int) -> int | None:
    """ctxscope's count of the transcript as it stood before line ``line_no`` (a copy cut there)."""
    cut = path.with_name("cut.jsonl.tmp")
    cut.write_bytes(b"".join(line + b"\n" for line in path.read_bytes().split(b"\n")[: line_no - 1]))
    try:
        return ClaudeCodeReader(cut).read_new().context_tokens.tokens
    finally:
        cut.unlink()


def _compare_turn(path: Path, server: WireModelServer, where: str, compacted: int) -> None:
    before = path.read_bytes()
    reading = ADAPTER.reader(path).read_new()
    assert path.read_bytes() == before  # read-only
    TALLY.check(AGENT, "leaf", reading.leaf_id, _last_prompt_leaf(path), where)
    turns = [r for r in server.requests if not is_summary_ask(chat_view(r))]
    last = turns[-1]
    usage = anthropic_usage(wire_responder(chat_view(last), pad=server.pad))  # type: ignore[attr-defined]
    if reading.context_tokens.source == "claude-code: last usage":
        TALLY.check(AGENT, "context_tokens", reading.context_tokens.tokens, sum(usage.values()), where)
    TALLY.check(AGENT, "model", reading.model, last["model"], where)
    if not is_summary_ask(chat_view(server.requests[-1])):  # the last request was a turn, not the summary
        sent = _prompts_sent(last)
        TALLY.check(AGENT, "context_prompts", _prompts_on_context(path)[-len(sent):] if sent else [], sent, where)
    # The agent's own count: every /compact it ran, every compaction it reported on its own (``compacted``).
    TALLY.check(AGENT, "compactions", len(reading.compactions), compacted, where)
    for compaction in reading.compactions:
        raw = json.loads(path.read_bytes().split(b"\n")[compaction.line_no - 1])
        meta = raw["compactMetadata"]
        TALLY.check(AGENT, "compaction.pre_tokens", _tokens_before(path, compaction.line_no), meta["preTokens"],
                    where)
        TALLY.check(AGENT, "compaction.trigger", compaction.trigger, meta["trigger"], where)
        TALLY.check(AGENT, "compaction.post_tokens", compaction.tokens_after, meta["postTokens"], where)
        if meta["trigger"] == "auto":
            TALLY.check(AGENT, "compaction_line_crossed", meta["preTokens"] >= reading.compaction_line.tokens, True,
                        where)


def _session(claude_binary: Path, tmp_path: Path, pad: int, prompts: list[tuple[str, ...]],
             compacted: list[int]) -> None:
    home, cwd = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    cwd.mkdir()
    with WireModelServer(functools.partial(wire_responder, pad=pad)) as server:
        server.pad = pad  # type: ignore[attr-defined]
        agent = ClaudeCode(claude_binary, home, server.origin)
        for i, args in enumerate(prompts):
            run = agent.run(*args, cwd=cwd)
            assert run.returncode == 0, run.stderr[-2000:]
            path = _transcript(home)
            _compare_turn(path, server, f"turn {i + 1} ({args[0]!r})", compacted[i])


def test_manual_compaction_session(claude_binary: Path, tmp_path: Path) -> None:
    _session(claude_binary, tmp_path, 0, [("hello there",), ("second turn", "--continue"), ("/compact", "--continue"),
                                          ("after compact", "--continue"), ("one more", "--continue")],
             [0, 0, 1, 1, 1])


def test_auto_compactions(claude_binary: Path, tmp_path: Path) -> None:
    # The fake reports ~995k prompt tokens: Claude Code compacts on its own before each later turn.
    _session(claude_binary, tmp_path, 990_000, [("hello there",), ("second turn", "--continue"),
                                                ("third turn", "--continue")], [0, 1, 2])


def test_nothing_leaves_loopback() -> None:
    assert os.environ.get("ANTHROPIC_BASE_URL") is None or "127.0.0.1" in os.environ["ANTHROPIC_BASE_URL"]


def test_the_running_agent_is_seen_writing_and_not_once_it_ends(claude_binary: Path, tmp_path: Path) -> None:
    from tests.realagents.slow_turn import during_turn, holding

    home, cwd = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    cwd.mkdir()
    with WireModelServer() as server:
        agent = ClaudeCode(claude_binary, home, server.origin)
        assert agent.run("hello there", cwd=cwd).returncode == 0
        path = _transcript(home)
        session_id = path.stem
        server.responder = holding
        argv = [str(claude_binary), "-p", "again", "--continue", "--output-format", "json"]
        writer, code = during_turn(server, argv, cwd=cwd, env=agent.env(),
                                   look=lambda: ADAPTER.writer(path, session_id, {"HOME": str(home)}))
    assert code == 0
    TALLY.check(AGENT, "writer_while_running", writer is not None and writer.startswith("Claude Code pid"), True,
                "mid-turn")
    TALLY.check(AGENT, "writer_after_exit", ADAPTER.writer(path, session_id, {"HOME": str(home)}), None, "after")


def _delegating(view: dict[str, Any]) -> Any:
    """The main thread calls the Agent tool once; the sub-agent answers its task; the main thread then ends."""
    from tests.realagents.fake_model import Reply

    said = " ".join(str(m.get("content")) for m in view["messages"] if m.get("role") == "user")
    base = wire_responder(view)
    if "SUBTASK" in said and "delegate now" not in said:  # the sub-agent's own thread
        return Reply("sub-agent finished the subtask", base.prompt_tokens, 5)
    if not any(m.get("role") == "assistant" for m in view["messages"]):
        call = {"id": "toolu_sub1", "name": "Agent", "arguments": json.dumps(
            {"description": "do subtask", "prompt": "SUBTASK: say hi", "subagent_type": "general-purpose"})}
        return Reply("", base.prompt_tokens, 5, tool_calls=(call,))
    return Reply("main done", base.prompt_tokens, 3)


def test_a_sub_agents_own_file(claude_binary: Path, tmp_path: Path) -> None:
    from engine.agents.discovery import discover_sessions

    home, cwd = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    cwd.mkdir()
    with WireModelServer(_delegating) as server:
        agent = ClaudeCode(claude_binary, home, server.origin)
        run = agent.run("delegate now", "--allowedTools", "Agent", cwd=cwd)
        assert run.returncode == 0, run.stderr[-2000:]
        sub_requests = [r for r in server.requests if "delegate now" not in json.dumps(r.get("messages"))]
    [sub] = sorted((home / ".claude" / "projects").glob("*/*/subagents/agent-*.jsonl"))
    main_file = _transcript(home)
    found = {s.path: s for s in discover_sessions([home / ".claude" / "projects"]).sessions}
    TALLY.check(AGENT, "subagent.discovered", sorted(found), sorted([main_file, sub]), "sub-agent")
    reading = ADAPTER.reader(sub).read_new()
    TALLY.check(AGENT, "subagent.sidechain", reading.sidechain, True, "sub-agent")
    usage = anthropic_usage(_delegating(chat_view(sub_requests[-1])))
    TALLY.check(AGENT, "subagent.context_tokens", reading.context_tokens.tokens, sum(usage.values()), "sub-agent")
    last_uuid = [json.loads(line).get("uuid") for line in sub.read_text().splitlines()]
    TALLY.check(AGENT, "subagent.leaf", reading.leaf_id, [u for u in last_uuid if u][-1], "sub-agent")
    TALLY.check(AGENT, "subagent.prompts", [i.role for i in reading.context if i.role == "user"], ["user"],
                "sub-agent")
