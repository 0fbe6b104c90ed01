"""Open items at the end, round 26 (docs/capture.md). Real FIT text quoted verbatim."""

from __future__ import annotations

from dataclasses import replace

from engine.capture.decisions import extract_open_items
from engine.capture.ledger import Ledger, fold_agent, fold_user, ledger_at_end
from tests.engine.test_capture_real import _fold, _open, _state

# d54 (0anes0/verilog_simulasyonu-LSFL-, Aider): the agent's first reply writes whole modules in SEARCH/REPLACE
# blocks; canvas.py holds two stub methods with TODO comments.
_CANVAS = (
    "Harika bir proje! LSFL (Logic Sim For Linux) için kapsamlı bir mantık devresi simülatörü oluşturacağım.\n\n"
    "lsfl/gui/canvas.py\n```python\n<<<<<<< SEARCH\n=======\n"
    "    def select_all(self):\n"
    "        self.selected_components = self.circuit.components.copy()\n"
    "        self.update()\n"
    "        \n"
    "    def undo(self):\n"
    "        # TODO: Implement undo\n"
    "        pass\n"
    "        \n"
    "    def redo(self):\n"
    "        # TODO: Implement redo\n"
    "        pass\n"
    ">>>>>>> REPLACE\n```\n"
)


def test_a_todo_comment_inside_code_the_agent_writes_is_no_next_step() -> None:
    items = _fold(("user", "Şimdi seninle muhteşem bir uygulamanın geliştirme sürecine girişeceğiz."),
                  ("assistant", _CANVAS))
    assert "Implement undo" not in _open(items)
    assert "Implement redo" not in _open(items)
    # Outside a fence the same line is still the agent's step.
    items = _fold(("user", "Şimdi seninle muhteşem bir uygulamanın geliştirme sürecine girişeceğiz."),
                  ("assistant", "Harika bir proje!\n# TODO: Implement undo"))
    assert "Implement undo" in _open(items)
    # The whole session: neither stub is open at the end.
    opened = _state("d54_lsfl_logic_sim").open_items
    assert "Implement undo" not in opened and "Implement redo" not in opened


# d09 (OdyAsh/odyash-dev.to, Copilot): the user's last message asks two questions and for examples; the agent's long
# last reply answers both (and ends by announcing other work, so it is no report of finished work).
_TWO_QUESTIONS = (
    "ok, 2 questions:\n\n"
    "in this code: `mkdir -p \"$assets_dir\" 2>/dev/null || true` , why do we have the `|| true` part? Didn't you "
    "say that `2>/dev/null` disregards error outputs? give me dummy examples of what will happen in each of these "
    "cases:\n\n"
    "* we don't add `2>/dev/null` nor  `|| true` syntax\n"
    "* we add former but not latter\n"
    "* we add latter but not former\n"
    "* we add both former and latter\n\n\n"
    "Second question: You say in the mermaid-processing.md file that `The Git hooks are installed in the .git/hooks "
    "directory` . however, from what i understand, when i push changes to github , the `.git/` folder isn't shown to "
    "the UI of GitHub files currently available in `main` , so my question is , how come that if another developer "
    "clones the repo , their `.git/` folder will contain these `pre-push` and `post-push` files? explain please"
)
_ANSWERS = (
    "Let me answer both of your questions in detail:\n\n"
    "## Question 1: Understanding the `mkdir -p \"$assets_dir\" 2>/dev/null || true` command\n\n"
    "You're asking about the purpose of `|| true` when `2>/dev/null` is already present. These two parts serve "
    "different but complementary purposes:\n\n"
    "- `2>/dev/null` redirects error **output** (stderr) to /dev/null, so you don't see error messages\n"
    "- `|| true` changes the command's **exit code** if it fails, ensuring the script continues running\n\n"
    "Now that we've updated the documentation, let's create the `.githooks` directory and add the hook files there "
    "so they can be included in the repository: "
)
# d83 (theogbrand/napoli-matcha, Claude Code): the user's last message asks for the plan's structure; the agent's
# last reply gives it.
_CLARIFY = ("Clarify what the final structure of the requests_queue will be which stores the requests queues and "
            "tickets created by the spec agent")
