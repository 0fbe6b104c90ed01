"""`status` (tail and full scans) and the compaction plan agree with pi on the same sessions.

`status` must give pi's estimate and the file's compaction count whatever the path it takes (issue 11 #4, #10);
the plan of `compact` must cut where pi's prepareCompaction cuts, with the same split-turn flag and tokens before,
refuse "nothing to compact" exactly when pi would summarize nothing (#1, #5), and keep verbatim exactly the messages
pi's context holds after that compaction (issue 26: never an earlier summary).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.realagents.pi import ctxscope_side
from tests.realagents.pi.compare import MISSING, TALLY, comparable
from tests.realagents.pi.corpora import Sample
from tests.realagents.pi.pi_agent import KEEPS

pytestmark = pytest.mark.realagents

STATUS_FIELDS = tuple(
    f"{scan}.{f}" for scan in ("status", "status_full") for f in ("estimate", "unknown", "compactions")
)
PLAN_FIELDS = tuple(
    f"plan_{k}.{f}"
    for k in KEEPS
    for f in ("first_kept_entry_id", "split_turn", "turn_start_entry_id", "tokens_before", "nothing_to_compact",
              "kept_ids")
)
KNOWN: dict[tuple[str, str], str] = {}
"""(corpus, field) → reason, for a mismatch still open (the test is then xfail strict)."""


def _pi_value(sample: Sample, name: str) -> Any:
    pi = sample.pi
    if name.endswith(".estimate"):
        return pi["estimate"]
    if name.endswith(".unknown"):
        return pi["unknown"]
    if name.endswith(".compactions"):
        return sum(1 for e in pi["entries"] if e["type"] == "compaction")
    keep, _, field = name[len("plan_") :].partition(".")
    cut = pi["cut_points"][keep]
    if field == "nothing_to_compact":
        return cut is None or cut["messages_to_summarize"] + cut["turn_prefix_messages"] == 0
    if cut is None:
        return None
    return cut[field]


def _our_value(sample: Sample, name: str, cache: dict[Any, Any]) -> Any:
    if name.startswith("status"):
        full = name.startswith("status_full")
        key = ("status", full)
        if key not in cache:
            cache[key] = ctxscope_side.status(sample.path, full=full)
        row = cache[key]
        if name.endswith(".unknown"):
            known = row.get("agent_estimate_known", MISSING)
            return known if known is MISSING else not known
        return row["agent_estimate"] if name.endswith(".estimate") else row["compactions_in_file"]
    keep, _, field = name[len("plan_") :].partition(".")
    key = ("plan", keep)
    if key not in cache:
        cache[key] = ctxscope_side.plan(sample.path, int(keep))
    plan = cache[key]
    if field == "nothing_to_compact":
        return any(reason.startswith("nothing to compact") for reason in plan["blocked"])
    cut = plan["cut_point"]
    if field == "kept_ids":
        # What stays verbatim after the new summary; pi names summaries by their entry id.
        return None if cut is None else [ctxscope_side.entry_id(i) for i in plan["kept_ids"]]
    return None if cut is None else cut.get(field, MISSING)


_CACHES: dict[str, dict[Any, Any]] = {}


def _check(samples: list[Sample], name: str) -> list[str]:
    problems = []
    for s in samples:
        if not s.pi["valid"]:
            continue
        theirs, mine = comparable(s.pi, _pi_value(s, name), _our_value(s, name, _CACHES.setdefault(str(s.path), {})))
        TALLY.add(name, theirs == mine)
        if theirs != mine:
            problems.append(f"{s.name}: {name}: pi {theirs!r} ctxscope {mine!r}")
    return problems


def _params(fields: tuple[str, ...], corpora: tuple[str, ...]) -> list[Any]:
    out = []
    for corpus in corpora:
        for name in fields:
            reason = KNOWN.get((corpus, name))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            out.append(pytest.param(corpus, name, marks=marks, id=f"{corpus}-{name}"))
    return out


@pytest.mark.parametrize(("corpus", "name"), _params(STATUS_FIELDS, ("fixtures", "generated", "edge")))
def test_status_agrees_with_pi(samples: dict[str, list[Sample]], corpus: str, name: str) -> None:
    problems = _check(samples[corpus], name)
    assert not problems, "\n".join(problems[:10])


@pytest.mark.parametrize(("corpus", "name"), _params(PLAN_FIELDS, ("fixtures", "generated", "edge")))
def test_plan_agrees_with_pi(samples: dict[str, list[Sample]], corpus: str, name: str) -> None:
    chosen = samples[corpus] if corpus != "generated" else samples[corpus][::4]
    problems = _check(chosen, name)
    assert not problems, "\n".join(problems[:10])
