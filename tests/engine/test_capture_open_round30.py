"""Open items at the end, round 30 (docs/capture.md): native4's sessions. Real development text quoted verbatim."""

from __future__ import annotations

from dataclasses import replace

from engine.capture.ledger import Ledger, fold_agent, fold_user, ledger_at_end
from tests.engine.test_capture_real import _fold, _open, _state

# d100 (PantherianCodeX/udocket.com, Codex): the user's last request and the agent's last message, which reports the
# work in the simple past and ends by leaving the next move to the user.
_MIGRATIONS = ("We don't need reversible migrations, we are in dev mode. That should be included too - currently in "
               "rapid dev mode, no back-compat code and no reversible migrations. Amend the update please.")
_UPDATED = (
    "Updated the constitution to v1.2.0 reflecting rapid-dev posture: Principle P6 now states we run forward-only "
    "migrations with documented cleanup (no back-compat shims), and Workflow guidance stresses \u201cforward-only "
    "schema migrations\u201d rather than reversible ones. Plan/spec/tasks templates were aligned\u2014P6 checklist now "
    "asks for forward-only migration plans, spec template\u2019s migration section echoes the dev-mode rule, and tasks "
    "template\u2019s foundational phase now calls for forward-only migration + DR documentation.\n\n"
    "Schema policy remains unchanged: Pydantic for internals, exported JSON Schemas for external consumers.\n\n"
    "Let me know if you\u2019d like this ratcheted into specific feature specs/plans/tasks next."
)
# d99 (savekirk/session-bridge, Codex): the same shape, "I fixed that in …".
_BOOTSTRAP = ("Session details should not have any initial agent bootstraping messages. The first item should be the "
              "first prompt from the user")
_FIXED = (
    "Session details now start at the first real user prompt. I fixed that in [nativeTranscript.ts](/Users/savekirk/"
    "dev/ai/entire/session-bridge/src/checkpoints/nativeTranscript.ts) by trimming leading bootstrap/primer messages "
    "before the visible transcript is built, so initial agent/setup entries no longer show ahead of the first "
    "meaningful user turn. I also added a regression in [nativeTranscript.test.ts](/Users/savekirk/dev/ai/entire/"
    "session-bridge/src/test/checkpoints/nativeTranscript.test.ts) that injects a bootstrap assistant message before "
    "the prompt and verifies the first rendered turn is still the user prompt.\n\n"
    "Verified with `pnpm -s check-types` and `pnpm -s test --grep \"parses current Codex rollout transcripts and skips "
    "synthetic primers\"`. The broader `Native Transcript Parsing` slice still has the existing unrelated Cursor "
    "`user_query` wrapper failure."
)


def test_a_report_in_the_simple_past_closes_the_last_request() -> None:
    assert _open(_fold(("user", _BOOTSTRAP), ("assistant", _FIXED))) == []
    # FIT says the same after a "Done" (keyframe-blogger d15: "Done! Updated the copyright to SpecStory, Inc.").
    assert _open(_fold(("user", _BOOTSTRAP), ("assistant", "Updated the copyright to SpecStory, Inc."))) == []
    # An announcement still keeps it open.
    assert _open(_fold(("user", _BOOTSTRAP), ("assistant", "I'll update the transcript parser next:"))) == [_BOOTSTRAP]
    assert _state("d99_sbridge_details_redesign").open_items == ()


def test_let_me_know_at_the_end_announces_no_more_work() -> None:
    assert _open(_fold(("user", _MIGRATIONS), ("assistant", _UPDATED))) == []
    # "Let me …" that does announce work still does.
    announced = _UPDATED.rsplit("\n\n", 1)[0] + "\n\nLet me update the plan template next:"
    assert _open(_fold(("user", _MIGRATIONS), ("assistant", announced))) == [_MIGRATIONS]
    assert _state("d100_udocket_constitution").open_items == ()