_STRUCTURE = (
    "Here's the final structure as it stands in the plan:\n\n### Directory Layout\n\n```\nfeature_requests/\n  FR-1/\n"
    "    request.md              # Original user request + clarification Q&A\n```\n\n### Two file types\n\n"
    "1. **`request.md`** — one per FR, stores the original user request and clarification Q&A history "
    "(frontmatter: `id: FR-1`, `created: ...`)"
)


def test_a_last_request_for_an_answer_is_answered_by_a_long_reply() -> None:
    items = _fold(("user", _TWO_QUESTIONS), ("assistant", _ANSWERS))
    assert not [o for o in _open(items) if o.startswith("in this code:")]
    items = _fold(("user", _CLARIFY), ("assistant", _STRUCTURE))
    assert _CLARIFY not in _open(items)
    # Unanswered, it stays open; with an order for other work beside it, it is work (a report of it finishes it).
    assert _open(_fold(("user", _CLARIFY))) == [_CLARIFY]
    # (d09's earlier order, verbatim, after the same words)
    work = (f"{_CLARIFY}. re-write the pre-push and post-push files so that they use `#!/bin/sh` instead of "
            "`#!/usr/bin/env powershell` powershell")
    assert _open(_fold(("user", work), ("assistant", _STRUCTURE))) == [work]
    # The whole sessions.
    assert not [o for o in _state("d09_odyash_mermaid_hooks").open_items if o.startswith("in this code:")]
    assert _CLARIFY not in _state("d83_napoli_plan_review").open_items


# d97 (Nishanth-sebastin/eagerminds-bookmarks, Claude Code): the user reports an error, interrupts the agent's first
# steps and redirects it in four words; the agent goes on with the same work and reports it finished.
_SANDBOX = ("i got this issue Blocked form submission to '' because the form's frame is sandboxed and the "
            "'allow-forms' permission is not set.")
_STARTED_UI = ("This is a solid chunk of work — a real UI overhaul plus fixing that sandbox error and improving the "
               "confirm UX. Let me look at the current styling setup first, then rebuild systematically.")
_REDIRECT = "use shadcn if you want"
_FINISHED = "Build green, env safe, verification scripts removed. Committing and pushing the overhaul."


def test_a_redirect_after_an_interrupt_takes_the_stopped_work_up_again() -> None:
    ledger = fold_agent(fold_user(Ledger(), _SANDBOX, "t0", "e0"), _STARTED_UI, True, "t1", "e1")
    ledger = replace(ledger, interrupted=True)  # "[Request interrupted by user]" (engine/capture/state.py)
    ledger = fold_agent(fold_user(ledger, _REDIRECT, "t2", "e2"), _FINISHED, True, "t3", "e3")
    opened = [i.text for i in ledger_at_end(ledger, "t4") if i.kind == "open" and not i.done]
    assert opened == []
    # The whole session: the reported error is not left open.
    assert not [o for o in _state("d97_eagerminds_bookmarks_build").open_items if o.startswith("i got this issue")]


# d83 (theogbrand/napoli-matcha): the agent's last reply closes on a numbered list of questions, each with a follow-up.
_CLOSING_LIST = (
    "Is there something about this structure that feels off or that you'd like to change? A few things I could see "
    "worth clarifying:\n\n"
    "1. **Where does `feature_requests/` live?** — Is it at the repo root of napoli-matcha itself, or somewhere "
    "configurable?\n"
    "2. **Who creates the FR directory and `request.md`?** — The Spec Agent creates both during its run, correct?\n"
)


