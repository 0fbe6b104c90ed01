"""Open items at the end, round 20 (docs/capture.md). Real FIT text quoted verbatim."""

from __future__ import annotations

from dataclasses import replace

from bench.real import matches
from engine.capture.ledger import Ledger, fold_agent, fold_user, ledger_at_end
from tests.engine.test_capture_real import _fold, _label, _open, _state

# d58 (Orolol/tellmepedia, Aider): the agent asked for the file; the user added it and said only this.
_ASKED_FOR_FILE = ("Before we can make any changes, we need to add this file to the chat. Once you've added it, we "
                   "can examine its contents and propose any necessary modifications.")
_CHUNKS = ("Pour le chunck, peut être que l'on pourrait utiliser nltk (Natural language toolkit) to split into "
           "sentances.")
_VOILA = "voila"
# d90 (sysilion/moviehub, Gemini CLI): "게속" is a misspelt 계속 ("go on"), said after the agent's report.
_DELAY = ("전체 굿즈 이벤트 조회할때 지연시간을 추가해줘야될거같은데, "
          "아니면 병렬로 처리하면서 기존 로직처럼 ~600초 대기를 넣어야 될거같아")
_GO_ON = "게속"


def test_a_bare_word_that_names_nothing_is_no_open_item() -> None:
    items = _fold(("user", _CHUNKS), ("assistant", _ASKED_FOR_FILE), ("user", _VOILA),
                  ("assistant", "Merci d'avoir ajouté le fichier."))
    assert _VOILA not in _open(items)
    items = _fold(("user", _DELAY), ("assistant", "### 변경 사항 상세"), ("user", _GO_ON),
                  ("assistant", "모든 수정 사항이 성공적으로 푸시되었습니다!"))
    assert _GO_ON not in _open(items)
    # The whole sessions: neither word is left open at the end.
    assert _VOILA not in _state("d58_tellme_wiki_audio").open_items
    assert _GO_ON not in _state("d90_moviehub_vercel_cron").open_items


def test_a_one_word_report_that_names_something_or_a_failure_is_still_open() -> None:
    # "出错了" (it failed: zchdoc/shadcn-ui-sidebar d05) and "レビューチェック" (check the review: repiq d69) are whole
    # phrases in one "word"; the rest name a thing or a failure.
    for said in ("出错了", "レビューチェック", "404", "app.py", "broken", "`ENOENT`"):
        items = _fold(("user", said), ("assistant", "Let me look."))
        assert _open(items) == [said], said


# --- work cut off: repiq d69 (Claude Code). The agent proposed its next step, the user said "go on", then
# interrupted the reply that had just begun and asked for something else, which the agent finished.
_NEXT_STEP = "次のステップは `/kitchen:prep` で実装計画と TODO 分解です。"
_STARTED = "フィールド選択の実装計画を作成します。まずスペックを確認して TODO を分解します。"


def test_an_interrupted_go_on_stays_open_with_the_work_it_had_started() -> None:
    ledger = fold_agent(Ledger(), _NEXT_STEP, True, "t0", "e0")
    ledger = fold_agent(fold_user(ledger, "続けて", "t1", "e1"), _STARTED, True, "t2", "e2")
    ledger = replace(ledger, interrupted=True)  # "[Request interrupted by user]" (engine/capture/state.py)
    ledger = fold_agent(fold_user(ledger, "レビューチェック", "t3", "e3"), "完了。\n\n- CI: パス", True, "t4", "e4")
    opened = [i.text for i in ledger_at_end(ledger, "t5") if i.kind == "open" and not i.done]
    assert opened == ["続けて (re: フィールド選択の実装計画を作成します。)"]
    # The whole session: the label "Implement field selection (--fields) …" is open at the end.
    label = _label("d69_repiq_license_trend", "open_items", "O1")
    assert any(matches(o, label) for o in _state("d69_repiq_license_trend").open_items)


# --- the problem a bare word leaves open: tellmepedia d58 pasted a traceback, the agent asked for the file, the
# user added it and said "voila", and the agent's shell commands were all declined: the failure is still open.
# Lines of the pasted traceback, each verbatim.
_TRACEBACK = """  File "<frozen runpy>", line 198, in _run_module_as_main
  File "<frozen runpy>", line 88, in _run_code
  File "/home/orolol/workspace/tellmepedia/api/app.py", line 1, in <module>
    from flask import Flask, request, jsonify, send_file
  File "<frozen importlib._bootstrap_external>", line 1131, in get_data
OSError: [Errno 5] Input/output error"""
_DONE_KO = "모든 수정 사항이 성공적으로 푸시되었습니다!"


def test_a_pasted_traceback_is_named_by_its_error_and_a_bare_word_keeps_it_open() -> None:
    items = _fold(("user", _TRACEBACK), ("assistant", _ASKED_FOR_FILE), ("user", _VOILA),
                  ("assistant", "Merci d'avoir ajouté le fichier. Cependant, pour essayer de résoudre ce problème, "
                                "nous pouvons tenter quelques approches :"))
    assert _open(items) == ["OSError: [Errno 5] Input/output error"]
    label = _label("d58_tellme_wiki_audio", "open_items", "O1")
    assert any(matches(o, label) for o in _state("d58_tellme_wiki_audio").open_items)


def test_a_korean_report_of_pushed_work_closes_the_request() -> None:
    assert _open(_fold(("user", _DELAY), ("assistant", _DONE_KO))) == []
    # "게속" goes on with the same work: the request stays open until the agent reports it done.
    items = _fold(("user", _DELAY), ("assistant", "### 변경 사항 상세"), ("user", _GO_ON))
    assert _open(items) == [_DELAY]
    assert _open(_fold(("user", _DELAY), ("assistant", "### 변경 사항 상세"), ("user", _GO_ON),
                       ("assistant", _DONE_KO))) == []
    assert _state("d90_moviehub_vercel_cron").open_items == ()


def test_a_yes_after_an_interrupt_takes_the_same_work_up_again() -> None:
    # keyframe-blogger d13: the user stopped a tool call, then said "yep go ahead"; the run finished the work.
    ledger = fold_agent(fold_user(Ledger(), "got it", "t0", "e0"), "The video is slightly over the token limit.",
                        True, "t1", "e1")
    ledger = fold_user(replace(ledger, interrupted=True), "yep go ahead", "t2", "e2")
    assert not any(i.source == "stopped" for i in ledger.items)
    assert not any(o.startswith("got it") for o in _state("d13_kfb_blog_pipeline").open_items)
