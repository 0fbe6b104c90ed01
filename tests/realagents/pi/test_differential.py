"""ctxscope reads every session the way the real pi 0.73 does: field by field against pi's own functions.

pi's side comes from oracle.mjs (pi's SessionManager, buildSessionContext, estimateContextTokens,
prepareCompaction); ctxscope's from its command line (ctxscope_side). Files pi refuses to load are compared
only on that verdict.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from tests.realagents.pi import ctxscope_side
from tests.realagents.pi.compare import TALLY, compare
from tests.realagents.pi.corpora import Sample
from tests.realagents.pi.pi_agent import KEEPS

pytestmark = pytest.mark.realagents

CORE = (
    "leaf_id",
    "context",
    "context_tokens",
    "estimate",
    "unknown",
    "cut_2000.first_kept_entry_id",
    "cut_2000.split_turn",
    "cut_20000.first_kept_entry_id",
    "cut_20000.split_turn",
)
ADDED = (
    "cut_2000.tokens_before",
    "cut_2000.turn_start_entry_id",
    "cut_20000.tokens_before",
    "cut_20000.turn_start_entry_id",
    "entries",
    "tree",
    "branch_ids",
    "labels",
    "thinking_level",
    "model",
)
"""Fields `inspect --json` gains with issue 11."""

KNOWN: dict[tuple[str, str], str] = {}
"""(corpus, field) → reason, for a mismatch still open (the test is then xfail strict)."""
EDGE_KNOWN: dict[str, str] = {}
"""Edge case → reason, likewise."""


@cache
def _ours(path: str) -> dict[str, Any]:
    from pathlib import Path

    return ctxscope_side.pi_view(Path(path), KEEPS)


def _disagreements(samples: list[Sample], fields: tuple[str, ...]) -> list[str]:
    problems = []
    for s in samples:
        if not s.pi["valid"]:
            continue
        ours = _ours(str(s.path))
        for name in fields:
            theirs, mine = compare(s.pi, ours, name)
            TALLY.add(name, theirs == mine)
            if theirs != mine:
                problems.append(f"{s.name}: {name}: pi {str(theirs)[:200]!r} ctxscope {str(mine)[:200]!r}")
    return problems


def _params(corpora: tuple[str, ...], fields: tuple[str, ...]) -> list[Any]:
    out = []
    for corpus in corpora:
        for name in fields:
            reason = KNOWN.get((corpus, name))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            out.append(pytest.param(corpus, name, marks=marks, id=f"{corpus}-{name}"))
    return out


@pytest.mark.parametrize(("corpus", "name"), _params(("fixtures", "generated"), CORE + ADDED))
def test_field_agrees_with_pi(samples: dict[str, list[Sample]], corpus: str, name: str) -> None:
    problems = _disagreements(samples[corpus], (name,))
    assert not problems, f"{len(problems)} of {len(samples[corpus])} sessions disagree:\n" + "\n".join(problems[:10])


def _edge_params(fields: str) -> list[Any]:
    from tests.realagents.pi.edge_cases import EDGE_CASES

    out = []
    for name in EDGE_CASES:
        reason = EDGE_KNOWN.get(name)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(name, marks=marks, id=name))
    return out


def _edge(samples: dict[str, list[Sample]], name: str) -> Sample:
    return next(s for s in samples["edge"] if s.name == name)


@pytest.mark.parametrize("name", _edge_params("core"))
def test_edge_case_core_fields_agree_with_pi(samples: dict[str, list[Sample]], name: str) -> None:
    sample = _edge(samples, name)
    if not sample.pi["valid"]:
        pytest.skip("pi does not load this file; test_loadable_agrees_with_pi covers it")
    problems = _disagreements([sample], CORE)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    "name", [p for p in _edge_params("added") if not p.id.startswith(("08-", "09-empty", "09-not-json"))]
)
def test_edge_case_added_fields_agree_with_pi(samples: dict[str, list[Sample]], name: str) -> None:
    problems = _disagreements([_edge(samples, name)], ADDED)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("corpus", ["fixtures", "edge"])
def test_loadable_agrees_with_pi(samples: dict[str, list[Sample]], corpus: str) -> None:
    problems = []
    for s in samples[corpus]:
        loadable = ctxscope_side.pi_loadable(s.path)
        TALLY.add("pi_loadable", loadable == s.pi["valid"])
        if loadable != s.pi["valid"]:
            problems.append(f"{s.name}: pi loads it: {s.pi['valid']}, ctxscope says {loadable!r}")
    assert not problems, "\n".join(problems)
