"""Summaries written in the reading agent's format, read back unchanged, and fitted to a budget by leaving
whole items out (with a note saying where they are kept)."""

from __future__ import annotations

import pytest

from engine.accounting.tokens import count_tokens
from engine.compaction.summary_extract import TurnContext
from engine.compaction.summary_format import OPENCLAW_HEADINGS, SummaryParts, render_summary
from engine.compaction.summary_sections import SummaryItem, item_key, parse_summary

HEAD = ("[ctxscope compaction | layer: summarize | 9 messages (~9,000 tokens) summarized | kept from entry k1]",)


def _items() -> list[SummaryItem]:
    specs = [
        ("Ship the limiter", "goal", "", "bullet", ""),
        ("Use Redis for the limiter", "decisions", "", "bullet", ""),
        ("Never log API keys", "constraints", "", "bullet", ""),
        ("add metrics for rejects", "todos", "", "bullet", ""),
        ("older ask: rotate the key", "asks", "", "bullet", ""),
        ("latest ask: draft the report", "asks", "", "bullet", ""),
        ("services/limiter/bucket.py", "identifiers", "", "bullet", ""),
        ("PAY-4121", "identifiers", "", "bullet", ""),
        ("Lua script for atomic take", "done", "", "bullet", ""),
        ("Staging Redis is read-only", "blocked", "", "bullet", ""),
        ("Tier cache", "in_progress", "", "bullet", ""),
        ("Limits come from the merchants table", "context", "", "bullet", ""),
        ("Cache lookups for 30 seconds", "superseded", "", "bullet", ""),
        ("`refactor` in `/work/pi-mono`", "other", "Branch", "para", ""),
        ("| WP1 | bash-executor.ts | ✅ |", "done", "Completed Work", "row", "| WP | What | Status |\n|---|---|---|"),
        ("```ts\nclass A {}\n```", "other", "Key API", "code", ""),
        ("### WP3: Create main-new.ts\n- Copy `main.ts`\n- Test it", "todos", "Next Steps", "group", ""),
        ("First line\n  - nested detail", "decisions", "", "bullet", ""),
        ("Done first line\nsecond line", "done", "", "bullet", ""),
        ("Step one\n  with detail", "todos", "", "bullet", ""),
    ]
    return [SummaryItem(text, kind, section, form, table, f"entry e{n}", n)
            for n, (text, kind, section, form, table) in enumerate(specs)]


def _parts(items: list[SummaryItem], **kwargs: object) -> SummaryParts:
    return SummaryParts(HEAD, tuple(items), **kwargs)  # type: ignore[arg-type]


def test_openclaw_format_has_the_required_sections_in_order_and_the_latest_ask_first() -> None:
    text = render_summary(_parts(_items()), "openclaw").text
    lines = text.splitlines()
    positions = [lines.index(f"## {h}") for h in OPENCLAW_HEADINGS]
    assert positions == sorted(positions) and all(lines.count(f"## {h}") == 1 for h in OPENCLAW_HEADINGS)
    asks = text.split("## Pending user asks\n")[1].split("\n\n")[0].splitlines()
    assert asks == ["- latest ask: draft the report", "- older ask: rotate the key"]
    assert "- [x] Lua script for atomic take" in text.split("## Done\n")[1]
    assert "- Cache lookups for 30 seconds" in text.split("## Superseded (no longer current)\n")[1]


def test_pi_format_uses_pis_template() -> None:
    text = render_summary(_parts(_items()), "pi").text
    lines = text.splitlines()
    order = ["## Goal", "## Constraints & Preferences", "## Progress", "### Done", "### In Progress", "### Blocked",
             "## Key Decisions", "## Next Steps", "## Critical Context", "## Pending User Asks",
             "## Exact Identifiers"]
    assert [lines.index(h) for h in order] == sorted(lines.index(h) for h in order)
    assert "1. add metrics for rejects" in lines and "- [ ] Tier cache" in lines and "Ship the limiter" in lines
    assert "| WP | What | Status |" in lines and "| WP1 | bash-executor.ts | ✅ |" in lines


