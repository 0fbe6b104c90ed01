"""What a short yes confirms in a native Claude Code session (docs/capture.md, round 23).

The agent texts are quoted verbatim from FIT sessions of tests/data/real: eagerminds-bookmarks d97 and
langlearn-tts d96 (a narration line between tool calls, then the message the user answers), and langlearn-tts d96,
duet d78 and napoli-matcha d83 (an offer after a line with no word).
"""

from __future__ import annotations

from tests.engine.test_capture_real import _decisions, _fold

_INSIGHT_BOX = (
    "`★ Insight ─────────────────────────────────────`\n"
    "The bulk `replace_all` caught most occurrences but missed two semantic issues: `\"RACHEL\"` (a case-insensitive "
    "test that should use the *new* name in caps) and a mixed-case assertion where `resolve_voice()` lowercases the "
    "full description string. This is why tests exist — mechanical renames don't capture semantic intent.\n"
    "`─────────────────────────────────────────────────`\n"
    "\n"
    "Want me to commit this on a feature branch and open a PR?"
)  # langlearn-tts d96, the end of the agent's last message

_AUDIT = (  # duet d78, the agent message the user answers, whole
    "## Audit Results\n"
    "\n"
    "**9 commands, 12 skills, 1 agent** — all accounted for, no orphans.\n"
    "\n"
    "### Health\n"
    "\n"
    "- Every skill grounded in a named framework (Agans, Beck, Strunk, Bacchelli & Bird, etc.)\n"
    "- 7 of 12 skills have Bach recipes\n"
    "- FRAMEWORKS.md cross-links are consistent\n"
    "- No stale references to deleted commands (`note-why`, `whats-next`, `question`, `diagnose`)\n"
    "\n"
    "### Two auto-trigger-only skills\n"
    "\n"
    "`/naming` and `/performance` both have `user-invocable: false` — they surface diagnostically rather "
    "than on explicit invocation. Intentional, but worth knowing they won't appear in `/` autocomplete.\n"
    "\n"
    "### One fix found\n"
    "\n"
    "`plugin.json` keywords are missing `ia` and `prose`. Affects discoverability if anything ever "
    "indexes those keywords.\n"
    "\n"
    "### Usage evidence\n"
    "\n"
    "Strong evidence in this repo's commit history for `/sweep`, `/review`, `/probe`, `/vamp`, "
    "`/ponder`, `/retro`. Lore references skills in session notes and decisions. Bach/Neo reference "
    "recipes but not direct invocations — expected since they consume recipes, not commands.\n"
    "\n"
    "---\n"
    "\n"
    "Want me to fix the `plugin.json` keywords?"
)


def test_a_yes_does_not_confirm_the_agents_narration_between_tool_calls() -> None:
    # eagerminds-bookmarks d97: "Let me typecheck, lint, and build." is a message of its own before the one the user
    # answers with "ok do it"; the model read it from the joined messages as what the yes confirmed.
    last = (
        "Two things still outstanding (neither blocks Phase 5):\n"
        "- The Supabase **\"Confirm signup\" email template** → point at `/auth/confirm` (option b) so live signups "
        "complete.\n"
        "- A **browser click-through** of the dashboard CRUD (I've verified the data layer + public page against the "
        "real DB, but haven't driven the logged-in UI in a browser).\n"
        "\n"
        "Want me to **start Phase 5 (Resend welcome email)** next?"
    )
    items = _fold(("user", "ok start"), ("assistant", "Let me typecheck, lint, and build."), ("assistant", last),
                  ("user", "ok do it"))
    decisions = _decisions(items)
    assert "Let me typecheck, lint, and build." not in decisions
    assert any("start Phase 5 (Resend welcome email)" in d for d in decisions)


