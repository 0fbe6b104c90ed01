"""Slash commands in Claude Code transcripts (docs/capture.md, Harness text): the echo of the command the user typed,
then the command's prompt as the next user-role record. The user's turn is the command, not the command author's text.
Real FIT text (punt-labs/langlearn-tts d96, yutakobayashidev/repiq d69)."""

from __future__ import annotations

from bench.real import matches
from engine.capture.envelopes import command_request, command_typed
from engine.capture.state import CapturedState, capture
from engine.stores.transcript import read_transcript
from tests.engine.test_capture_real import REAL, _label, _state

_RECIPE_ECHO = ("<command-message>kitchen:recipe</command-message>\n<command-name>/kitchen:recipe</command-name>\n"
                "<command-args>フィールド選択</command-args>")
_RECONCILE_ECHO = ("<command-message>punt-dev:reconcile</command-message>\n"
                   "<command-name>/punt-dev:reconcile</command-name>")
_RECONCILE_PROMPT = ("# Reconcile Project with Punt Labs Standards\n\nAnalyze a project against Punt Labs standards "
                     "and surgically apply fixes. This command\nhandles files that need **contextual judgment**")


def test_the_echo_of_a_slash_command_gives_the_command_as_typed() -> None:
    assert command_typed(_RECIPE_ECHO) == "/kitchen:recipe フィールド選択"
    assert command_typed(_RECONCILE_ECHO) == "/punt-dev:reconcile"
    # Anything beside the echo's blocks is not an echo: the user's words are read as they are.
    assert command_typed(_RECONCILE_ECHO + "\nand commit it") == ""
    assert command_typed("please run /punt-dev:reconcile") == ""


def test_the_record_after_the_echo_is_the_commands_prompt_or_a_local_commands_output() -> None:
    assert command_request("/punt-dev:reconcile", _RECONCILE_PROMPT) == (
        "/punt-dev:reconcile — Reconcile Project with Punt Labs Standards")
    assert command_request("/exit", "<local-command-stdout>Goodbye!</local-command-stdout>") == ""


def test_a_commands_prompt_gives_no_rule_of_the_user_and_the_next_order_is_about_the_command() -> None:
    # d96: "**Never delete project-specific content.**" is the reconcile command's text, not a rule the user set;
    # "commit this on a branch and open a PR" is about the reconciliation the command asked for (label d10).
    state = _state("d96_langlearn_release_voice")
    assert not any("project-specific content" in c for c in state.learnings)
    commit = [d.what for d in state.decisions if d.what.startswith("commit this on a branch")]
    assert len(commit) == 1 and matches(commit[0], _label("d96_langlearn_release_voice", "decisions", "d10"))
    # The agent's reconcile reports no longer answer "release v0.6.4", said before the command.
    release = next(d.what for d in state.decisions if d.what.startswith("release v0.6.4"))
    assert "All 10 steps complete" in release


def test_a_capture_split_between_the_echo_and_the_prompt_reads_the_same() -> None:
    # The sidecar captures in batches and saves the state between them: the echo's command must carry over.
    reader = read_transcript(REAL / "d96_langlearn_release_voice.jsonl")
    entries = list(reader.entries)
    echo = next(i for i, e in enumerate(entries) if e.id and e.id.startswith("124a7c6f"))
    first = capture(CapturedState(), entries[:echo + 1], reader.read_object)
    assert first.command == "/punt-dev:reconcile"
    resumed = capture(CapturedState.from_dict(first.to_dict()), entries[echo + 1:], reader.read_object)
    assert resumed.items() == _state("d96_langlearn_release_voice").items()
