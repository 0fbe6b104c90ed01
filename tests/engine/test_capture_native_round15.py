"""Capture on native Claude Code sessions, round 15 (docs/capture.md, "Capture figures, round 15"): harness text that
Conductor, plugin commands and the Skill tool write into the user's turn, approvals that carry the user's own order,
and work that ended once it was committed. Real FIT text quoted verbatim."""

from __future__ import annotations

from bench.real import matches
from engine.capture.acts import read_user_turn
from engine.capture.approval_order import order_beyond_yes
from engine.capture.envelopes import plan_steps, user_words
from engine.capture.ledger import Ledger, fold_agent, fold_user, ledger_at_end
from tests.engine.test_capture_real import _label, _state

# obsessiondb/chkit d82, the session's first message: two Conductor blocks, then the user's own order.
_CONDUCTOR = (
    "<system_instruction>\nYou are working inside Conductor, a Mac app that lets the user run many coding agents in "
    "parallel.\nYour work should take place in the /Users/marc/conductor/workspaces/chkit/belo-horizonte-v1 directory "
    "(unless otherwise directed), which has been set up for you to work in.\nEach workspace has a .context directory "
    "(gitignored) where you can save files to collaborate with other agents.\nThe target branch for this workspace is "
    "main. Use this for actions like creating new PRs, bisecting, etc., unless you're told otherwise.\n\nIf the user "
    "asks you to work on several unrelated tasks in parallel, you can suggest they start new workspaces.\nIf the user "
    "asks for help with Conductor, ask them to email [humans@conductor.build](mailto:humans@conductor.build) or\nclick "
    "on the comment icon in the bottom left to send feedback.\n</system_instruction>\n\n\n<system-instruction>\nTo do "
    "immediately, before using any skills or any other tools (one time only):\n\nRename the branch using `git branch "
    "-m`. Do not check the current branch name.\n\nChoosing a branch name: use concrete, specific language, avoid "
    "abstract nouns, and be concise (<30 characters). Use the prefix \"marc/\" before the name.\n\n"
    "</system-instruction>\n\nimplement Rec 01: Typed Flag Parser")
# d81: an attachment notice before the user's words.
_ATTACHED = ("\n<system_instruction>\nThe user has attached these files. Read them before proceeding.\n- "
             "/Users/marc/conductor/workspaces/chkit/prague/.context/attachments/PR instructions.md\n"
             "</system_instruction>\n\n\n\nCreate a PR")
# Skill texts the Skill tool loaded as user-role messages: tslateman/duet d77 (/prose) and chkit d81.
_SKILLS = (
    "Base directory for this skill: /Users/tslater/.claude/plugins/cache/local/duet/0.1.1/skills/prose\n\n# Writing "
    "Clearly and Concisely\n\n## Overview\n\nWilliam Strunk Jr.'s _The Elements of Style_ (1918) teaches you to write "
    "clearly and cut ruthlessly.",
    "Base directory for this skill: /Users/marc/conductor/workspaces/chkit/prague/.claude/skills/testing-bun\n\n# "
    "Testing Standards (Bun)\n\n## Framework\n- Use `bun:test` imports (`describe`, `test`, `expect`, etc.)\n- Use Bun "
    "test runner (`bun test`), typically via workspace scripts (`bun run test`)\n- Do not introduce Vitest/Jest in "
    "this repo",
)
# duet d78: the expansion of `/duet:note-why`, which opens with the command's own title.
_NOTE_WHY = (
    "# Commit Rationale Annotation\n\n## Context\n\n- Current commit: 0db5f1f fix: Move statusline to Getting Started, "
    "resolve vamp, prune stale riff\n- Changed files: README.md\nnotes/riffs.md\nnotes/vamp.md\n\n## Your Task\n\n"
    "Annotate a commit with rationale using `git notes`. This captures the _why_ behind\na commit without changing its "
    "SHA.")


def test_conductors_system_instruction_blocks_are_harness_and_the_users_words_stay() -> None:
    assert user_words(_CONDUCTOR) == "implement Rec 01: Typed Flag Parser"
    assert user_words(_ATTACHED) == "Create a PR"


def test_a_skill_text_loaded_by_the_skill_tool_is_not_the_user() -> None:
    for text in _SKILLS:
        assert user_words(text) == "", text[:60]


