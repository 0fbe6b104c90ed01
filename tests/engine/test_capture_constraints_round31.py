"""Constraints on real conversations, round 31 (docs/capture.md, "Capture figures, round 31 (constraints on
native4)"): false-positive classes that recur in two development repositories. Real native4 and FIT text quoted
verbatim."""

from __future__ import annotations

import pytest

from engine.capture.acts import read_user_turn
from tests.engine.test_capture_real import _constraints, _decisions, _fold, _state

_DID = "I've updated the code and the tests pass."


def _rules(text: str) -> list[str]:
    return [s.text for s in read_user_turn(text, False).sentences if s.preference]


@pytest.mark.parametrize(("name", "said"), [
    # polecatspeaks/StarCar d102: how the two of them are to work through one bug, now.
    ("d102_starcar_founding_harness", "Let's walk this through step by step until we find the fuck up"),
    # Python-AI-Solutions/agentic-neurodata-conversion d106: the thing the user asks to be made.
    ("d106_neuroconv_speckit_help", "https://github.com/github/spec-kit  from this from this create an step by step "
                                    "guide for me to use specify with codex agent on my files"),
])
def test_step_by_step_that_is_not_how_an_answer_is_told_is_no_rule(name: str, said: str) -> None:
    assert _rules(said) == []
    assert not any("step by step" in c for c in _state(name).learnings)


def test_step_by_step_after_a_verb_of_telling_is_still_a_rule() -> None:
    # OdyAsh/odyash-dev.to d08 (C4) and specstoryai/keyframe-blogger d13 (C2), FIT: kept.
    said = ("ok, but i see there's overly complex logic in #file:update-paths.js like : so kindly remove it and "
            "adjust docs at the start of the file to be simpler yet state what this file does exactly step by step")
    assert _rules(said) == [said]
    assert _rules("where do I get my api key? and how step by step") == ["and how step by step"]


def _after_work(correction: str) -> tuple[list[str], list[str]]:
    items = _fold(("user", "extract the flag parser into its own module"), ("assistant", _DID), ("user", correction))
    return _constraints(items), _decisions(items)


def test_no_like_restates_the_order_and_is_no_constraint() -> None:
    # Python-AI-Solutions/agentic-neurodata-conversion d106: what the order was, as chkit d82's "i meant …" (round 28).
    said = ("no like use that to go through the file and give me a command to use that file as part of specs I want to "
            "create for my project with specify")
    constraints, _ = _after_work(said)
    assert constraints == []
    assert not any(c.startswith("no like") for c in _state("d106_neuroconv_speckit_help").learnings)


def test_a_plain_no_still_makes_a_constraint() -> None:
    # yutakobayashidev/repiq d70 (FIT, a labelled constraint): kept.
    constraints, _ = _after_work("no verify")
    assert constraints == ["no verify"]


@pytest.mark.parametrize("said", [
    # PantherianCodeX/udocket.com d100: what the plan this turn asks for is to hold (a hard-wrapped line, as typed) …
    "The plan must include some way to monitor and",
    # … and the constitution the spec-kit command is to update, the user's input to it.
    "must be updated to support the standards of this project.",
])
def test_must_said_of_the_thing_this_turn_makes_is_no_rule(said: str) -> None:
    assert _rules(said) == []
    assert not any(c.startswith(said[:20]) for c in _state("d100_udocket_constitution").learnings)

