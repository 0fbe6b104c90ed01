"""Open items at the end, round 20 (docs/capture.md). Real FIT text quoted verbatim."""

from __future__ import annotations

from tests.engine.test_capture_real import _fold, _open, _state

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
