"""A choice the user makes in Claude Code's ``AskUserQuestion`` reaches capture from a live Claude Code session, not
only from a converted one: the tool result is matched to its tool call by ``tool_use_id`` (docs/claude-code.md,
docs/capture.md "Harness text: answers in a tool result")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.engine._agent_files import SID, cc_assistant, cc_reply, cc_tool_result, cc_user, write_jsonl
from tui.cli.main import main

# The question and the answer envelope as Claude Code 2.1.42 wrote them (rommeld/leeson, an Entire checkpoint; the
# same exchange is tests/data/real/d62_leeson_commit_signing.jsonl, lines 33-34).
_QUESTION = ("The .gitignore change removes the .claude exclusion. Do you want to track the .claude/ directory in git? "
             "Also, should .entire/ be included?")
_OPTIONS = [{"label": "Track .claude/ only", "description": "Add .claude/ to git, keep .entire/ untracked"},
            {"label": "Track both", "description": "Add both .claude/ and .entire/ to git"},
            {"label": "Track neither", "description": "Skip the .gitignore change and both directories"}]
_ANSWER = (f'User has answered your questions: "{_QUESTION}"="Track both". You can now continue with the user\'s '
           "answers in mind.")


def _tool_use(uuid: str, parent: str, tool_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return cc_reply(uuid, parent, [{"type": "tool_use", "id": tool_id, "name": name, "input": arguments}])


def _tool_result(uuid: str, parent: str, tool_id: str, text: str, result: Any, *, blocks: bool = False
                 ) -> dict[str, Any]:
    content: Any = [{"type": "text", "text": text}] if blocks else text  # Claude Code writes either
    return cc_tool_result(uuid, parent, tool_id, content, result)


def _decisions(path: Path, state: Path) -> list[str]:
    assert main(["--state-dir", str(state), "checkpoint", str(path)]) == 0
    [written] = state.rglob("cp_001.yaml")
    return [d["what"] for d in yaml.safe_load(written.read_text())["decisions"]]


@pytest.mark.parametrize("blocks", [False, True], ids=["text", "text-blocks"])
def test_the_users_choice_in_ask_user_question_is_a_confirmed_decision(tmp_path: Path, blocks: bool) -> None:
    question = {"questions": [{"question": _QUESTION, "header": "Untracked dirs", "options": _OPTIONS,
                               "multiSelect": False}]}
    path = write_jsonl(tmp_path / "p" / f"{SID}.jsonl", [
        cc_user("u1", None, "check out the chances in my project. write commits. follow common git pattern."),
        _tool_use("r1", "u1", "toolu_01BXbpoVmbU1fjPhnjQT4Q66", "AskUserQuestion", question),
        _tool_result("t1", "r1", "toolu_01BXbpoVmbU1fjPhnjQT4Q66", _ANSWER,
                     {**question, "answers": {_QUESTION: "Track both"}}, blocks=blocks),
        cc_assistant("r2", "t1", "Tracking both directories.", (1, 10, 200, 5), "msg_r2"),
    ])
    assert [d for d in _decisions(path, tmp_path / "state") if "Track both" in d] == [f"{_QUESTION} — Track both"]


def test_the_same_words_from_another_tool_are_no_choice_of_the_users(tmp_path: Path) -> None:
    # A command that prints the envelope's words (a log, a test fixture) is not the user answering.
    path = write_jsonl(tmp_path / "p" / f"{SID}.jsonl", [
        cc_user("u1", None, "show me the log of the last session"),
        _tool_use("r1", "u1", "toolu_x", "Bash", {"command": "cat last.log"}),
        _tool_result("t1", "r1", "toolu_x", _ANSWER, {"stdout": _ANSWER, "stderr": ""}),
        cc_assistant("r2", "t1", "That is the log.", (1, 10, 200, 5), "msg_r2"),
    ])
    assert not [d for d in _decisions(path, tmp_path / "state") if "Track both" in d]
