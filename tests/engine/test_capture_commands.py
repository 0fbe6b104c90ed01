"""Slash commands in Claude Code transcripts (docs/capture.md, Harness text): the echo of the command the user typed,
then the command's prompt as the next user-role record. The user's turn is the command, not the command author's text.
Real FIT text (punt-labs/langlearn-tts d96, yutakobayashidev/repiq d69)."""

from __future__ import annotations

from bench.real import matches
from engine.capture.envelopes import command_request, command_typed, user_words
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


def test_a_command_file_titled_by_its_own_name_says_it_once() -> None:
    # claude-zibe d104: "/zibe-check" then "# /zibe-check — Quick Spot Check …".
    assert command_request("/zibe-check", "# /zibe-check — Quick Spot Check\n\nPrint to stdout. NO files.") == (
        "/zibe-check — Quick Spot Check")


def test_the_text_of_a_skill_the_agent_launched_is_not_the_users() -> None:
    # omarchy d107: the Skill tool answers "Launching skill: keybindings-help" and Claude Code adds the skill's text
    # ("# Keybindings Skill … **Always read `~/.claude/keybindings.json` first**") as a user-role record. It is no
    # request of the user's and no context for the user's next order.
    items = _state("d107_omarchy_hypr_keybinds").items()
    assert not any("keybindings.json" in i.text for i in items)
    vivaldi = next(i.text for i in items if i.kind == "decision" and i.text.startswith("I need one that open Vivaldi"))
    assert "(re: I need some new keyboard shortcuts added to my keybindings file)" in vivaldi
    assert not any("Project Health Check Check:" in i.text for i in _state("d104_sentinel_phase3_eval").items())


def test_a_spec_kit_prompt_is_the_users_arguments_with_the_commands_purpose() -> None:
    # udocket d100 (Codex): Spec Kit's template around the user's words; an empty fence is no turn of the user's.
    template = ("\n## User Input\n\n```text\n{}\n```\n\nYou **MUST** consider the user input before proceeding (if not "
                "empty).\n\n## Outline\n\nYou are updating the project constitution at "
                "`.specify/memory/constitution.md`. This file is a TEMPLATE containing placeholder tokens.")
    assert user_words(template.format("")) == ""
    said = "must be updated to support the standards of this project."
    assert user_words(template.format(said)) == (
        f"{said} — You are updating the project constitution at `.specify/memory/constitution.md`.")


def test_the_thread_reads_commands_and_skills_as_the_ledger_does() -> None:
    # The Decisions tab's key exchanges and thread come from extract_thread: the same records must be harness there.
    from engine.accounting.context import build_context
    from engine.capture.thread import extract_thread

    def said(name: str) -> list[str]:
        reader = read_transcript(REAL / f"{name}.jsonl")
        view = build_context(reader.entries, reader.by_id, reader.leaf)
        return [text for _, text in extract_thread(view.messages, reader.read_object).user_said]

    assert not any("Keybindings Skill" in text for text in said("d107_omarchy_hypr_keybinds"))
    langlearn = said("d96_langlearn_release_voice")
    assert "/punt-dev:reconcile — Reconcile Project with Punt Labs Standards" in langlearn
    assert not any("project-specific content" in text for text in langlearn)
