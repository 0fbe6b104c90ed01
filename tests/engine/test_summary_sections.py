"""Earlier summaries read back item by item: pi's, OpenClaw's and ctxscope's headings, any other heading, every
item form (bullets, numbers, checkboxes, table rows, code, paragraphs, ### groups), file blocks and pins."""

from __future__ import annotations

import pytest

from engine.compaction.summary_sections import heading_kind, item_key, parse_summary

PI_SUMMARY = """## Goal
Ship the per-merchant rate limiter.

## Constraints & Preferences
- E2E tests only - no unit tests
- `npm run check` must pass

## Progress
### Done
- [x] Token bucket in Redis
- [x] Lua script for atomic take

### In Progress
- [ ] Tier cache

### Blocked
- Staging Redis is read-only

## Key Decisions
- **Fail open on Redis errors**: availability over strictness

## Next Steps
1. Grafana panel for rejected requests
2. Send the rollout doc to support

## Critical Context
- Limits come from the merchants table

<read-files>
docs/rate-limiting.md
</read-files>

<modified-files>
services/payments/ratelimit.py
</modified-files>"""


def _by_kind(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for item in parse_summary(text).items:
        out.setdefault(item.kind, []).append(item.text)
    return out


def test_pi_headings_map_to_kinds_with_every_item_whole() -> None:
    parsed = parse_summary(PI_SUMMARY, source="compaction entry c1")
    kinds = _by_kind(PI_SUMMARY)
    assert kinds["goal"] == ["Ship the per-merchant rate limiter."]
    assert kinds["constraints"] == ["E2E tests only - no unit tests", "`npm run check` must pass"]
    assert kinds["done"] == ["Token bucket in Redis", "Lua script for atomic take"]
    assert kinds["in_progress"] == ["Tier cache"]
    assert kinds["blocked"] == ["Staging Redis is read-only"]
    assert kinds["decisions"] == ["**Fail open on Redis errors**: availability over strictness"]
    assert kinds["todos"] == ["Grafana panel for rejected requests", "Send the rollout doc to support"]
    assert kinds["context"] == ["Limits come from the merchants table"]
    assert parsed.read_files == ("docs/rate-limiting.md",)
    assert parsed.modified_files == ("services/payments/ratelimit.py",)
    assert all(item.source == "compaction entry c1" for item in parsed.items)
    assert [item.order for item in parsed.items] == list(range(len(parsed.items)))


def test_openclaw_sections_and_latest_ask_first_order() -> None:
    text = ("## Decisions\n- Use Redis\n\n## Open TODOs\n- add metrics\n\n## Constraints/Rules\n- never log keys\n\n"
            "## Pending user asks\n- newest ask\n- older ask\n\n## Exact identifiers\n- ~/src/limiter.lua\n"
            "- https://x.example/a")
    parsed = parse_summary(text)
    kinds = _by_kind(text)
    assert kinds == {"decisions": ["Use Redis"], "todos": ["add metrics"], "constraints": ["never log keys"],
                     "asks": ["older ask", "newest ask"], "identifiers": ["~/src/limiter.lua", "https://x.example/a"]}
    asks = [i for i in parsed.items if i.kind == "asks"]
    assert asks[0].order < asks[1].order  # listed newest first, so the older ask is older


def test_split_turn_sections_are_kinds_and_our_boilerplate_is_not_an_item() -> None:
    text = ("## Decisions\n- None.\n\n---\n\n**Turn Context (split turn):**\n\n"
            "## Original Request\nfix the refill test\n\n"
            "## Early Progress\n- read(path=\"tests/test_refill.py\")\n- Found the frozen clock\n\n"
            "## Context for Suffix\n"
            "- The kept messages continue this turn from the point of the cut.\n- the fixture clock is frozen")
    kinds = _by_kind(text)
    # The split turn's tool call is how the turn went (a status line, not carried); what it found is done work.
    assert kinds == {"context": ["fix the refill test", "the fixture clock is frozen"],
                     "done": ["Found the frozen clock"], "status": ['read(path="tests/test_refill.py")']}


def test_any_other_heading_keeps_its_items_tables_code_and_groups() -> None:
    text = """# Context Checkpoint: Refactor

## Completed Work Packages (WP1-WP2)

| WP | Description | Status |
|----|-------------|--------|
| WP1 | bash-executor.ts | ✅ |
| WP2 | AgentSession | ✅ |

## Next Steps (WP3-WP4)

### WP3: Create main-new.ts (NEXT)
- Copy `main.ts` to `main-new.ts`
- Test via `npx tsx src/cli-new.ts`

## AgentSession Key API
```typescript
class AgentSession {
  // ## not a heading inside code
  prompt(text)
}
```

## Testing
User prefers **E2E tests only** - no unit tests.
"""
    items = parse_summary(text).items
    by_text = {item.text: item for item in items}
    assert by_text["# Context Checkpoint: Refactor"].section == "Earlier context"
    rows = [i for i in items if i.form == "row"]
    assert [r.text for r in rows] == ["| WP1 | bash-executor.ts | ✅ |", "| WP2 | AgentSession | ✅ |"]
    assert all(r.kind == "done" and r.table.startswith("| WP | Description | Status |") for r in rows)
    group = next(i for i in items if i.form == "group")
    assert group.kind == "todos"
    assert group.text.splitlines() == ["### WP3: Create main-new.ts (NEXT)", "- Copy `main.ts` to `main-new.ts`",
                                       "- Test via `npx tsx src/cli-new.ts`"]
    code = next(i for i in items if i.form == "code")
    assert code.section == "AgentSession Key API" and "// ## not a heading inside code" in code.text
    assert by_text["User prefers **E2E tests only** - no unit tests."].section == "Testing"


def test_multi_line_bullets_keep_their_continuation_lines() -> None:
    text = "## Key Decisions\n- First decision\n  with a second line\n  - and a nested bullet\n- Second decision\n"
    assert _by_kind(text)["decisions"] == ["First decision\nwith a second line\n- and a nested bullet",
                                           "Second decision"]


def test_ctxscope_status_lines_are_restated_not_carried_and_pins_are_apart() -> None:
    text = ("[ctxscope compaction | layer: summarize | 3 messages (~100 tokens) summarized | kept from entry x]\n"
            "Focus: retries\n\n## Progress\n- Tools used: read, edit\n- Last tool call: read(path=a.py)\n"
            "- Status when compacted: idle\n\n## Pinned messages\n### label 'design' · User · entry u1 · -\n"
            "keep this whole\n\n## Earlier summary\nold flattened text")
    parsed = parse_summary(text)
    kinds = _by_kind(text)
    assert set(kinds) == {"status", "other"}
    assert kinds["other"] == ["old flattened text"]
    assert "keep this whole" in parsed.pinned
    assert not any("ctxscope compaction" in i.text or i.text.startswith("Focus:") for i in parsed.items)


@pytest.mark.parametrize(("heading", "kind"), [
    ("Key Decisions Made", "decisions"), ("Next Steps (WP14-WP20)", "todos"), ("User Preferences", "constraints"),
    ("Completed Work (WP1-WP16)", "done"), ("Constraints/Rules", "constraints"), ("Exact identifiers", "identifiers"),
    ("Current Task: File Reorganization", "other"), ("Branch", "other"), ("Superseded (no longer current)",
                                                                         "superseded"),
])
def test_heading_kinds(heading: str, kind: str) -> None:
    assert heading_kind(heading) == kind


def test_placeholders_are_not_items() -> None:
    text = "## Decisions\nNo prior history.\n\n## Open TODOs\nNone.\n\n## Exact identifiers\nNone captured.\n"
    assert parse_summary(text).items == ()
    assert item_key("  a \n b ") == "a b"
