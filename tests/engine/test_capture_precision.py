"""Capture precision on real conversations (docs/capture.md, round 6): shapes that read as rules but are not."""

from __future__ import annotations

from engine.capture.acts import read_user_turn
from tests.engine.test_capture_real import _constraints, _fold


def test_always_before_a_value_a_number_or_as_describes_the_data() -> None:
    # KLIMA d50/d51/d52 and 0anes0 d57: a spec of the data, or Verilog's `always @(...)`, is no standing rule.
    for text in ('In the table "Bewilligt" is always "kein Wert" and "Beantragt" the stored value.',
                 "Then we got always two values underneath from PoolingVerg, the historic and the current one.",
                 "The way its supposed to be rendered is the key as header and the key always as first column.",
                 "Verilog export için SR Latch always @(...) tabanlı şablonları ekle."):
        assert _constraints(_fold(("user", text))) == [], text
    assert _constraints(_fold(("user", "From now on always use the Files API for uploads larger than 20 MB.")))


def test_each_other_and_the_things_just_made_are_not_a_class_of_things() -> None:
    # KLIMA d56 ("next to each other"), odyash d10 ("to each .js file you created"), odyash d09 ("in each of
    # these cases"): these things here, not every such thing from now on.
    for text in ("Also Entwahl 1 and 2 should be displayed in card next to each other since they share a structure.",
                 "ok, now add to each .js file you created a big comment block at the top explaining the code flow.",
                 "give me dummy examples of what will happen in each of these cases"):
        assert _constraints(_fold(("user", text))) == [], text
    assert _constraints(_fold(("user", "rename the props to camelCase in all .module.css files")))


def test_a_no_that_reports_the_failure_is_a_report_not_a_correction() -> None:
    # evs d26 and KLIMA d52: "No the video doesn't load", "Nope, still not adjusting to dark mode fully".
    for text in ("No the video doesn't load in the modal. Console error: ReferenceError: bootstrap is not defined",
                 "Nope, still not adjusting to dark mode fully. Heres the html code: <div class=\"results\"></div>"):
        turn = read_user_turn(text, agent_offered=False)
        assert "corrects" not in turn.acts and "reports" in turn.acts, text
        items = _fold(("user", "make the modal play the video"), ("assistant", "Fixed: the modal now loads it."),
                      ("user", text))
        assert _constraints(items) == [], text
        assert [i for i in items if i.kind == "open" and not i.done and i.text.startswith(text[:20])], text
    # A "no" that says what the agent did wrong, or what the user wants, still corrects.
    assert "corrects" in read_user_turn("no no you literally did the opposite! I want it to be like -raw-",
                                        agent_offered=False).acts
    assert "corrects" in read_user_turn("No, the button is still blue. Make it red.", agent_offered=False).acts
