"""Constraint rules narrowed in round 28 (docs/capture.md, "Capture figures, round 28 (which constraint rules
generalise)"). Real FIT text quoted verbatim: each narrowed rule no longer makes a constraint of its FIT false positive
and still makes one of its FIT true positives; each case about a false positive fails on the code before the round."""

from __future__ import annotations

from engine.capture.acts import read_user_turn
from tests.engine.test_capture_real import _constraints, _decisions, _fold

_DID = "I've updated the code and the tests pass."


def _rules(text: str) -> list[str]:
    return [s.text for s in read_user_turn(text, False).sentences if s.preference]


def test_always_inside_a_spec_of_the_program_is_no_rule() -> None:
    # Sprayer115/KLIMA d51: how the component validates, not how the agent works.
    spec = ("For that Component we need a validation, the gesamt Value of both historic and current value needs to be "
            "the same for a update to go through, so always check before alowing an update.")
    assert _rules(spec) == []
    # obsessiondb/chkit d81: when the hook runs.
    hook = ("i think we want to run `runOnComplete` always not only in success case, and potentially provide the "
            "result of the call. so the plugin can decide whether it wants to do something or at all in "
            "success/failure case")
    assert _rules(hook) == []


def test_always_said_as_the_rule_itself_is_still_a_rule() -> None:
    # 0xmcc/ubi-course d11 (a labelled constraint): how the user wants the agent to work.
    assert _rules("proceed with our safe changes. commit always before updating") == ["commit always before updating"]


def _after_work(correction: str) -> tuple[list[str], list[str]]:
    items = _fold(("user", "extract the flag parser into its own module"), ("assistant", _DID), ("user", correction))
    return _constraints(items), _decisions(items)


def test_a_new_order_opened_by_actually_is_no_constraint() -> None:
    # Sprayer115/KLIMA d56: a new order; the labels hold it as a decision, which it stays.
    constraints, decisions = _after_work("Actually orient the GeneralInput.js on Goals.js not data.js, just use it "
                                         "like in goals.js. Data wise its looking good")
    assert constraints == [] and any(d.startswith("Actually orient") for d in decisions)


def test_i_meant_restates_the_order_and_is_no_constraint() -> None:
    # obsessiondb/chkit d82: what the order was, not how the agent is to work.
    constraints, decisions = _after_work(
        "i meant extracting it into a local package, not publishing it as framework. so all internal packages can "
        "properly use it. since I saw some type redefinition across packages. does it make sense in core? or rather "
        "in a new cli framework package?")
    assert constraints == [] and any(d.startswith("i meant extracting") for d in decisions)


def test_i_said_still_makes_a_constraint() -> None:
    # specstoryai/keyframe-blogger d13: a labelled constraint.
    constraints, _ = _after_work("i said gemini 2.5 pro. check carefully and use that model")
    assert constraints == ["i said gemini 2.5 pro. check carefully and use that model"]


def test_a_judgement_of_one_look_is_no_constraint() -> None:
    # tha-hammer/easy-video-share-vue d24: asks for another look this turn.
    constraints, _ = _after_work("The styling looks like shit. There is a demo here @E:\\Dev\\metronic-template\\"
                                 "admin-dashboard-template\\metronic\\metronic-v9.2.1\\metronic-tailwind-html\\dist\\"
                                 "html\\demo9")
    assert constraints == []


def test_a_judgement_of_how_the_agent_works_still_makes_a_constraint() -> None:
    # 0xmcc/ubi-course d11 (a labelled constraint): too many questions.
    text = "These are an insane amount of questions. Holy shit, are all these questions needed to improve the copy?"
    constraints, _ = _after_work(text)
    assert constraints == [text]


def test_provenance_names_the_alternative_that_fired() -> None:
    # bench/constraint_rules.py re-derives which rule made a constraint; the d11 rule above is the narrowed "always".
    from bench.constraint_rules import provenance

    assert provenance("commit always before updating", "preference") == [r"PREF:^(?:[\w-]+ )?always\b"]
    assert provenance("i said gemini 2.5 pro. check carefully and use that model", "correction") == [
        "CORR:i (?:said|told you|meant|asked)"]
