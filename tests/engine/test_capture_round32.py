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


_MERMAID = (
    "ok, change the logic of mermaid-to-png.js to the following;\n\n1. If a .mmd file already exists, its content is "
    "overwritten either way.\n2. File Naming: If any of the first 5 lines of a mermaid code block starts with  '%% "
    "file name: ' (even if indented), then the filename is the part after that prefix in the same line (if file name "
    "includes '.mmd' , it gets removed, as we take only the filename and append it to '.mmd' later before saving to a "
    ".mmd file. For example: `    %% file name: ai-vibe-brain-diagram.mmd` )"
)
"""odyash d09, the whole message."""
_MASK = (
    "I want to create a new Input Mask/Form. This one is supposed to be seperated into a Parent View "
    "`personalUndAbteilungen` which calls three Childs via shadcn-vue Tabs, the chils are the components "
    "Ueberstunden.vue, PersEinsatz.vue and Pooling.vue. The three childs have a shared datastructure, which you can "
    "find in ent.xml."
)
"""KLIMA d51, the message's first four sentences (of 1,118 characters)."""


def test_a_short_order_the_message_goes_on_to_spell_out_carries_what_follows() -> None:
    for message, key in ((_MERMAID, "overwritten"), (_MASK, "Ueberstunden.vue")):
        items = _fold(("user", "add a pre-commit hook"), ("assistant", "Done: the hook is in place."),
                      ("user", message))
        assert [d for d in _decisions(items) if d.startswith(message[:30]) and key in d], message[:40]


def test_a_short_order_above_a_pasted_log_does_not_carry_the_log() -> None:
    # tnyOffice d02: the order typed above a terminal log; the log is output, not what the order says.
    message = ("given everything you know about @apps/docs/ fix this build error\n➜  docs git:(main) npm run build\n\n"
               "> docs@0.1.0 build\n> next build\n\n   ▲ Next.js 15.4.2\n   - Environments: .env.local\n\n"
               "   Creating an optimized production build ...\nFailed to compile.")
    items = _fold(("user", "add a docs app"), ("assistant", "Done: the app builds."), ("user", message))
    assert [d for d in _decisions(items) if d.startswith("given everything")]
    assert not [d for d in _decisions(items) if "npm run build" in d]
