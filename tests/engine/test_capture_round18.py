"""Capture round 18 (docs/capture.md, "Capture figures, round 18 (decisions)"): what a yes to a short offer of an
action agrees to. Real FIT text quoted verbatim."""

from __future__ import annotations

from bench.real import matches
from engine.capture.ledger import agreed, ledger_of
from tests.engine.test_capture_real import _decisions, _fold, _label, _state

# tslateman/duet d79: the agent's turns after "it's a bug" and after "yep".
_DUET_CHECK = ("In Claude Code, not Duet — `/rename` changes the session label but `--resume` still uses the session "
               "ID. So you can't resume by the original name \"elton\" after renaming to \"kiki\", and there's no way "
               "to know \"kiki\" used to be \"elton\".\n\nIs that the bug you mean, or is it something different?")
_DUET_BUG = "That's a Claude Code bug, not something we can fix in Duet. Want to file it?"
# obsessiondb/chkit d80: the agent's report closing on an offer to commit.
_CHKIT_COMMIT = ("Done. `manual-release-bun.ts` is now `manual-release.ts` — no workspace resolution, uses `bun "
                 "publish`. Want me to commit this?")


def test_a_yes_to_a_short_offer_to_file_the_bug_agrees_to_filing_it_not_to_the_diagnosis() -> None:
    items = ledger_of([
        ("user", "it's a bug", None, "u11", False),
        ("assistant", _DUET_CHECK, None, "a11", False),
        ("user", "yep", None, "u12", False),
        ("assistant", _DUET_BUG, None, "a12", False),
        ("user", "yes", None, "u13", False),
    ])
    decisions = [i.text for i in items if i.kind == "decision" and i.entry_id == "u13"]
    # Before: "That's a Claude Code bug, not something we can fix in Duet." -- the diagnosis, with nothing agreed.
    assert decisions == ["That's a Claude Code bug, not something we can fix in Duet. File it"]


def test_the_duet_session_records_the_filing_the_yes_agreed_to() -> None:
    filed = _label("d79_duet_readme_hook", "acceptable_decisions", "AD1")
    decisions = [d.what for d in _state("d79_duet_readme_hook").decisions]
    assert any(matches(d, filed) for d in decisions)
    assert "That's a Claude Code bug, not something we can fix in Duet." not in decisions


def test_an_offer_to_commit_this_is_agreed_to_as_the_commit_and_an_offer_to_go_on_as_the_sentence_before() -> None:
    # Before: the pronoun rule for "… Would you like me to do that?" also took "commit this" for going on.
    assert agreed(_CHKIT_COMMIT) == ("Done. `manual-release-bun.ts` is now `manual-release.ts` — no workspace "
                                     "resolution, uses `bun publish`. Commit this")
    assert agreed("Done. `manual-release-bun.ts` is now `manual-release.ts`. Shall I proceed?") == (
        "Done. `manual-release-bun.ts` is now `manual-release.ts`.")
    assert agreed("I'll drop the old script. Would you like me to do that?") == "I'll drop the old script."


def test_a_document_update_that_names_new_content_sets_direction() -> None:
    # PierrunoYT/expense-tracker d53, rommeld/leeson d62, tslateman/duet d77: the user's whole message, verbatim.
    # Before: each read as writing up done work (a bare update, or "how …"), so no decision.
    assert _decisions(_fold(("user", "update the readme how to use it on win mac and linux"))) == [
        "update the readme how to use it on win mac and linux"]
    # (Since round 17 "avoid verbosity." is a rule of the agent's manner, so the decision may carry it too.)
    readme = _decisions(_fold(("user", "update the README.md. describe the current project structure and "
                                       "functionality. avoid verbosity.")))
    assert len(readme) == 1 and readme[0].startswith(
        "update the README.md. describe the current project structure and functionality.")
    expand = _decisions(_fold(("user", "i want to expand philosophy.md\nright now it focuses on going back and forth "
                                       "with the human-AI, but I also want to highlight another relationship. "
                                       "multiple humans adopting duet can themselves form a duet by \"singing\" "
                                       "their part in prompts to the model")))
    assert len(expand) == 1 and expand[0].startswith("i want to expand philosophy.md")
    # Still write-ups (tnyOffice d02, keyframe-blogger d14 and d18): pointing back at done work, or a bare update alone.
    assert _decisions(_fold(("user", "update @apps/api/README.md to clarify this"))) == []
    assert _decisions(_fold(("user", "update @README.md"))) == []
    assert _decisions(_fold(("user", "update @README.md based on all the changes you made to process_with_ai"))) == []


def test_writing_up_done_work_is_no_decision_past_a_file_names_dot_or_a_five_word_lead() -> None:
    # OdyAsh/odyash-dev.to d08 U6 and specstoryai/keyframe-blogger d15 U1, verbatim. Before: both were decisions (the
    # dot in "update-paths.js" ended the search for "to explain"; "Make some minor updates to" is five words).
    assert _decisions(_fold(("user", "write docs at the start of #file:update-paths.js  to explain how it works step "
                                     "by step in english (with path examples)"))) == []
    assert _decisions(_fold(("user", "we renamed this project from video_transcriber to keyframe-blogger to better "
                                     "reflect what it's actually doing now. Make some minor updates to @README.md to "
                                     "reflect this"))) == []


def test_an_order_after_what_it_follows_sets_direction() -> None:
    # theogbrand/napoli-matcha d85 U2 and Sprayer115/KLIMA d56 U39, verbatim. Before: the frame ("Referring to …",
    # "Based on …") hid the imperative after it, so neither sentence was an order and d85 gave no decision.
    referring = ("Referring to the update in @CLAUDE.md , create tests to confidently test this new feature with agent "
                 "logs.")
    assert _decisions(_fold(("user", referring))) == [referring]
    based = ("Based on the ent.xml make some changes, and actually take a closer look at which field is a bool and "
             "which a number. Adjust this in the store, and also in the vue by swapping bools from input number to "
             "checkboxes")
    decisions = _decisions(_fold(("user", based)))
    assert len(decisions) == 1 and decisions[0].startswith("Based on the ent.xml make some changes")