def test_a_plugin_commands_expansion_with_its_own_title_is_not_the_user() -> None:
    assert user_words(_NOTE_WHY) == ""
    # The user's own words that merely start with a heading stay theirs.
    assert user_words("# Notes\n\nrename /whats-next to /vamp") != ""


def test_no_conductor_or_command_text_becomes_a_decision_or_a_rule_in_the_sessions() -> None:
    for name in ("d81_chkit_plugin_hook", "d82_chkit_flag_parser", "d78_duet_vamp_rename"):
        state = _state(name)
        said = [d.what for d in state.decisions] + list(state.learnings)
        assert not any("Your work should take place" in s or "current branch name" in s or "git notes show" in s
                       for s in said), name


# --- an approval that carries the user's own order (duet d78, napoli-matcha d83 d84, safecast d65, chkit d82) ------

_AUDIT_END = ("### One fix found\n\n`plugin.json` keywords are missing `ia` and `prose`. Affects discoverability if "
              "anything ever indexes those keywords.\n\n### Usage evidence\n\nStrong evidence in this repo's commit "
              "history for `/sweep`, `/review`, `/probe`, `/vamp`, `/ponder`, `/retro`.\n\n---\n\n"
              "Want me to fix the `plugin.json` keywords?")


def _decisions_after(reply: str) -> list[str]:
    ledger = fold_agent(Ledger(), _AUDIT_END, True, "t1", "a1")
    ledger = fold_user(ledger, reply, "t2", "u2")
    return [i.text for i in ledger_at_end(ledger, "t3") if i.kind == "decision"]


def test_a_yes_that_goes_on_to_say_what_to_do_is_decided_in_the_users_words() -> None:
    decided = _decisions_after("yes, fix plugin.json")
    assert len(decided) == 1 and decided[0].startswith("yes, fix plugin.json (agrees: ")
    # What a bare yes confirms stays beside the user's words, and a bare yes confirms it alone.
    assert _decisions_after("yes") == [decided[0].split(" (agrees: ", 1)[1][:-1]]
    assert order_beyond_yes("yeah do it") is None and order_beyond_yes("Yes..") is None
    assert order_beyond_yes("ok proceed with TypeScript") == "ok proceed with TypeScript"


def test_the_sessions_approvals_with_orders_match_their_labels() -> None:
    for name, label in (("d78_duet_vamp_rename", "D5"), ("d83_napoli_plan_review", "D1"),
                        ("d83_napoli_plan_review", "D4"), ("d83_napoli_plan_review", "D8"),
                        ("d84_napoli_oop_refactor", "D2"), ("d65_safecast_mistral_guidance", "D3")):
        decisions = [d.what for d in _state(name).decisions]
        assert any(matches(d, _label(name, "decisions", label)) for d in decisions), (name, label)


# --- work that ended once it was committed (chkit d80, d81; duet d78 reports the same way) -------------------------


def test_work_the_agent_reports_committed_and_pushed_is_done_at_the_end() -> None:
    ledger = fold_user(Ledger(), "great. now do a cmmit on this current dirty worktree and push it", "t1", "u1")
    ledger = fold_agent(ledger, "Committed and pushed as `cd7e235`.", True, "t2", "a2")
    assert not [i.text for i in ledger_at_end(ledger, "t3") if i.kind == "open" and not i.done]
    for name, asked in (("d80_chkit_manual_release", "dirty worktree"), ("d81_chkit_plugin_hook", "Commit and push")):
        assert not any(asked in item for item in _state(name).open_items), name
    # A commit still to be made is no report that it was.
    ledger = fold_user(Ledger(), "commit this", "t1", "u1")
    ledger = fold_agent(ledger, "Nothing committed yet: the hook failed.", True, "t2", "a2")
    assert [i.text for i in ledger_at_end(ledger, "t3") if i.kind == "open" and not i.done] == ["commit this"]


# --- a change put softly: "we can drop …" (duet d77, chkit d80) ------------------------------------------------------


