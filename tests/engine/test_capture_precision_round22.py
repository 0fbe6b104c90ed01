"""Constraint and open-item precision on the native3 sessions joined to FIT, round 22 (docs/capture.md, "Capture
figures, round 22 (precision on native3)"). Real FIT text quoted verbatim."""

from __future__ import annotations

from engine.capture.acts import read_user_turn
from engine.capture.ledger import ledger_of


def _rules(text: str) -> list[str]:
    return [s.text for s in read_user_turn(text, False).sentences if s.preference]


def test_very_is_not_always() -> None:
    # uechikohei/spot-diggz d94 and d91: "非常に" is "very"; it only holds the letters of "常に" (always).
    assert _rules("地図のフルスクリーン化は非常にいいかなと思っています。") == []
    assert _rules("なるほど、非常にいいと思いました。") == []
    # A rule said with the word itself stays one (9BwgeBTPG-QH/mark-it-down d66, its C2 form).
    rule = "Header-navを残してHeaderは残さないようにすること"
    assert _rules(rule) == [rule]


def test_the_chinese_table_does_not_read_japanese() -> None:
    # uechikohei/spot-diggz d92: "不要" is "not needed" in Japanese, and "全部" pushes all of this session once.
    assert _rules("不要なブランチはローカルとリモートから削除してもらっていいでしょうか。") == []
    assert _rules("今回実装するデータはティア2のデータになりますが、"
                  "ティア2のデータをティア1に昇格させる機能は一旦は不要でいいと思っています。") == []
    assert _rules("一度このターミナル閉じたいんで、`spot-diggz`だけ今開いてるのを"
                  "このセッションを全部プッシュして、entireの方にプッシュして。") == []
    # Chinese keeps its table (2333qbyqby/GlobalPose d06).
    assert _rules("不要用animator，用actor,我之前说错了") == ["不要用animator，用actor,我之前说错了"]
    assert _rules("脚本的位置也需要改动，全部放在 @Physics 里") == ["脚本的位置也需要改动，全部放在 @Physics 里"]


def _open_at_end(user: str, agent: str) -> list[str]:
    items = ledger_of([("user", user, "t1", "u1", False), ("assistant", agent, "t2", "a1", True)])
    return [i.text for i in items if i.kind == "open" and not i.done]


def test_a_report_in_headline_form_closes_the_last_request() -> None:
    # punt-labs/langlearn-tts d96 and Nishanth-sebastin/eagerminds-bookmarks d97: the work was done at the end.
    pr = ("PR created and Copilot review requested: https://github.com/punt-labs/langlearn-tts/pull/31\n\n"
          "The three new/updated workflows will run on this PR itself — that's the best test plan there is.")
    assert _open_at_end("commit this on a branch and open a PR", pr) == []
    built = "Build green, env safe, verification scripts removed. Committing and pushing the overhaul."
    assert _open_at_end("use shadcn if you want", built) == []
    # 0anes0/verilog_simulasyonu-LSFL- d54: Aider's "fixed versions" after a failed edit block reports nothing done.
    failed = ("# The other 8 SEARCH/REPLACE blocks were applied successfully.\nDon't re-send them.\n"
              "Just reply with fixed versions of the block above that failed to match.")
    wires = ("1. Düzenlenebilir Kablo (Draggable Wire Handles): Kablolar çizildikten sonra sabit kalıyor, bu bir EDA "
             "aracı için kabul")  # the first words of d54's last request
    assert len(_open_at_end(wires, failed)) == 1


def test_japanese_always_that_tells_how_things_are_is_no_rule() -> None:
    # uechikohei/spot-diggz d91 and d92: a state, a prediction and a consequence, not how the agent is to work.
    assert _rules("ミニカードが常に表示されていて、表示領域の70%ぐらいのうち30%はカードで占領していて") == []
    assert _rules("そこをリンクするっていう手動の操作が必ず必要になると思います。") == []
    assert _rules("そうすれば、それぞれのユーザーがどれだけスポット情報をプロットして登録しようとも、"
                  "クラウド側のリソースを圧迫しないで済みますし、データはユーザーのローカル側に担保されるため、"
                  "サービス提供者側からは見えない形になります。") == []
    # A rule said with "ないように" stays one (spot-diggz d92, the bold rule the labels hold).
    bold = ("大文字がまた隠れているので、太文字かボールドが隠れているので、"
            "ボールドはこのセッションは使用しないようにしてください。")
    assert _rules(bold) == [bold]
