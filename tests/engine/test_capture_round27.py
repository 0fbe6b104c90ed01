"""A message that is one short order sets direction though it names no file (docs/capture.md, round 27).

The user's words are quoted verbatim from FIT sessions of tests/data/real: todo-app d55, expense-tracker d53,
eagerminds-bookmarks d97, duet d77, safecast d65 and keyframe-blogger d16 (the labelled orders); chkit d82, NutriPal
d27 and easy-video-share d26 (the shapes that are not such an order).
"""

from __future__ import annotations

import pytest

from tests.engine.test_capture_real import _decisions, _fold

_DID = "I've finished the change and the tests pass."


@pytest.mark.parametrize("order", [
    "undo the last commit",  # todo-app d55
    "the cli should be interactive",  # expense-tracker d53
    "do phase 6 and 7",  # eagerminds-bookmarks d97
    "can we drop the em dashes?",  # duet d77
    "can we guide Mistral better?",  # safecast d65
    "fix me to a newer python",  # keyframe-blogger d16
])
def test_a_message_that_is_one_short_order_is_a_decision(order: str) -> None:
    items = _fold(("user", "add a delete button to TodoItem.tsx"), ("assistant", _DID), ("user", order))
    assert [d for d in _decisions(items) if d.startswith(order)]


@pytest.mark.parametrize("text", [
    "and then push the update",  # chkit d82: a push alone publishes what is committed (round 23)
    "push khác gì pushreplacement",  # NutriPal d27: Vietnamese, asks how two calls differ
    # easy-video-share d26: an order that names nothing beside a statement is not a message that is only an order.
    "Now let's focus on the admin. The content is in a single colum so the cards look retarded.",
])
def test_a_push_another_language_or_a_longer_message_gives_no_such_decision(text: str) -> None:
    items = _fold(("user", "add a delete button to TodoItem.tsx"), ("assistant", _DID), ("user", text))
    assert not [d for d in _decisions(items) if d.startswith(text)]


def test_a_short_order_about_a_pronoun_carries_the_request_it_is_about() -> None:
    # "it" names nothing of its own: the pronoun rule (docs/capture.md, Decisions) gives the request before it.
    items = _fold(("user", "add a delete button to TodoItem.tsx"), ("assistant", _DID),
                  ("user", "make it red please"))
    assert [d for d in _decisions(items) if d.startswith("make it red please (re: add a delete button")]
