"""ctxscope's compaction of a Claude Code session, resumed by the real binary (docs/claude-code.md).

A session of the real Claude Code is compacted by ``ctxscope compact`` (the ``claude-code`` controller appends a
``compact_boundary`` and the summary); ``claude -p … --continue`` then resumes it. The request the fake model
receives must carry exactly the plan ctxscope showed: the summary, then the kept prompts, then the new one —
nothing from before the cut. ctxscope's own reading of the file afterwards agrees with Claude Code's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.agents.claude_code.reader import ClaudeCodeReader
from tests.realagents.agent_tally import TALLY
from tests.realagents.claude_code.agent import ClaudeCode
from tests.realagents.claude_code.test_oracle import _prompts_sent, _transcript
from tests.realagents.wire_apis import WireModelServer
from tui.cli.main import main

pytestmark = pytest.mark.realagents

AGENT = "claude-code"


def test_a_ctxscope_compaction_is_resumed_from_exactly_the_plan(
    claude_binary: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home, cwd = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    cwd.mkdir()
    with WireModelServer() as server:
        agent = ClaudeCode(claude_binary, home, server.origin)
        for i, prompt in enumerate(["turn one", "turn two", "turn three", "turn four"]):
            run = agent.run(prompt, *(["--continue"] if i else []), cwd=cwd)
            assert run.returncode == 0, run.stderr[-2000:]
        path = _transcript(home)
        state = tmp_path / "state"
        assert main(["--state-dir", str(state), "compact", "--json", "--dry-run", "--keep-recent", "60",
                     str(path)]) == 0
        plan = json.loads(capsys.readouterr().out)["plan"]
        before = path.read_bytes()
        assert main(["--state-dir", str(state), "compact", "--yes", "--keep-recent", "60", str(path)]) == 0
        capsys.readouterr()
        assert path.read_bytes().startswith(before)  # appended, nothing rewritten
        after = ClaudeCodeReader(path).read_new()
        kept = [i.id for i in after.context if i.role != "summary"]
        TALLY.check(AGENT, "resume.kept_ids", kept, [k for k in plan["kept_ids"]], "after ctxscope compact")
        server.clear()
        run = agent.run("after ctxscope", "--continue", cwd=cwd)
        assert run.returncode == 0, run.stderr[-2000:]
        sent = _prompts_sent(server.requests[-1])
    lines = path.read_bytes().split(b"\n")
    kept_prompts = []
    for item in after.context:
        if item.role == "user":
            content = json.loads(lines[item.line_no - 1])["message"]["content"]
            kept_prompts.append(content.strip() if isinstance(content, str) else content)
    TALLY.check(AGENT, "resume.summary_first", sent[0].startswith("This session is being continued"), True, "resume")
    TALLY.check(AGENT, "resume.summary_text", plan["summary"].strip() in sent[0], True, "resume")
    TALLY.check(AGENT, "resume.prompts", sent[1:], [*kept_prompts, "after ctxscope"], "resume")
    summarized = [p for p in ("turn one", "turn two", "turn three", "turn four") if p not in kept_prompts]
    assert summarized, "the plan kept every prompt: nothing was compacted"
    TALLY.check(AGENT, "resume.nothing_before_the_cut", [p for p in summarized if p in sent], [], "resume")


def test_compaction_is_refused_while_claude_runs_the_session(
    claude_binary: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.realagents.slow_turn import during_turn, holding

    home, cwd = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    cwd.mkdir()
    with WireModelServer() as server:
        agent = ClaudeCode(claude_binary, home, server.origin)
        for i, prompt in enumerate(["turn one", "turn two", "turn three"]):
            assert agent.run(prompt, *(["--continue"] if i else []), cwd=cwd).returncode == 0
        path = _transcript(home)
        server.responder = holding
        argv = [str(claude_binary), "-p", "turn four", "--continue", "--output-format", "json"]

        def compact() -> tuple[int, bytes]:
            before = path.read_bytes()
            code = main(["--state-dir", str(tmp_path / "state"), "compact", "--yes", "--keep-recent", "20",
                         str(path)])
            return code, before

        (code, before), finished = during_turn(server, argv, cwd=cwd, env={**agent.env(), "HOME": str(home)},
                                               look=compact)
    assert finished == 0
    err = capsys.readouterr().err
    TALLY.check(AGENT, "refused_while_running", (code, "is running this session" in err), (4, True), "mid-turn")
    assert b"compact_boundary" not in path.read_bytes()[len(before):]
