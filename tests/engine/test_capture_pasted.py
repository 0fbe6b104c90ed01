"""Pasted material is not the user's rules or orders (docs/capture.md, Pasted material; round 8).

The texts are quoted verbatim from FIT sessions of tests/data/real (keyframe-blogger d13/d14/d15, tellmepedia
d58, twat-search d22, odyash d09); the long ones are read from the corpus file itself.
"""

from __future__ import annotations

from pathlib import Path

from engine.capture.acts import read_user_turn
from engine.capture.envelopes import user_words
from engine.capture.pasted import pasted_lines
from engine.stores.message_content import message_text
from engine.stores.transcript import read_transcript
from tests.engine.test_capture_real import _constraints, _decisions, _fold

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


def _user_message(session: str, start: str) -> str:
    """The user message of FIT session ``session`` that starts with ``start``, verbatim."""
    reader = read_transcript(REAL / f"{session}.jsonl")
    for entry in reader.entries:
        if entry.role == "user":
            text = user_words(message_text(reader.read_object(entry).get("message") or {}))
            if text.startswith(start):
                return text
    raise AssertionError(f"no message starting {start!r} in {session}")


def test_a_page_under_a_url_is_the_pages_text_not_the_users_rule() -> None:
    # keyframe-blogger d15: the user quotes the documentation under its address; "Always use the Files API …" is
    # the page's advice. The user's own question before it stays a question.
    text = ("did you read this? https://gemini-api.apidog.io/doc-965860\nUpload an image file\nYou can use the Files "
            "API to upload an image file. Always use the Files API when the total request size (including the file, "
            "text prompt, system instructions, etc.) is larger than 20 MB, or if you intend to use the same image in "
            "multiple prompts.")
    assert pasted_lines(text) == {1, 2}
    assert _constraints(_fold(("user", text))) == []
    assert "asks" in read_user_turn(text, agent_offered=False).acts
    # A URL quoted inside pasted JSON is not a page's address: the user's sentence under the JSON stays theirs
    # (twat-search d22).
    json_then_order = ('twat-search web q "Adam Twardoch" --json\n{\n  "serpapi": {\n    "status": "success",\n'
                       '    "url": "http://www.twardoch.com/",\n    "title": "Adam Twardoch"\n  }\n}\n'
                       'The result from each engine should include an additional key "result" where the value is the '
                       '"NATIVE DETAILED" form of the result returned by the engine, whatever that might be.')
    assert any(s.instruction for s in read_user_turn(json_then_order, agent_offered=False).sentences)


def test_a_log_pasted_under_the_users_words_states_no_rule() -> None:
    # tellmepedia d58: "warning, text too long, lopping of last 98.7%" is the program's line, not a rule of the
    # user's; the user's French sentence that introduces it still reports the problem to fix.
    text = _user_message("d58_tellme_wiki_audio", "Il y a deux erreur")
    lines = text.splitlines()
    pasted = pasted_lines(text)
    assert 0 not in pasted  # the user's own introduction
    assert any(i in pasted for i, line in enumerate(lines) if line.startswith("warning, text too long"))
    items = _fold(("user", "ajoute la génération audio"), ("assistant", "J'ai ajouté generate_audio."),
                  ("user", text))
    assert _constraints(items) == []
    assert [i for i in items if i.kind == "open" and not i.done and i.text.startswith("Il y a deux erreur")]


def test_a_web_page_pasted_after_its_address_gives_no_rule_or_order() -> None:
    # tellmepedia d58: the GitHub page of suno-ai/bark, navigation and README ("You must be signed in …",
    # "Do NOT use `pip install bark`"), pasted under its URL.
    text = _user_message("d58_tellme_wiki_audio", "https://github.com/suno-ai/bark")
    items = _fold(("user", text))
    assert _constraints(items) == []
    assert _decisions(items) == []


def test_a_pasted_article_is_not_the_users_orders() -> None:
    # keyframe-blogger d14: a blog post pasted whole ("Install Cursor and get your laptop setup …", "✔ The path
    # … does not contain a package.json file", "Being overly specific … can steer the AI …").
    text = _user_message("d14_kfb_movie_keyframes", "Using Cursor to Create Sample Data")
    items = _fold(("user", text))
    assert not [d for d in _decisions(items) if "Install Cursor" in d]
    assert _constraints(items) == []


def test_the_users_words_before_a_pasted_checklist_stay_the_users() -> None:
    # keyframe-blogger d13: the user's paragraph, then a pasted checklist ("File size must stay ≤ 2 GB per
    # part.", "Use Context Caching if you’ll ask many questions …"): the checklist's rules are not the user's.
    text = _user_message("d13_kfb_blog_pipeline", "we're going to try to do the following")
    lines = text.splitlines()
    pasted = pasted_lines(text)
    assert 0 not in pasted
    assert any(i in pasted for i, line in enumerate(lines) if "File size must stay" in line)
    items = _fold(("user", text))
    assert _constraints(items) == []
    assert not [d for d in _decisions(items) if "Context Caching" in d or "File size" in d]
    # The user's own numbered spec after "to the following;" is typed, not pasted (odyash d09).
    spec = ("ok, change the logic of mermaid-to-png.js to the following;\n\n1. If a .mmd file already exists, its "
            "content is overwritten either way.\n2. File Naming: If any of the first 5 lines of a mermaid code block "
            "starts with  '%% file name: ' (even if indented), then the filename is the part after that prefix")
    assert pasted_lines(spec) == frozenset()


