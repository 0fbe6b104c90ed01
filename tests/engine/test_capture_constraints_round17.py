"""Constraints on real conversations, round 17 (docs/capture.md, "Capture figures, round 17 (constraints)"): the
classes of FIT constraint misses that hold in at least two FIT repositories. Real FIT text quoted verbatim."""

from __future__ import annotations

import pytest

from bench.real import matches
from engine.capture.acts import read_user_turn
from engine.capture.ledger import Ledger, fold_user
from tests.engine.test_capture_real import _label, _state


def _rules(text: str) -> list[str]:
    return [s.text for s in read_user_turn(text, False).sentences if s.preference]


@pytest.mark.parametrize(("name", "label"), [("d22_twat_brave", "C1"), ("d79_duet_readme_hook", "C2")])
def test_should_not_in_capitals_forbids_whatever_verb_follows(name: str, label: str) -> None:
    # twardoch/twat-search d22 and tslateman/duet d79: "appear" and "file" are no verb of the old list.
    assert _rules("This should NOT appear in non-verbose") == ["This should NOT appear in non-verbose"]
    said = "we probably should NOT file issues in this way - we ought to check guidelines first"
    assert _rules(f"hey... {said}") == [said]
    assert any(matches(c, _label(name, "constraints", label)) for c in _state(name).learnings)


def test_a_plain_you_should_not_corrects_one_design_and_is_no_rule() -> None:
    # specstoryai/keyframe-blogger d14: a decision of its own (D6), no standing rule.
    assert _rules("Good. except you should not limit to just 30 frames.") == []


def test_how_a_thing_should_be_set_against_what_it_is_not_is_a_rule() -> None:
    # PackmindHub/context-evaluator d86 (C1) and Safecast/safecast-map-MCP d64 (its acceptable AC1).
    said = 'Claude Rule should appear as "Claude Rule", not just "Rule"'
    assert _rules(said) == [said]
    links = ("Links work, but the map should get coordinates for the device and instiruct the map to go to there, "
             "not a device name.")
    assert _rules(links) == [links]
    assert any(matches(c, _label("d86_packmind_tree_view", "constraints", "C1"))
               for c in _state("d86_packmind_tree_view").learnings)


def test_a_step_tied_to_one_that_recurs_is_a_habit() -> None:
    # tslateman/duet d79 (C1); 0xmcc/ubi-course d11's "commit always before updating" was a rule already.
    said = "we should run the prettier formatter on the README before committing it."
    assert _rules(f"reset the commit! {said} just the readme, not all md") == [said]
    assert any(matches(c, _label("d79_duet_readme_hook", "constraints", "C1"))
               for c in _state("d79_duet_readme_hook").learnings)


def test_a_default_is_how_the_thing_behaves_from_now_on() -> None:
    # specstoryai/tnyOffice d02 (C2) and specstoryai/keyframe-blogger d15.
    said = "put it back and make it optional (by default it just applies changes)"
    assert _rules(f"just kidding. I like that. {said}") == [said]
    assert "So, by default the script will use inline images." in _rules(
        "Don't delete by default. Make that another separate command line option. So, by default the script will use "
        "inline images.")
    assert any(matches(c, _label("d02_tny_git_pull_impl", "constraints", "C2"))
               for c in _state("d02_tny_git_pull_impl").learnings)
    # How a tool is, and a request for words, are no default the user sets.
    assert _rules("Since Poetry (2.0.0), the shell command is not installed by default.") == []
    assert _rules("given this, we don't need it in our api .env.example file and the @README.md should just "
                  "indicate what happens by default") == []


@pytest.mark.parametrize(("name", "label"), [("d62_leeson_commit_signing", "C2"), ("d85_napoli_pty_logs", "C1")])
def test_a_convention_to_follow_is_a_rule_and_the_work_of_following_it(name: str, label: str) -> None:
    # rommeld/leeson d62 and theogbrand/napoli-matcha d85.
    assert _rules("check out the chances in my project. write commits. follow common git pattern. divide the "
                  "commits by domaine.") == ["follow common git pattern."]
    said = ('One last refactor so PR titles follow this pattern "HOR-8: Context Handoff Compaction for Worker Agents" '
            'and PR feature branches look like "feat/AGI-{n}" so I can easily match the feature requests to PRs')
    turn = read_user_turn(said, False)
    assert turn.acts == {"instructs", "prefers"}
    state = _state(name)
    assert any(matches(c, _label(name, "constraints", label)) for c in state.learnings)
    if name == "d85_napoli_pty_logs":  # the refactor is still asked for: the decision (D5) and its commit (D6) stay
        decisions = [d.what for d in state.decisions]
        for wanted in ("D5", "D6"):
            assert any(matches(d, _label(name, "decisions", wanted)) for d in decisions), wanted


@pytest.mark.parametrize(("name", "label"), [("d04_zch_bookmark_layout", "C4"), ("d05_zch_i18n", "C2"),
                                             ("d62_leeson_commit_signing", "C1")])
def test_how_short_the_agent_is_to_be_is_a_rule_however_few_its_words(name: str, label: str) -> None:
    # zchdoc/shadcn-ui-sidebar-08-admin-dev d04 and d05, rommeld/leeson d62.
    assert "If you propose a fix, please make it concise." in _rules(
        "For the code present, we get this error: ``` 找不到模块“next/navigation”或其相应的类型声明。 ``` How can I "
        "resolve this? If you propose a fix, please make it concise.")
    assert _rules("update the README.md. describe the current project structure and functionality. avoid "
                  "verbosity.") == ["avoid verbosity."]
    assert any(matches(c, _label(name, "constraints", label)) for c in _state(name).learnings)


