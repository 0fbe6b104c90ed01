"""A correction that says what the user wants instead is a decision as well as a constraint (docs/capture.md,
round 21). The messages are quoted verbatim from FIT sessions of tests/data/real: twat-search d22, KLIMA d56, chkit
d82 (the labelled decisions), tnyOffice d01, ubi-course d11 and napoli-matcha d84 (corrections that say no such
thing)."""

from __future__ import annotations

import pytest

from tests.engine.test_capture_real import _constraints, _decisions, _fold

_DID = "I've updated the code and the tests pass."


@pytest.mark.parametrize(("correction", "rule"), [
    ("But why do I have to provide api_key there? It’s bad design. I shouldn't have to provide the API_KEY into the "
     "EngineConfig, it's very weird architecture. After all, this stuff is specific to the engine. Who knows, maybe "
     "some engine won't need an API key at all?", True),  # twat-search d22
    # "actually …" and "i meant …" correct this turn's order and set no rule (round 28): a decision only.
    ("Actually orient the GeneralInput.js on Goals.js not data.js, just use it like in goals.js. Data wise its "
     "looking good", False),  # KLIMA d56
    ("i meant extracting it into a local package, not publishing it as framework. so all internal packages can "
     "properly use it. since I saw some type redefinition across packages. does it make sense in core? or rather in "
     "a new cli framework package?", False),  # chkit d82
])
def test_a_correction_that_says_what_instead_is_a_decision_too(correction: str, rule: bool) -> None:
    items = _fold(("user", "extract the flag parser into its own module"), ("assistant", _DID),
                  ("user", correction))
    assert [d for d in _decisions(items) if d.startswith(correction[:40])]
    assert bool([c for c in _constraints(items) if c.startswith(correction[:40])]) is rule


@pytest.mark.parametrize("correction", [
    "These are an insane amount of questions. Holy shit, are all these questions needed to improve the copy?",
    "why did you create a .js variant of the src + lib + test files? is there a point in having is with .ts or is "
    "it unwanted redundancy?",
])
def test_a_correction_that_only_judges_or_asks_decides_nothing(correction: str) -> None:
    # ubi-course d11 and napoli-matcha d84: a judgement and a question why; neither says what is wanted instead.
    items = _fold(("user", "extract the flag parser into its own module"), ("assistant", _DID),
                  ("user", correction))
    assert not [d for d in _decisions(items) if d.startswith(correction[:40])]
