"""What a decision or constraint item says (docs/capture.md, round 9): the directive of a long message whole."""

from __future__ import annotations

from tests.engine.test_capture_real import _constraints, _decisions, _fold

# KLIMA d52, verbatim: the key the order is about is named at the end of its third sentence, past 300 characters.
_KLIMA_D52 = ("In FetchTableData where I Marked with // manual data transofrmation I want to edit the result "
              "a bit. For the Element Belgungsdaten.BelegGesamt there is key BelegGradNotfall. I want to "
              "remove this key, and all other elements in BelegGesamt are Object in which I want to add the "
              "Key, twice with the value null and for the last element with the original value of "
              "BelegGradNotfall.")
# odyash d09, verbatim: the user's own check between the two steps comes late in a long run-on order.
_ODYASH_D09 = ("ok, what's the difference between #file:mermaid-to-png-puppeteer.js  and "
               "#file:mermaid-to-png.js files? if one is redundant and not used anymore , delete please, while "
               "refactoring the other by adding comments at the start to explain the logical code steps in the "
               "file to achieve what it achieves, then test it by testing it on "
               "#file:01-surviving-the-vibe-coding-trend.md  to convert the mermaid code blocks to png "
               "references , and then after i inspect the result and see that it works, i'll tell you , and "
               "then you can run the other script which restores the mermaid blocks to the file, and i'll "
               "inspect your result again to verify that the two tasks are working correctly")


def test_a_long_orders_object_named_late_stays_in_the_decision() -> None:
    decisions = _decisions(_fold(("user", _KLIMA_D52)))
    assert len(decisions) == 1
    assert decisions[0].endswith("with the original value of BelegGradNotfall.")


def test_a_long_rules_later_condition_stays_in_the_constraint() -> None:
    constraints = _constraints(_fold(("user", _ODYASH_D09)))
    assert len(constraints) == 1
    assert "i inspect the result" in constraints[0] and "i'll tell you" in constraints[0]


def test_a_directive_is_cut_between_words_at_its_own_cap_not_at_a_requests() -> None:
    words = " ".join(["update", "src/config.ts", "so", "that"] + ["every"] * 200)
    items = _fold(("user", words))
    decision = _decisions(items)[0]
    assert decision.endswith(" every …") and 300 < len(decision) <= 400
    request = next(i.text for i in items if i.kind == "open")
    assert len(request) <= 300  # what is asked stays at the item cap; only what is decided is longer