# d105 (SproutSeeds/coda, Codex): the user's last request and the agent's last message, which cannot do it.
_PUSH = "lets go ahead and push this up to our repo should be connected correct to coda?"
_CANNOT_PUSH = (
    "I can\u2019t push from here, but you can finish it in a couple of commands:\n\n1. `git add .`\n"
    "2. `git status -sb` (quick check for unexpected files)\n"
    "3. `git commit -m \"chore: scaffold ideavault env and planning artifacts\"`  \n"
    "4. `git push origin 001-build-a-lightweight`\n\nThat\u2019ll send the current branch up to the `coda` repo."
)
# d95 (nakamura-shuta/tij, Claude Code): the last request, and the agent's last message leaving the push to the user.
_PUBLISH = "確認OKでした。plan.md, README更新後にcommit,push,publishしてください"
_RUN_THESE = (
    "コミット完了。jj に取り込んでプッシュします。\n\n**jj コマンド説明:**\n"
    "1. `jj git import` — git のコミットを jj に取り込む\n"
    "2. `jj bookmark set main -r @` — main ブックマークを現在のリビジョンに設定\n"
    "3. `jj git push -b main` — main をリモートにプッシュ\n\n"
    "以下を実行してください:\n\n```bash\njj git import\njj bookmark set main -r @\njj git push -b main\n```\n\n"
    "プッシュ後、タグを打って publish をトリガーします:\n\n```bash\ngit tag v0.4.6\ngit push origin v0.4.6\n```\n\n"
    "タグプッシュで release.yml → cargo publish + GitHub Release → homebrew.yml が自動実行されます。"
)


def test_commands_left_for_the_user_keep_the_last_request_open_with_them() -> None:
    assert _open(_fold(("user", _PUSH), ("assistant", _CANNOT_PUSH))) == [
        f"{_PUSH} → git add .; git status -sb; git commit -m \"chore: scaffold ideavault env and planning artifacts\"; "
        "git push origin 001-build-a-lightweight"]
    assert _open(_fold(("user", _PUBLISH), ("assistant", _RUN_THESE))) == [
        f"{_PUBLISH} → jj git import; jj bookmark set main -r @; jj git push -b main; git tag v0.4.6; "
        "git push origin v0.4.6"]
    # Commands shown as what the agent ran, with no word handing them over, leave nothing open.
    ran = "Committed and pushed:\n\n```bash\ngit push origin 001-build-a-lightweight\n```"
    assert _open(_fold(("user", _PUSH), ("assistant", ran))) == []
    # The whole sessions: the labelled open items (coda o1, tij o1) are found.
    assert any("git push origin 001-build-a-lightweight" in o for o in _state("d105_coda_speckit_ideavault").open_items)
    assert any("v0.4.6" in o and "push" in o for o in _state("d95_tij_rebase_revset").open_items)


# d107 (4thehalibit/omarchy-backup, Claude Code): the user asks for a shortcut, stops the agent's first tool call, says
# a fact about the same work, and the agent finishes it.
_TEAMS = "sweet i need another for teams"
_PWA = "teams is installed as a pwa"
_DONE_TEAMS = "Done. `SUPER + SHIFT + T` opens Teams, `SUPER + SHIFT + ALT + T` opens btop."


def test_a_fact_after_an_interrupt_takes_the_stopped_work_up_again() -> None:
    ledger = fold_agent(fold_user(Ledger(), _TEAMS, "t0", "e0"), "", True, "t1", "e1")
    ledger = replace(ledger, interrupted=True)  # "[Request interrupted by user for tool use]"
    ledger = fold_agent(fold_user(ledger, _PWA, "t2", "e2"), _DONE_TEAMS, True, "t3", "e3")
    assert [i.text for i in ledger_at_end(ledger, "t4") if i.kind == "open" and not i.done] == []
    # One run of words after the interrupt names nothing: the stopped "go on" stays open (repiq d69, round 20).
    assert any(o.startswith("続けて") for o in _state("d69_repiq_license_trend").open_items)
    assert _state("d107_omarchy_hypr_keybinds").open_items == ()