def test_one_list_item_of_closing_questions_is_one_open_item() -> None:
    assert extract_open_items(_CLOSING_LIST) == (
        "Where does `feature_requests/` live? — Is it at the repo root of napoli-matcha itself, or somewhere "
        "configurable?",
        "Who creates the FR directory and `request.md`? — The Spec Agent creates both during its run, correct?",
    )
    opened = _state("d83_napoli_plan_review").open_items
    assert "— Is it at the repo root of napoli-matcha itself, or somewhere configurable?" not in opened
    assert "— The Spec Agent creates both during its run, correct?" not in opened


# d53 (PierrunoYT/expense-tracker, Aider): the user asks for a test file; the agent proposes it and closes with an
# offer; the user answers "n" to Aider's "Create new file?", so the file is never written and the request is open.
_TEST_FILE = "add a test file to check the csv"
_PROPOSED = (
    "I'll create a test file to verify the CSV functionality. This will test the creation, writing, and reading of "
    "the CSV file.\n\n"
    "This test file:\n1. Creates a separate test CSV file to avoid interfering with real data\n"
    "2. Tests CSV file creation and header verification\n3. Tests adding and retrieving single expenses\n"
    "4. Tests adding and retrieving multiple expenses\n5. Tests category total calculations\n"
    "6. Includes proper cleanup in tearDown()\n\n"
    "Would you like me to make any adjustments to the test file?"
)


def test_the_agents_closing_offer_is_no_second_item_while_the_users_request_is_open() -> None:
    assert _open(_fold(("user", _TEST_FILE), ("assistant", _PROPOSED))) == [_TEST_FILE]
    # The whole sessions: d53's offer and d92's closing question are not open beside the user's last words.
    assert not [o for o in _state("d53_exptr_cli").open_items if "adjustments to the test file" in o]
    assert not [o for o in _state("d92_spot_data_tiers").open_items if "普段どのようにプッシュしていますか" in o]


# d93 (uechikohei/spot-diggz, Claude Code): the user's last request; the agent's last words report one step done and
# announce the next ("コミットしてPRを作成します。": "I'll commit and create the PR"); the transcript ends there.
_NEXT_ACTIONS = ("ありがとうございます。じゃあ次に対応可能なものについて実装をお願いします。"
                 "また、ProREAC263のCodeRabbitの"
                 "レビューの結果を確認して問題なければマージして次のアクションを進めてください。")
_ANNOUNCED = ("Firebase 12.11.0 にアップグレード完了。型チェックとテストを実行します。\n\n\n"
              "✅ 3テスト全通過。Firebase 12.x へのアップグレードに問題なし。コミットしてPRを作成します。")
# tij d95 (nakamura-shuta/tij): the same form at the end of a message ("I'll import into jj and push").
_PUSH_NEXT = "コミット完了。jj に取り込んでプッシュします。"


def test_a_japanese_announcement_at_the_end_keeps_the_last_request_open() -> None:
    assert _open(_fold(("user", _NEXT_ACTIONS), ("assistant", _ANNOUNCED))) == [_NEXT_ACTIONS]
    request = "確認OKでした。plan.md, README更新後にcommit,push,publishしてください"  # tij d95, the request before it
    assert _open(_fold(("user", request), ("assistant", _PUSH_NEXT))) == [request]
    # A report that announces nothing more closes it, as before; "…お願いします" asks, it announces nothing.
    assert _open(_fold(("user", request), ("assistant", "コミット完了。"))) == []
    assert _open(_fold(("user", request), ("assistant", "コミット完了。ご確認をお願いします。"))) == []
    # The whole sessions: d93's request (label o1: PR #263 not merged) and d91's (the feasibility check that the
    # agent's last words "…を検証しましょう。" only begin) are open at the end.
    assert any("ProREAC263" in o for o in _state("d93_spot_permission_scan").open_items)
    assert any("動作" in o for o in _state("d91_spot_ui_redesign").open_items)
