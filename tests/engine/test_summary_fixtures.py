"""On real sessions, every item of every section of the earlier summary is in the new summary, whole.

pi's ``before-compaction.jsonl`` (pi-mono's test fixture, two LLM-written summaries in pi's style) is compacted
after each of its compactions; OpenClaw's captured sessions (its safeguard's fallback summaries) likewise, in
OpenClaw's format. The earlier summary is read with the same parser the summarizer uses, so "every item" is
every bullet, numbered step, checkbox, table row, code block, paragraph and ``###`` group under every heading.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import orjson
import pytest

from engine.capture.ledger import OUTCOME_MARK
from engine.capture.redact import redact_secrets
from engine.compaction.layer_summary import summary_budget
from engine.compaction.plan import CompactionPlan
from engine.compaction.summary_format import OPENCLAW_HEADINGS
from engine.compaction.summary_sections import item_key, parse_summary
from tests.conftest import MAIN_SESSION, PI_BEFORE_COMPACTION, SESSIONS_JSON
from tests.engine._compaction import age, plan_for

_COMPACTION_LINES = (359, 628)
"""0-based lines of the fixture's two compaction entries."""


def _pi_copy(tmp_path: Path, upto: int | None) -> Path:
    """The fixture, whole or cut before line ``upto`` (then its latest compaction is the earlier one)."""
    lines = PI_BEFORE_COMPACTION.read_bytes().splitlines(keepends=True)
    target = tmp_path / "pi" / "before-compaction.jsonl"
    target.parent.mkdir(parents=True)
    target.write_bytes(b"".join(lines[:upto] if upto else lines))
    age(target)
    return target


def _previous_summary(path: Path) -> str:
    summaries = [obj["summary"] for raw in path.read_bytes().splitlines()
                 if (obj := orjson.loads(raw)).get("type") == "compaction"]
    return str(summaries[-1])


def _assert_every_item_carried(previous: str, plan: CompactionPlan) -> int:
    new = item_key(plan.summary)
    items = [i for i in parse_summary(previous).items if i.kind != "status"]
    missing = [i.text for i in items if item_key(i.text) not in new]
    assert not missing, missing
    return len(items)


def _assert_nothing_cut(plan: CompactionPlan) -> None:
    for item in parse_summary(plan.summary).items:
        # The only shortened items are long user messages, cut between sentences, pointing at their entry.
        assert not item.text.endswith("…"), item.text
        if "…" in item.text and "(full text: entry " in item.text:
            assert " … (full text: entry " in item.text


@pytest.mark.parametrize("upto", [_COMPACTION_LINES[1], None], ids=["after-first-summary", "after-second-summary"])
def test_pi_before_compaction_every_earlier_item_is_kept(tmp_path: Path, upto: int | None) -> None:
    session = _pi_copy(tmp_path, upto)
    previous = _previous_summary(session)
    _, plan = plan_for(session, "summarize", tmp_path / "state")
    assert plan.source.format == "pi-jsonl"
    carried = _assert_every_item_carried(previous, plan)
    assert carried >= 28
    _assert_nothing_cut(plan)
    lines = plan.summary.splitlines()
    assert f"(~{plan.tokens_summarized:,} tokens) summarized" in lines[0]
    assert "## Key Decisions" in lines and "## Constraints & Preferences" in lines
    if upto is not None:  # the first summary has "## Key Decisions Made": under pi's Key Decisions now
        decisions = plan.summary.split("## Key Decisions\n")[1].split("\n## ")[0]
        assert "**AgentSession is the core abstraction**" in decisions
    else:  # the second has "## User Preferences": pi's Constraints & Preferences now
        constraints = plan.summary.split("## Constraints & Preferences\n")[1].split("\n## ")[0]
        assert "- **E2E tests only** - no unit tests" in constraints
        assert "- `npm run check` must pass (formatting, linting, types)" in constraints
    assert "## Earlier summary" not in plan.summary
    assert "/dev/null" not in plan.summary.split("## Exact Identifiers")[-1].split("\n## ")[0]


def test_pi_before_compaction_in_openclaw_format_keeps_every_item_too(tmp_path: Path) -> None:
    session = _pi_copy(tmp_path, None)
    _, plan = plan_for(session, "summarize", tmp_path / "state", summary_format="openclaw")
    _assert_every_item_carried(_previous_summary(session), plan)
    lines = plan.summary.splitlines()
    assert [lines.index(f"## {h}") for h in OPENCLAW_HEADINGS] == sorted(lines.index(f"## {h}")
                                                                         for h in OPENCLAW_HEADINGS)


def _openclaw_copy(tmp_path: Path) -> Path:
    sessions = tmp_path / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    shutil.copyfile(SESSIONS_JSON, sessions / "sessions.json")
    target = sessions / "76cc5ab5-0425-4038-b41f-0af9f313d594.jsonl"
    shutil.copyfile(MAIN_SESSION, target)
    age(target)
    return target