def test_a_yes_to_an_offer_after_a_word_less_frame_line_confirms_the_offer_as_a_statement() -> None:
    # langlearn-tts d96: the narration line came first ("Let me also clean up …"), and the insight box's closing rule
    # was taken as the sentence that names the offer's object, so the question stayed a question.
    items = _fold(("user", "fix the rachel default voice"),
                  ("assistant", "241 pass, zero errors. Let me also clean up the stale bug report file that was "
                                "already in the repo."),
                  ("assistant", _INSIGHT_BOX), ("user", "yes"))
    assert _decisions(items)[-1] == "Commit this on a feature branch and open a PR"


def test_a_frame_line_is_left_out_of_an_approval_that_carries_the_users_order() -> None:
    # duet d78: "---" before "Want me to fix the `plugin.json` keywords?", answered "yes, fix plugin.json".
    items = _fold(("user", "check the plugin manifest"), ("assistant", _AUDIT), ("user", "yes, fix plugin.json"))
    assert _decisions(items)[-1] == "yes, fix plugin.json (agrees: Fix the `plugin.json` keywords)"


def test_a_request_to_read_that_goes_on_to_order_the_work_is_a_decision() -> None:
    # eagerminds-bookmarks d97, the session's first message: "Read …" alone asks for no direction, but the order
    # after "and" starts the work the label holds.
    order = "Read BUILD_PLAN.md and start Phase 1 — scaffold the Next.js app."
    items = _fold(("user", order), ("assistant", "Phase 1 done."))
    assert [d for d in _decisions(items) if d.startswith(order)]
    # tnyOffice d01: "… then start thinking of a plan …" asks the agent to think, not to do: still no decision.
    words = ("read @README.md @apps/api/README.md and @apps/docs/README.md then start thinking of a plan for how we "
             "can allow changes that happened in the git repo to get applied to the document as edits like any others")
    items = _fold(("user", words), ("assistant", "I'll analyze the READMEs first."))
    assert not [d for d in _decisions(items) if d.startswith("read @README.md")]


def test_a_push_alone_is_no_decision_and_a_commit_with_it_still_is() -> None:
    # repiq d69 ("push") and chkit d82 ("and then push the update"): publishing committed work decides nothing new
    # and no label holds it; chkit d81's "Commit and push all changes" is labelled.
    did = "I've finished the change and the tests pass."
    for text in ("push", "and then push the update"):
        items = _fold(("user", "fix the tree view crash in TreeView.tsx"), ("assistant", did), ("user", text))
        assert not [d for d in _decisions(items) if d.startswith(text)]
    items = _fold(("user", "fix the tree view crash in TreeView.tsx"), ("assistant", did),
                  ("user", "Commit and push all changes"))
    assert [d for d in _decisions(items) if d.startswith("Commit and push all changes")]


def test_a_want_said_with_id_like_is_a_decision_and_its_outcome_skips_the_insight_rule() -> None:
    # langlearn-tts d96: the want form was written "i 'd like" (a space the contraction never has), so "I'd like to
    # register …" gave nothing; the agent's reply opens with Claude Code's insight box, whose rule is no outcome.
    words = ("Can we run an experiment? I'd like to register langlearn-tts as an MCP service with our claude code "
             "session.")
    reply = ("`★ Insight ─────────────────────────────────────`\n"
             "Claude Code MCP servers are configured via `.mcp.json` at the project root (project-scoped) or "
             "`~/.claude/mcp.json` (global). Since you're developing langlearn-tts in this project, a project-level "
             "`.mcp.json` makes the most sense — it'll be active only when you're in this directory.\n"
             "`─────────────────────────────────────────────────`")  # the start of the agent's reply
    items = _fold(("user", words), ("assistant", reply), ("user", "project-local this is just a quick test."))
    assert ("I'd like to register langlearn-tts as an MCP service with our claude code session. → Claude Code MCP "
            "servers are configured via `.mcp.json` at the project root (project-scoped) or `~/.claude/mcp.json` "
            "(global).") in _decisions(items)
