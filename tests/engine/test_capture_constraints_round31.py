"""Constraints on real conversations, round 31 (docs/capture.md, "Capture figures, round 31 (constraints on
native4)"): false-positive classes that recur in two development repositories. Real native4 and FIT text quoted
verbatim."""

from __future__ import annotations

import pytest

from engine.capture.acts import read_user_turn
from tests.engine.test_capture_real import _state


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