@pytest.mark.parametrize("fmt", ["pi", "openclaw"])
def test_a_written_summary_reads_back_item_for_item(fmt: str) -> None:
    items = _items()
    parts = _parts(items, turn=TurnContext("fix the refill test", ("read(path=\"a.py\")",)),
                   read_files=("docs/a.md",), modified_files=("src/b.py",), pinned=("### label 'x' · User", "keep"))
    text = render_summary(parts, fmt).text
    parsed = parse_summary(text)
    back = {(item_key(i.text), i.kind) for i in parsed.items}
    for item in items:
        assert (item_key(item.text), item.kind) in back, item
    assert parsed.read_files == ("docs/a.md",) and parsed.modified_files == ("src/b.py",)
    assert "keep" in parsed.pinned
    again = render_summary(SummaryParts(HEAD, parsed.items, parsed.pinned, None, parsed.read_files,
                                        parsed.modified_files), fmt).text
    assert {(item_key(i.text), i.kind) for i in parse_summary(again).items} >= {
        (item_key(i.text), i.kind) for i in items}


def test_identifiers_held_elsewhere_are_not_listed_twice() -> None:
    items = [SummaryItem("Refill lives in services/limiter/bucket.py", "decisions", order=0),
             SummaryItem("services/limiter/bucket.py", "identifiers", order=1),
             SummaryItem("limiter/bucket.py", "identifiers", order=2),
             SummaryItem("PAY-4121", "identifiers", order=3)]
    text = render_summary(_parts(items), "openclaw").text
    assert text.split("## Exact identifiers\n")[1].split("\n\n")[0] == "- PAY-4121"
    assert all(i.text in text for i in items)


def _many(kind: str, n: int, words: int = 30) -> list[SummaryItem]:
    return [SummaryItem(f"{kind} item {i}: " + " ".join(f"w{i}x{j}" for j in range(words)), kind,
                        source=f"compaction entry c{i % 2}", order=i) for i in range(n)]


def test_a_budget_leaves_whole_items_out_low_value_kinds_first_and_says_where_they_are() -> None:
    items = _many("decisions", 20) + _many("done", 30) + _many("superseded", 10)
    full = render_summary(_parts(items), "openclaw").text
    budget = count_tokens(full) // 2
    rendered = render_summary(_parts(items), "openclaw", max_tokens=budget, count=count_tokens)
    text = rendered.text
    assert count_tokens(text) <= budget
    kept = {i.text for i in items if f"- {i.text}" in text or f"- [x] {i.text}" in text}
    omitted = {i.text for i in rendered.omitted}
    assert kept | omitted == {i.text for i in items} and not kept & omitted  # whole items: shown or left out
    assert all(i.kind != "decisions" for i in rendered.omitted)  # decisions are the last to go
    assert {i.kind for i in rendered.omitted} >= {"superseded"}
    notes = text.split("## Omitted for size\n")[1]
    assert "+10 superseded items not shown (size budget): verbatim in compaction entry c0; compaction entry c1" in notes


def test_within_a_kind_the_least_referenced_oldest_go_first() -> None:
    items = [SummaryItem(f"done item {i} " + "pad " * 40, "done", order=i, refs=5 if i == 0 else 0)
             for i in range(10)]
    full = count_tokens(render_summary(_parts(items), "openclaw").text)
    rendered = render_summary(_parts(items), "openclaw", max_tokens=full - 120, count=count_tokens)
    gone = sorted(i.order for i in rendered.omitted)
    assert gone and 0 not in gone and gone == list(range(1, 1 + len(gone)))


def test_unknown_format_and_budget_without_counter_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown summary format"):
        render_summary(_parts([]), "claude")
    with pytest.raises(ValueError, match="token counter"):
        render_summary(_parts(_many("done", 50)), "pi", max_tokens=10)


def test_required_items_survive_any_budget() -> None:
    items = _many("identifiers", 30, words=1) + _many("decisions", 10)
    required = (items[0].text, items[1].text)
    rendered = render_summary(_parts(items, required=required), "openclaw", max_tokens=200, count=count_tokens)
    assert all(text in rendered.text for text in required)
    assert rendered.omitted and not {i.text for i in rendered.omitted} & set(required)