def test_what_the_user_asks_the_agent_to_keep_in_memory_is_a_rule() -> None:
    # theogbrand/napoli-matcha d84 (C1) and Real-s/mini-simclr-assignment d59.
    said = ('I want to save this "style" of OOP and production-grade maintainability and readability in the rest of '
            'my project, please come up with a user memory section that I can add to my CLAUDE.md user memory file.')
    assert _rules(said) == [said]
    memory = ("写下这个项目的记忆：\n1.使用python验证器使用 conda环境的MedAI\n"
              "2.给予我修改建议即可 我现在处于学习阶段不需要直接给我修改文件")
    assert "写下这个项目的记忆：" in _rules(memory)
    assert _rules("Add it to *Project-level memory instead, and then commit all changes") == []
    assert any(matches(c, _label("d84_napoli_oop_refactor", "constraints", "C1"))
               for c in _state("d84_napoli_oop_refactor").learnings)


def test_how_every_one_of_a_kind_is_to_be_is_a_rule() -> None:
    # obsessiondb/chkit d82 (C1) and the plan rommeld/leeson d61 implements.
    assert _rules("So each package should just handle their own arguments.") == [
        "So each package should just handle their own arguments."]
    assert _rules("Each step should compile and pass clippy before proceeding:") == [
        "Each step should compile and pass clippy before proceeding:"]
    # The kind must be the subject: "the result from each engine should include …" describes one change.
    assert _rules('The result from each engine should include an additional key "result" where the value is the '
                  '"NATIVE DETAILED" form of the result returned by the engine, whatever that might be.') == []
    assert any(matches(c, _label("d82_chkit_flag_parser", "constraints", "C1"))
               for c in _state("d82_chkit_flag_parser").learnings)


@pytest.mark.parametrize("said", [
    'I dont like the "Use Cursor, Claude, Github, etc" because people may not know what those are but I do like learn '
    'advanced ai workflows.',  # 0xmcc/ubi-course d11: the label is a decision (D11), no constraint
    'if a value field a field is null i dont want to see "Keine Daten" rather just a empty String.',  # KLIMA d52
])
def test_a_dislike_of_one_quoted_piece_of_the_output_is_an_order_not_a_rule(said: str) -> None:
    (sentence,) = read_user_turn(said, False).sentences
    assert sentence.instruction and not sentence.preference


def test_the_dislikes_give_no_constraint_and_stay_in_their_decisions() -> None:
    state = _state("d11_ubi_codex_landing")
    assert not any("Use Cursor, Claude" in c for c in state.learnings)
    assert any(matches(d.what, _label("d11_ubi_codex_landing", "decisions", "D11")) for d in state.decisions)
    assert not any("Keine Daten" in c for c in _state("d52_klima_results_tables").learnings)
    assert any("Keine Daten" in d.what for d in _state("d52_klima_results_tables").decisions)


# specstoryai/keyframe-blogger d15: Poetry's error under "help me"; tslateman/duet d78: a rationale copied from a
# terminal under the user's order. Both indent their list items, with no item at the margin above them.
_POETRY = (
    "help me \nThe current project's supported Python range (>=3.8,<4.0) is not compatible with some of the required "
    "packages Python requirement:\n  - google-genai requires Python >=3.9, so it will not be installable for Python "
    ">=3.8,<3.9\n\nBecause no versions of google-genai match >1.25.0,<2.0.0\n and google-genai (1.25.0) requires "
    "Python >=3.9, google-genai is forbidden.")
_RATIONALE = (
    "rename /whats-next to /vamp\nrationale:\n\n  The case for vamp\n\n  - Jazz-native: vamping is what musicians do "
    "between sections — repeat a figure while listening, deciding what to play next. That's exactly the\n  moment this "
    "skill serves: you're between tasks, surveying the project, choosing where to go\n  - Fits the \"duet\" namespace "
    "— deepens the music metaphor rather than just sitting beside it\n  - Imperative verb, one syllable, distinctive "
    "among siblings")


@pytest.mark.parametrize(("name", "text", "said"), [
    ("d15_kfb_renamed", _POETRY, "google-genai requires Python >=3.9"),
    ("d78_duet_vamp_rename", _RATIONALE, "deepens the music metaphor"),
])
def test_a_list_indented_as_a_terminal_prints_it_is_copied_and_gives_no_rule(name: str, text: str, said: str) -> None:
    ledger = fold_user(Ledger(), text, None, "e1")
    assert not [i.text for i in ledger.items if i.kind == "constraint"]
    assert not any(said in c for c in _state(name).learnings)


@pytest.mark.parametrize(("name", "label"), [("d08_odyash_devto_paths", "C4"), ("d13_kfb_blog_pipeline", "C2")])
def test_step_by_step_is_how_the_agent_is_to_answer(name: str, label: str) -> None:
    # OdyAsh/odyash-dev.to d08 and specstoryai/keyframe-blogger d13.
    said = ("write docs at the start of #file:update-paths.js to explain how it works step by step in english (with "
            "path examples)")
    assert _rules(said) == [said]
    assert _rules("where do I get my api key? and how step by step") == ["and how step by step"]
    assert any(matches(c, _label(name, "constraints", label)) for c in _state(name).learnings)
