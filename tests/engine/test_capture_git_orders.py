"""Git work ordered by its verb sets direction (docs/capture.md, round 21).

The sentences are quoted verbatim from FIT sessions of tests/data/real: chkit d81 and d82, safecast d63, packmind d86
(the labelled orders), ubi-course d11 and NutriPal d27 (the shapes that are not such an order).
"""

from __future__ import annotations

import pytest

from tests.engine.test_capture_real import _decisions, _fold

_DID = "I've finished the change and the tests pass."


@pytest.mark.parametrize("order", [
    "Commit and push all changes",  # chkit d81
    "Create a PR",  # chkit d81, d82
    "Please merge.",  # safecast d63
    "Just commit for me.",  # safecast d63
    "commit",  # packmind d86
])
def test_an_order_of_git_work_is_a_decision(order: str) -> None:
    items = _fold(("user", "fix the tree view crash in TreeView.tsx"), ("assistant", _DID), ("user", order))
    assert [d for d in _decisions(items) if d.startswith(order)]


def test_resolving_merge_conflicts_is_an_order_and_its_decision_keeps_both_steps() -> None:
    # chkit d82: "Resolve" was not read as an imperative, so only "Then, commit and push your changes." was ordered.
    order = "Resolve any existing merge conflicts with the remote branch (main). Then, commit and push your changes."
    items = _fold(("user", "Create a PR"), ("assistant", _DID), ("user", order))
    assert order in _decisions(items)


def test_a_rule_about_commits_and_a_git_verb_in_another_language_are_no_git_order() -> None:
    # ubi-course d11: "commit always before updating" is a standing rule (a constraint), not this turn's decision;
    # NutriPal d27: "push khác gì pushreplacement" asks, in Vietnamese, how Navigator.push and pushReplacement differ.
    for text in ("commit always before updating", "push khác gì pushreplacement"):
        items = _fold(("user", "fix the tree view crash in TreeView.tsx"), ("assistant", _DID), ("user", text))
        assert not [d for d in _decisions(items) if d.startswith(text)]