def test_we_can_and_an_action_is_an_order_not_a_report() -> None:
    for said in ("we can drop vamp.md and the related pre-push hook",
                 "okay this worked, so we can delete manual-release and just do the manual-release-bun version.",
                 "i think we can cut the /note-why - utility feels low"):
        assert read_user_turn(said, False).has("instructs"), said
    # Put off for later (tha-hammer/easy-video-share-vue d23), or a purpose: no order.
    assert not read_user_turn("we can add video sharing and go high level webhook integration after.", False).has(
        "instructs")
    for name, label in (("d77_duet_philosophy_readme", "D1"), ("d80_chkit_manual_release", "D5")):
        decisions = [d.what for d in _state(name).decisions]
        assert any(matches(d, _label(name, "decisions", label)) for d in decisions), (name, label)


# --- a plan accepted in plan mode: its steps are what was agreed (duet d78; headings verbatim, most bodies left out) --

_DUET_PLAN = "".join((
    "Implement the following plan:\n\n# Plan: Duet Tooling & Polish\n\n## Context\n\n",
    "The `/whats-next` analysis surfaced three tooling improvements and three polish fixes. Several turned out to ",
    "already be in place (GH Actions, URLs), narrowing the actual work.\n\n## Changes\n\n",
    "### 1. GitHub Actions — already done\n\n",
    "`.github/workflows/lint.yml` already runs `markdownlint-cli` on PRs to `main`, plus frontmatter validation and ",
    "broken-reference checks. No changes needed.\n\n",
    "### 2. URLs — already consistent\n\n",
    "### 3. Pre-commit hook: generate-readme.sh before prettier\n\n**File:** `.git/hooks/pre-commit`\n\n",
    "### 4. Resolve vamp.md\n\n",
    "### 5. Remove dangling `score/` suggestion from riffs.md\n\n",
    "### 6. Move `/install-statusline` to Getting Started\n\n",
    "## Verification\n\n",
    "- Run `scripts/generate-readme.sh` and confirm README.md is unchanged (tables already in sync)",
))


def test_an_accepted_plan_is_decided_with_the_steps_its_headings_name() -> None:
    assert plan_steps(_DUET_PLAN) == [
        "1. GitHub Actions — already done", "2. URLs — already consistent",
        "3. Pre-commit hook: generate-readme.sh before prettier", "4. Resolve vamp.md",
        "5. Remove dangling `score/` suggestion from riffs.md", "6. Move `/install-statusline` to Getting Started"]
    decided = [i.text for i in ledger_at_end(fold_user(Ledger(), _DUET_PLAN, "t1", "u1"), "t2") if i.kind == "decision"]
    assert decided[0].startswith("Agreed plan: Duet Tooling & Polish — 1. GitHub Actions")
    assert "Context" not in decided[0] and "Verification" not in decided[0]
    decisions = [d.what for d in _state("d78_duet_vamp_rename").decisions]
    assert any(matches(d, _label("d78_duet_vamp_rename", "decisions", "D1")) for d in decisions)


# --- a request for an answer is no decision (safecast d63, napoli-matcha d83) ----------------------------------------


def test_asking_to_check_reread_summarize_or_clarify_sets_no_direction() -> None:
    for said in ("Can you check if we can merge this PR https://github.com/Safecast/safecast-map-MCP/pull/5",
                 "Re-read @IMPLEMENTATION_PLAN.md top to bottom carefully, and summarize the core agent workflow that "
                 "this plan will implement in napoli-matcha.",
                 "Clarify what the final structure of the requests_queue will be which stores the requests queues and "
                 "tickets created by the spec agent"):
        items = ledger_at_end(fold_user(Ledger(), said, "t1", "u1"), "t2")
        assert not [i for i in items if i.kind == "decision"], said
        assert [i for i in items if i.kind == "open"], said  # still asked for: an open request
    # An order put as a question still decides when it names its thing.
    items = ledger_at_end(fold_user(Ledger(), "Can you move the helpers into src/utils/format.ts?", "t1", "u1"), "t2")
    assert [i.text for i in items if i.kind == "decision"]


def test_a_question_without_its_mark_is_no_report_that_something_works() -> None:
    # duet d79: "work" in the question read as "it works", and the "yes" it gave confirmed the agent's last sentence.
    turn = read_user_turn("what should I work on next", True)
    assert turn.has("asks") and not turn.has("acknowledges")
    decisions = [d.what for d in _state("d79_duet_readme_hook").decisions]
    assert not any(d.startswith("The question worth sitting with") for d in decisions)
