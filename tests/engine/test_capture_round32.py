"""Decisions, round 32 (docs/capture.md): what an item says when it names the agent's list by number.

The words are quoted verbatim from development sessions of tests/data/real: claude-zibe d104 (native4: a yes to "Want
me to apply items 5, 6, and 7 now?" after a table of numbered changes) and safecast d63 (FIT: "can you fix option 1"
after a numbered list of what needs to happen).
"""

from __future__ import annotations

from engine.capture.proposals import numbered_rows
from tests.engine.test_capture_real import _decisions, _fold

_ITEMS = (
    "Here is the full list — including what I've already applied and what still remains:\n"
    '\n'
    '---\n'
    '\n'
    '## Changes needed — full list\n'
    '\n'
    '### Already applied ✅\n'
    '\n'
    '| # | What | Where |\n'
    '|---|------|--------|\n'
    '| 1 | Ceiling rule: "write ONLY the tests listed, extras go in a NOTE" | '
    '`~/.claude/agents/tdd-test-writer.md` |\n'
    '| 2 | Single-agent RED rule: never parallel test-writer agents | `~/.claude/skills/tdd-loop/SKILL.md` |\n'
    '| 3 | "Nothing else" delegation closing: delegation prompts must end with that phrase | '
    '`~/.claude/skills/tdd-loop/SKILL.md` |\n'
    '| 4 | Memory: failure pattern recorded for future sessions | `memory/feedback_tdd_parallel_agents.md` |\n'
    '\n'
    '---\n'
    '\n'
    '### Not yet applied — still needed\n'
    '\n'
    '| # | What | Where | Why |\n'
    '|---|------|--------|-----|\n'
    '| 5 | After writing new tests, run the **full suite** (not just the new files) before committing '
    'RED | `tdd-loop SKILL.md` — add to Phase 2 | Intra-test conflicts only appear when all files run '
    'together. I committed RED after seeing "38 failed, 670 passed" on the new files alone — the '
    'conflict was invisible until GREEN. |\n'
    "| 6 | tdd-test-writer must report any behavioral constraint it inferred but wasn't in the list as a "
    '**NOTE in its return value**, not a test | `tdd-test-writer.md` | If the agent had reported "I '
    'noticed that `data_status=ok + forward_return=None` might be worth restricting — want me to add a '
    'test?" the conflict would never have been committed. |\n'
    '| 7 | Write guard needs a bypass mechanism for authorized test fixes | '
    '`~/.claude/hooks/pre-write-guard.sh` | Currently, fixing a wrong test requires a Bash workaround '
    'that bypasses the hook entirely — which is both awkward and untraceable. A named env var '
    '(`CLAUDE_AUTHORIZE_TEST_EDIT=1`) would let authorized edits go through the proper tool while still '
    'blocking accidental ones. |\n'
    '\n'
    '---\n'
    '\n'
    'Want me to apply items 5, 6, and 7 now? '
)
"""The agent's whole message before the user's "yes" (claude-zibe d104)."""

_OPTIONS = """### What needs to happen:

1. **Resolve merge conflicts** - The PR branch needs to be updated with the latest `main` branch and conflicts resolved
2. **Run tests/CI** - Once conflicts are resolved, ensure all tests pass
3. **Code review** - Get the changes reviewed before merging

Would you like me to help resolve the merge conflicts by updating the PR branch with the latest main? """
"""The end of the agent's message before "can you fix option 1" (safecast d63)."""


def test_a_yes_to_numbered_items_says_what_the_rows_are() -> None:
    items = _fold(("user", "apply fixes"), ("assistant", _ITEMS), ("user", "yes"))
    said = [d for d in _decisions(items) if d.startswith("Apply items 5, 6, and 7 now")]
    assert said and "full suite" in said[0] and "6: tdd-test-writer must report" in said[0]
    assert "7: Write guard" in said[0]


def test_an_order_naming_an_option_by_number_says_what_the_option_is() -> None:
    items = _fold(("user", "check PR #5"), ("assistant", _OPTIONS), ("user", "can you fix option 1"))
    assert [d for d in _decisions(items) if d.startswith("can you fix option 1 (1: Resolve merge conflicts")]


def test_numbers_that_name_no_row_add_nothing() -> None:
    assert numbered_rows("apply items 5 and 6", _OPTIONS) == ""
    assert numbered_rows("wait 10 seconds", _ITEMS) == ""
    assert numbered_rows("yes", _ITEMS) == ""
