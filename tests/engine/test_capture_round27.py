"""Decisions, round 27 (docs/capture.md): an order of the user's own that ends in a question mark.

The user's words are quoted verbatim from FIT sessions of tests/data/real: packmind d86 and napoli-matcha d84 (the
labelled orders), safecast d65 (a proposal that names no file: a request now, still no decision), odyash d08 and
keyframe-blogger d14 (shapes that stay questions).
"""

from __future__ import annotations

import pytest

from engine.capture.acts import read_user_turn
from tests.engine.test_capture_real import _decisions, _fold

_DID = "I've finished the change and the tests pass."


@pytest.mark.parametrize("order", [
    # packmind d86
    'Make these two button "List / Tree" more visible, on the left side, and maybe create a frame that encompass '
    "the whole content below ?",
    "we need @vitest.config.ts and it is functional and working right?",  # napoli-matcha d84
])
def test_an_order_with_a_question_mark_is_a_decision(order: str) -> None:
    items = _fold(("user", "add a tree view to ContextTab.tsx"), ("assistant", _DID), ("user", order))
    assert [d for d in _decisions(items) if d.startswith(order)]


def test_a_proposal_with_a_question_mark_asks_for_work() -> None:
    # safecast d65: the user's proposal is work asked for; it names no file, so it gives no decision (Limits).
    turn = read_user_turn("Maybe we should make the search area of villages and towns much biggre maybe 50km radius?",
                          False)
    assert turn.has("instructs") and not turn.has("asks")


@pytest.mark.parametrize("text", [
    "ok, change in plan ?",  # odyash d08: three words, no order
    # keyframe-blogger d14: a question about a case, which names a file
    "what happens if BLOG_PROMPT.md is in the same directory as the script instead of in the target directory?",
])
def test_a_question_stays_a_question(text: str) -> None:
    turn = read_user_turn(text, False)
    assert all(s.question for s in turn.sentences) and not turn.has("instructs")


_VOICES = """There's your full list — 22 voices with IDs. No "Rachel" at all.

For a language learning tool, which voice feels right as the default? Some natural candidates:

| Voice | Character |
|-------|-----------|
| **Alice** | Clear, Engaging Educator |
| **Matilda** | Knowledgeable, Professional |
| **River** | Relaxed, Neutral, Informative |
| **Sarah** | Mature, Reassuring, Confident |

"Alice" and "Matilda" both fit the educational context. Your call."""
"""The agent's last message before the user's "Matilda" (langlearn-tts d96), quoted from its end."""

_CONFIRMATION = """## ⚠️ One decision needed from you
Email confirmation is currently **ON** in your Supabase project (`mailer_autoconfirm: false`), so a new signup shows \
"check your email" rather than landing on the dashboard. Pick one:

- **(a) Simplest** — Supabase → Auth → Providers → Email → turn **off "Confirm email"**. Signup then creates a \
session immediately and lands on `/dashboard`.
- **(b) Keep confirmation on** — set the "Confirm signup" email template link to \
`{{ .SiteURL }}/auth/confirm?token_hash={{ .TokenHash }}&type=signup` (the route I just added handles it).

## Next up — Phase 2b (the security core)
Want me to proceed with Phase 2b now? And which email-confirmation option above should I note as decided?"""
"""The agent's last message before "b option and ok then start next" (eagerminds-bookmarks d97), shortened."""


@pytest.mark.parametrize(("agent", "reply", "picked"), [
    (_VOICES, "Matilda", "| **Matilda** | Knowledgeable, Professional |"),
    (_CONFIRMATION, "b option and ok then start next", "- **(b) Keep confirmation on**"),
], ids=["langlearn-tts-d96", "eagerminds-d97"])
def test_a_short_reply_naming_an_option_the_agent_listed_is_a_decision(agent: str, reply: str, picked: str) -> None:
    items = _fold(("user", "fix the default voice in providers/elevenlabs.py"), ("assistant", agent), ("user", reply))
    assert [d for d in _decisions(items) if d.startswith(f"{reply} (picks: {picked}")]


def test_a_reply_that_names_no_listed_option_picks_nothing() -> None:
    # "Rachel" is named in the agent's prose, not set out as an option; a yes picks no option either.
    for reply in ("Rachel", "yes"):
        items = _fold(("user", "fix the default voice in providers/elevenlabs.py"), ("assistant", _VOICES),
                      ("user", reply))
        assert not [d for d in _decisions(items) if "(picks: " in d]


def test_naming_an_item_of_a_list_the_agent_did_not_offer_as_a_choice_picks_nothing() -> None:
    # A list of what the agent did asks for no choice, and a reply that names a listed file to say it fails is a
    # report: neither is a pick.
    done = ("- **README.md** updated with the new name\n- **pyproject.toml** bumped to 0.2.0\n\n"
            "Want me to run the tests again?")
    for reply in ("README.md", "README.md is still wrong", "yes, and bump pyproject.toml again"):
        items = _fold(("user", "rename the project in README.md"), ("assistant", done), ("user", reply))
        assert not [d for d in _decisions(items) if "(picks: " in d]
