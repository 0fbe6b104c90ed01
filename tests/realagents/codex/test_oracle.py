"""Codex 0.169.0 as the oracle for ctxscope's reading of every rollout it writes (docs/codex.md).

The real binary runs against the fake model on 127.0.0.1. After every turn ctxscope reads the rollout and is
compared with what Codex did: the usage the fake model reported for the last request, the items of the last
request Codex sent (what was on its context, in order, by role and text), the window it recorded when the turn
started, and the compactions it made on its own at ``model_auto_compact_token_limit``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.agents.codex import ADAPTER
from engine.agents.codex.records import item_of
from tests.realagents.agent_tally import TALLY
from tests.realagents.codex.agent import Codex
from tests.realagents.wire_apis import WireModelServer, chat_view, is_summary_ask, responses_usage, wire_responder

pytestmark = pytest.mark.realagents

AGENT = "codex"
LIMIT = 5_190
"""``model_auto_compact_token_limit``: the fake's prompts pass it at the fourth turn."""


def _rollout(home: Path) -> Path:
    found = sorted((home / "sessions").glob("*/*/*/rollout-*.jsonl"))
    assert len(found) == 1, found
    return found[0]


def _text(item: dict[str, Any]) -> str:
    content = item.get("content")
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(item.get("arguments") or item.get("output") or "")


def _sent_items(body: dict[str, Any]) -> list[tuple[str, str]]:
    """``(role, text)`` of every input item of a request, roles named as ctxscope names them."""
    out = []
    for raw in body.get("input", []):
        item = item_of(raw)
        if item is not None:
            out.append((item.role, _text(raw)))
    return out


def _context_items(path: Path) -> list[tuple[str, str]]:
    reading = ADAPTER.reader(path, {}).read_new()
    lines = path.read_bytes().split(b"\n")
    out = []
    for item in reading.context:
        obj = json.loads(lines[item.line_no - 1])
        payload = obj["payload"]
        if obj["type"] == "session_meta":
            raw = {"content": [{"text": payload["base_instructions"]["text"]}]}
        elif obj["type"] == "compacted":
            raw = next(h for h in payload["replacement_history"] if item_of(h) is not None and
                       (item_of(h) or item).id == item.id)
        else:
            raw = payload
        out.append((item.role, _text(raw)))
    return out


def test_turns_and_auto_compaction(codex_binary: Path, tmp_path: Path) -> None:
    cwd = tmp_path / "proj"
    cwd.mkdir()
    with WireModelServer() as server:
        agent = Codex(codex_binary, tmp_path / "home" / ".codex", server.base_url)
        agent.configure(f"model_auto_compact_token_limit = {LIMIT}")
        prompts = [("hello there",), ("resume", "--last", "second turn"), ("resume", "--last", "third turn"),
                   ("resume", "--last", "fourth turn"), ("resume", "--last", "fifth turn")]
        for i, args in enumerate(prompts):
            run = agent.run(*args, cwd=cwd)
            assert run.returncode == 0, run.stderr[-2000:]
            where = f"turn {i + 1} ({args[-1]!r})"
            path = _rollout(agent.home)
            before = path.read_bytes()
            reading = ADAPTER.reader(path, {}).read_new()
            assert path.read_bytes() == before  # read-only
            turns = [r for r in server.requests if not is_summary_ask(chat_view(r))]
            last = turns[-1]
            usage = responses_usage(wire_responder(chat_view(last)))
            TALLY.check(AGENT, "context_tokens", reading.context_tokens.tokens, usage["total_tokens"], where)
            TALLY.check(AGENT, "model", reading.model, last["model"], where)
            # What Codex sent last, then its reply: exactly ctxscope's context.
            reply = wire_responder(chat_view(last)).text
            ours, theirs = _context_items(path), [*_sent_items(last), ("assistant", reply)]
            # The base instructions: Codex sends the session_meta text less the sections of tools it left out
            # (MISMATCHES.md); their role and place are compared, their text is not.
            TALLY.check(AGENT, "context.base_instructions_role", ours[0][0], theirs[0][0], where)
            TALLY.check(AGENT, "context", ours[1:], theirs[1:], where)
            summaries = sum(1 for r in server.requests if is_summary_ask(chat_view(r)))
            TALLY.check(AGENT, "compactions", len(reading.compactions), summaries, where)
            TALLY.check(AGENT, "compaction_line", reading.compaction_line.tokens, LIMIT, where)
            TALLY.check(AGENT, "window", reading.window.tokens, 258_400, where)
        assert reading.compactions, "Codex never compacted: the fake's prompts did not reach the limit"


def test_the_running_agent_is_seen_writing_and_not_once_it_ends(codex_binary: Path, tmp_path: Path) -> None:
    from tests.realagents.slow_turn import during_turn, holding

    cwd = tmp_path / "proj"
    cwd.mkdir()
    with WireModelServer() as server:
        agent = Codex(codex_binary, tmp_path / "home" / ".codex", server.base_url)
        agent.configure()
        assert agent.run("hello there", cwd=cwd).returncode == 0
        path = _rollout(agent.home)
        session_id = ADAPTER.reader(path, {}).read_new().session_id
        server.responder = holding
        argv = [str(codex_binary), "exec", "--skip-git-repo-check", "resume", "--last", "again"]
        writer, code = during_turn(server, argv, cwd=cwd, env=agent.env(),
                                   look=lambda: ADAPTER.writer(path, session_id, {}))
    assert code == 0
    TALLY.check(AGENT, "writer_while_running", writer is not None and writer.startswith("Codex pid"), True,
                "mid-turn")
    TALLY.check(AGENT, "writer_after_exit", ADAPTER.writer(path, session_id, {}), None, "after")
