"""Capture on native agent sessions (docs/capture.md, round 11): answers given through a tool, Japanese orders,
Chinese questions without a question mark, Claude Code's bash-mode blocks. Real FIT text quoted verbatim."""

from __future__ import annotations

from bench.real import matches
from engine.capture.tool_answers import tool_answers
from tests.engine.test_capture_real import _label, _state

_TRACK_BOTH = ('User has answered your questions: "The .gitignore change removes the .claude exclusion. Do you want to '
               'track the .claude/ directory in git? Also, should .entire/ be included?"="Track both". You can now '
               "continue with the user's answers in mind.")


def test_an_answer_given_through_askuserquestion_is_the_users_confirmed_decision() -> None:
    # d62 (rommeld/leeson): the user chose "Track both" in Claude Code's question, inside a tool result.
    decisions = [d.what for d in _state("d62_leeson_commit_signing").decisions]
    assert any(matches(d, _label("d62_leeson_commit_signing", "decisions", "D3")) for d in decisions)
    # d69 (yutakobayashidev/repiq): three answers in one result are one decision, each question with its choice.
    answered = [d.what for d in _state("d69_repiq_license_trend").decisions if "サイレントに無視" in d.what]
    assert len(answered) == 1 and "--fields" in answered[0] and "(Recommended)" not in answered[0]


def test_only_the_asking_tools_answer_envelope_is_read_as_the_users_choice() -> None:
    assert tool_answers("AskUserQuestion", _TRACK_BOTH) == [(
        "The .gitignore change removes the .claude exclusion. Do you want to track the .claude/ directory in git? "
        "Also, should .entire/ be included?", "Track both")]
    assert tool_answers("Bash", _TRACK_BOTH) == []
    assert tool_answers("AskUserQuestion", "The user doesn't want to proceed with this tool use.") == []