def test_the_users_order_right_above_a_pasted_log_stays_the_users() -> None:
    # tnyOffice d02: "given everything you know about @apps/docs/ fix this build error" on the line right above the
    # terminal session (no blank line, no colon) is the user's order; the `➜ docs git:(main) npm run build` lines are
    # the terminal's. Likewise evs d26's "No the video doesn't load … Console error: …" above its stack lines.
    text = _user_message("d02_tny_git_pull_impl", "given everything you know about @apps/docs/")
    lines = text.splitlines()
    pasted = pasted_lines(text)
    assert 0 not in pasted and 1 in pasted and lines[1].lstrip().startswith("➜")
    report = ("No the video doesn't load in the modal you fucking asswipe. Console error: ReferenceError: bootstrap "
              "is not defined\nat openVideoModal (http://localhost:5173/src/main.js?t=1750540433211:1019:26)\n"
              "at HTMLButtonElement.onclick (http://localhost:5173/#:1:1)")
    assert pasted_lines(report) == {1, 2}


def test_a_tools_lines_led_by_its_mark_or_name_and_a_level_are_pasted() -> None:
    # chkit d80: the changeset CLI leads its lines with "🦋  warn", npm with "npm notice" / "npm error"; the user
    # pasted them under "i tried to publish via `bun release:manual` but got this error:\" (SpecStory's escaped line
    # break after the colon). The warning's "you should revert these changes and run `changeset pre exit`" is the
    # program's advice, not the user's decision; the user's request after the log stays the user's.
    first = _user_message("d80_chkit_manual_release", "i tried to publish via `bun release:manual`")
    lines = first.splitlines()
    pasted = pasted_lines(first)
    advice = next(i for i, line in enumerate(lines) if "If you meant to do a normal release" in line)
    assert 0 not in pasted and advice in pasted
    later = _user_message("d80_chkit_manual_release", "$ doppler run --project chx")
    lines = later.splitlines()
    pasted = pasted_lines(later)
    assert {i for i, line in enumerate(lines) if line.startswith(("npm notice", "npm error", "🦋  warn"))} <= pasted
    own = next(i for i, line in enumerate(lines) if line.startswith("I think we need to before running the publish"))
    assert own not in pasted
    # tnyOffice d03 and seraphine d12: npm's "npm error …" lines under a terminal session and a Windows prompt.
    windows = ("can you help me with:\n\nC:\\Users\\Administrator\\Desktop\\Seraphine_Hybrid_V1_App>npx tailwindcss "
               "init -p\nnpm error could not determine executable to run\nnpm error A complete log of this run can "
               "be found in: C:\\Users\\Administrator\\AppData\\Local\\npm-cache\\_logs\\2025-07-17T16_22_45_966Z-"
               "debug-0.log")
    assert pasted_lines(windows) == {2, 3, 4}
    lint = _user_message("d03_tny_simple_auth", "➜  apps git:(main) ✗ npm run lint")
    assert all(i in pasted_lines(lint) for i, line in enumerate(lint.splitlines()) if line.startswith("npm error"))


def test_a_pasted_warning_gives_no_decision() -> None:
    # chkit d80: before round 21 the changeset warning was the decision "🦋 warn If you meant to do a normal release
    # you should revert these changes and run `changeset pre exit` → All typechecks pass."
    first = _user_message("d80_chkit_manual_release", "i tried to publish via `bun release:manual`")
    items = _fold(("user", first))
    assert not [d for d in _decisions(items) if "changeset pre exit" in d]


def test_claude_codes_own_screen_pasted_back_gives_no_order() -> None:
    # claude-zibe d104 (round 29): the user pastes what Claude Code's terminal showed and asks why it stalled; before,
    # the tool line "Update(/home/zorrik/.claude/agents/tdd-test-writer.md)" was read as an order and a decision.
    stuck = _user_message("d104_sentinel_phase3_eval", "why did this step got stuck")
    assert stuck.splitlines()[0] == "why did this step got stuck "
    assert pasted_lines(stuck) == {n for n, line in enumerate(stuck.splitlines()) if n and line.strip()}
    assert not [s.text for s in read_user_turn(stuck, agent_offered=False).sentences if s.instruction]
    # duet d79: the "⏺" reply and the "⎿" result under the user's own words are the screen, not the user.
    screen = _user_message("d79_duet_readme_hook", "i see a concerning pattern")
    lines = screen.splitlines()
    assert {n for n, line in enumerate(lines) if line.lstrip().startswith(("⏺", "⎿"))} <= pasted_lines(screen)
    assert 0 not in pasted_lines(screen)