def test_openclaw_fixture_every_earlier_item_is_kept_in_openclaws_format(tmp_path: Path) -> None:
    session = _openclaw_copy(tmp_path)
    _, plan = plan_for(session, "summarize", tmp_path / "state", keep_recent=2000)
    assert plan.source.format == "openclaw-jsonl" and not plan.blocked
    assert _assert_every_item_carried(_previous_summary(session), plan) == 1
    _assert_nothing_cut(plan)
    lines = [line.strip() for line in plan.summary.splitlines()]
    assert [lines.index(f"## {h}") for h in OPENCLAW_HEADINGS] == sorted(lines.index(f"## {h}")
                                                                         for h in OPENCLAW_HEADINGS)
    assert plan.summary_tokens <= summary_budget(plan.source.store_entry["contextTokens"])  # type: ignore[index]


def test_a_rich_openclaw_summary_is_carried_item_by_item(tmp_path: Path) -> None:
    previous = ("## Decisions\n- Use Redis for the limiter\n- **Fail open** on Redis errors\n\n## Open TODOs\n"
                "- [ ] add metrics for rejects\n- wire the fraud score\n\n## Constraints/Rules\n"
                "- Never log API keys\n\n"
                "## Pending user asks\n- Please draft the incident report.\n\n## Exact identifiers\n"
                "- ~/src/limiter.lua\n- redis-primary.internal:6379\n- a3f9c2e71b\n\n## Tool Failures\n"
                "- exec: permission denied on /opt/app\n\n## Recent turns preserved\n"
                "| role | text |\n|---|---|\n| user | hi |\n\n```json\n{\"a\": 1}\n```")
    session = _openclaw_copy(tmp_path)
    data = session.read_bytes().splitlines()
    for n, raw in enumerate(data):
        obj = orjson.loads(raw)
        if obj.get("type") == "compaction":
            obj["summary"] = previous
            data[n] = orjson.dumps(obj)
    session.write_bytes(b"\n".join(data) + b"\n")
    age(session)
    _, plan = plan_for(session, "summarize", tmp_path / "state", keep_recent=2000)
    assert _assert_every_item_carried(previous, plan) == 12
    assert "## Tool Failures" in plan.summary and "| role | text |" in plan.summary


def test_over_the_budget_whole_items_are_left_out_and_the_summary_says_where_they_are(tmp_path: Path) -> None:
    decisions = [f"Decision {n}: route merchant tier {n} through shard {n % 7} with its own bucket size {n * 10}"
                 for n in range(150)]
    previous = "## Decisions\n" + "\n".join(f"- {d}" for d in decisions) + "\n\n## Open TODOs\n- add metrics"
    session = _openclaw_copy(tmp_path)
    data = session.read_bytes().splitlines()
    compaction_id = ""
    for n, raw in enumerate(data):
        obj = orjson.loads(raw)
        if obj.get("type") == "compaction":
            obj["summary"] = previous
            compaction_id = obj["id"]
            data[n] = orjson.dumps(obj)
    session.write_bytes(b"\n".join(data) + b"\n")
    age(session)
    _, plan = plan_for(session, "summarize", tmp_path / "state", keep_recent=2000)
    window = plan.source.store_entry["contextTokens"]  # type: ignore[index]
    assert plan.summary_tokens <= summary_budget(window) < len(previous) // 4
    shown = [d for d in decisions if f"- {d}\n" in plan.summary + "\n"]
    assert 0 < len(shown) < len(decisions)
    assert shown == decisions[-len(shown):]  # the oldest went first
    note = next(line for line in plan.summary.splitlines() if "decisions not shown (size budget)" in line)
    assert note == (f"- +{len(decisions) - len(shown)} decisions not shown (size budget): verbatim in compaction "
                    f"entry {compaction_id} of {session}")
    assert any("left out for size" in w for w in plan.warnings)
    # Items are made of redacted text (docs/capture.md, One set of items): compare with the transcript as redacted.
    transcript = redact_secrets(session.read_text(encoding="utf-8"))
    for item in parse_summary(plan.summary).items:
        # Never a cut decision: a planted one whole, or one the span states -- the user's words and the agent's
        # account of carrying them out (docs/capture.md) each ending where its line ends there.
        assert item.kind != "decisions" or item.text in decisions or all(re.search(
            re.escape(part) + r'(\\n|")', transcript) for part in item.text.split(OUTCOME_MARK)), item.text


def test_the_summary_budget_is_3_percent_of_the_window_with_a_floor_for_small_windows() -> None:
    assert summary_budget(200_000) == 6_000      # issue 24: a summary within 3% of the window
    assert summary_budget(1_000_000) == 30_000
    assert summary_budget(100_000) == 3_000
    assert summary_budget(50_000) == 2_000       # 3% would be 1,500: the floor
    assert summary_budget(32_768) == 1_966       # 6% of a small window, under the 2,000 floor
    assert summary_budget(0) == 1
