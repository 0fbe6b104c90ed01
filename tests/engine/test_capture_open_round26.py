"""Open items at the end, round 26 (docs/capture.md). Real FIT text quoted verbatim."""

from __future__ import annotations

from dataclasses import replace

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
