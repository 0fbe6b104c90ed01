"""ctxscope's compaction of a Codex session, resumed by the real binary (docs/codex.md).

``ctxscope compact`` appends a ``compacted`` record with ``replacement_history``; ``codex exec resume --last``
then continues. The request the fake model receives must be the plan ctxscope showed: the summary, the kept
prompts, the new one — nothing summarized.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.agents.codex import ADAPTER
from engine.agents.codex.records import item_of
from tests.realagents.agent_tally import TALLY
from tests.realagents.codex.agent import Codex
from tests.realagents.codex.test_oracle import _rollout, _text
from tests.realagents.wire_apis import WireModelServer
from tui.cli.main import main

pytestmark = pytest.mark.realagents

AGENT = "codex"
PROMPTS = ("turn one", "turn two", "turn three", "turn four")


def _said(body: dict[str, object]) -> list[tuple[str, str]]:
    out = []
    for raw in body.get("input", []):  # type: ignore[attr-defined]
        item = item_of(raw)
        if item is not None and item.role in ("user", "summary"):
            out.append((item.role, _text(raw)))
    return out


def _user_texts(path: Path) -> dict[str, str]:
    """Entry id (as ctxscope names the context's entries) → text of every user prompt on the context."""
    reading = ADAPTER.reader(path, {}).read_new()
    lines = path.read_bytes().split(b"\n")
    out = {}
    for item in reading.context:
        if item.role == "user":
            payload = json.loads(lines[item.line_no - 1])["payload"]
            raw = payload["replacement_history"][item.part] if item.part >= 0 else payload
            out[item.id or f"L{item.line_no}.{item.part}"] = _text(raw)
    return out


def test_a_ctxscope_compaction_is_resumed_from_exactly_the_plan(
    codex_binary: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cwd = tmp_path / "proj"
    cwd.mkdir()
    with WireModelServer() as server:
        agent = Codex(codex_binary, tmp_path / "home" / ".codex", server.base_url)
        agent.configure()
        for i, prompt in enumerate(PROMPTS):
            run = agent.run(*(["resume", "--last"] if i else []), prompt, cwd=cwd)
            assert run.returncode == 0, run.stderr[-2000:]
        path = _rollout(agent.home)
        texts = _user_texts(path)
        state = ["--state-dir", str(tmp_path / "state")]
        assert main([*state, "compact", "--json", "--dry-run", "--keep-recent", "8", str(path)]) == 0
        plan = json.loads(capsys.readouterr().out)["plan"]
        kept = [texts[i] for i in plan["kept_ids"] if i in texts]
        assert [p for p in PROMPTS if p not in kept], "the plan summarized no prompt: nothing to compact"
        before = path.read_bytes()
        assert main([*state, "compact", "--yes", "--keep-recent", "8", str(path)]) == 0
        assert "codex resume" in capsys.readouterr().out
        assert path.read_bytes().startswith(before)
        server.clear()
        run = agent.run("resume", "--last", "after ctxscope", cwd=cwd)
        assert run.returncode == 0, run.stderr[-2000:]
        sent = _said(server.requests[-1])
    TALLY.check(AGENT, "resume.summary_first", (sent[0][0], sent[0][1].endswith(plan["summary"])), ("summary", True),
                "resume")
    TALLY.check(AGENT, "resume.prompts", sent[1:], [*(("user", p) for p in kept), ("user", "after ctxscope")],
                "resume")


def test_compaction_is_refused_while_codex_runs_the_session(
    codex_binary: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.realagents.slow_turn import during_turn, holding

    cwd = tmp_path / "proj"
    cwd.mkdir()
    with WireModelServer() as server:
        agent = Codex(codex_binary, tmp_path / "home" / ".codex", server.base_url)
        agent.configure()
        for i, prompt in enumerate(PROMPTS[:3]):
            assert agent.run(*(["resume", "--last"] if i else []), prompt, cwd=cwd).returncode == 0
        path = _rollout(agent.home)
        server.responder = holding
        argv = [str(codex_binary), "exec", "--skip-git-repo-check", "resume", "--last", "turn four"]

        def compact() -> tuple[int, int]:
            size = path.stat().st_size
            return main(["--state-dir", str(tmp_path / "state"), "compact", "--yes", "--keep-recent", "8",
                         str(path)]), size

        (code, size), finished = during_turn(server, argv, cwd=cwd, env=agent.env(), look=compact)
    assert finished == 0
    err = capsys.readouterr().err
    TALLY.check(AGENT, "refused_while_running", (code, "is running this session" in err), (4, True), "mid-turn")
    assert b'"type":"compacted"' not in path.read_bytes()[size:].replace(b" ", b"")
