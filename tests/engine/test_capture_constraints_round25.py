"""Constraint capture on FIT, round 25 (docs/capture.md, "Capture figures, round 25 (constraints)"). Real FIT text
quoted verbatim; each case fails on the code before the round."""

from __future__ import annotations

from engine.capture.acts import read_user_turn
from engine.capture.ledger import ledger_of


def _rules(text: str) -> list[str]:
    return [s.text for s in read_user_turn(text, False).sentences if s.preference]


def test_japanese_only_when_is_a_rule() -> None:
    # uechikohei/spot-diggz d93 (c2): "only when a change is destructive, ask for permission".
    only_when = "その時に破壊的な変更がある場合に限り、許可を求めるようにしてください。"
    assert _rules(only_when) == [only_when]


def test_japanese_as_far_as_possible_is_a_rule() -> None:
    # uechikohei/spot-diggz d93 (c1): "I want to reduce these confirmations as far as possible".
    as_far = ("Yes, No questionで分岐が発生すると思うんですけど、"
              "やっぱりある程度方向性が決まった上での実行していいですか？実行してもダメですか？"
              "というコマンド実行の確認については極力減らしていきたいと思っているんですね。")
    assert any("極力減らしていきたい" in r for r in _rules(as_far))


def test_japanese_i_dont_want_to_is_a_rule() -> None:
    # uechikohei/spot-diggz d92 (c3): "I don't want to add needless roles and access paths to the Rust API".
    dont_want = ("そうですね、2点目が結構重要でマスターデータの投入経路なんですけども、"
                 "管理者、つまり私の方からマスターのデータは何か集計してバッチ処理で埋め込むみたいなところの"
                 "設定経路を作るでいいかなと思っていて、いわゆる Rust API の役割、"
                 "アクセス経路は無駄に増やしたくはないっていうのが本音なので、"
                 "管理者として何か UI を用意してそこからデータを追加するっていうのは"
                 "別に今回運用のエンジニアも私一人ですし、バッチ処理を流すぐらいは全然技術的に可能なので"
                 "スケジューリングで行ってもいいですし、定期的に。")
    assert _rules(dont_want) == [dont_want]


def _constraints_after(agent: str) -> list[str]:
    items = ledger_of([("user", "ok go on", "t1", "u1", False), ("assistant", agent, "t2", "a1", True)])
    return [i.text for i in items if i.kind == "constraint"]


def test_a_rule_the_agent_quotes_as_the_users_is_kept() -> None:
    # OdyAsh/odyash-dev.to d08 (C3): the agent goes by the user's standing instruction.
    said = ("I apologize for the error. According to your instructions, I should avoid using '&&' to chain commands. "
            "Let's install the glob package without chaining: ")
    assert _constraints_after(said) == ["According to your instructions, I should avoid using '&&' to chain commands."]


def test_a_rule_the_agent_records_for_later_turns_is_kept_once() -> None:
    # Nishanth-sebastin/eagerminds-bookmarks d97 (c1): noted, then recorded, the same rule (one item).
    noted = ("Two things — the script needs to live in the project to resolve `playwright`, and I'll note your "
             "instruction about not using `cartrabbit.in`. Let me move the script into the project and run it.")
    recorded = "Now let me record your instruction about `cartrabbit.in` so I respect it going forward."
    items = ledger_of([("user", "ok go on", "t1", "u1", False), ("assistant", noted, "t2", "a1", True),
                       ("assistant", recorded, "t3", "a2", True)])
    rules = [i.text for i in items if i.kind == "constraint"]
    assert len(rules) == 1 and "cartrabbit.in" in rules[0]


def test_a_rule_the_agent_writes_into_its_lessons_file_is_kept() -> None:
    # yutakobayashidev/repiq d69 (C2).
    said = ("リカバリ完了。goreleaser がリリースを正しく作り直しました。\n\n"
            "- 手動リリースを削除 → goreleaser ワークフローを rerun → v0.3.0 リリース成功\n"
            "- `tasks/lessons.md` にルールを追記済み: "
            "リリース CI がある場合はタグ push のみ、`gh release create` はしない")
    assert _constraints_after(said) == [
        "`tasks/lessons.md` にルールを追記済み: リリース CI がある場合はタグ push のみ、"
        "`gh release create` はしない"]


def test_work_done_as_asked_and_an_offer_of_where_to_add_rules_are_no_rule() -> None:
    # Sprayer115/KLIMA d50 (Aider doing this turn's work) and uechikohei/spot-diggz d93 (where the user could add one).
    assert _constraints_after("Ok, I will create and update the necessary files as per your instructions.") == []
    assert _constraints_after("なお、プロジェクト固有のルールを追加したい場合は、"
                              "各プロジェクトルートに `.claude/CLAUDE.md` を置けば、"
                              "グローバル設定に加えてそのプロジェクト固有の指示も適用されます。") == []


def _constraints_of(turns: list[tuple[str, str]]) -> list[str]:
    rows = [(role, text, f"t{n}", f"e{n}", role == "assistant") for n, (role, text) in enumerate(turns)]
    return [i.text for i in ledger_of(rows) if i.kind == "constraint"]


def test_an_order_given_again_after_the_agent_answered_it_is_how_the_user_works() -> None:
    # nakamura-shuta/tij d95 (c1): the release routine, said after one release and again after the next.
    first = "大丈夫そうです。plan.md,README更新後にcommit,push,publishしてください"
    again = "確認OKでした。plan.md, README更新後にcommit,push,publishしてください"
    assert _constraints_of([("user", first), ("assistant", "まず現在のファイルを確認します。"),
                            ("user", "次のタスク候補教えて下さい"), ("assistant", "候補は次の3つです。"),
                            ("user", again), ("assistant", "まず現在のファイルを確認します。")]) == [again]
    # tha-hammer/easy-video-share-vue d26 (C1): the same request sent again.
    said = ("We are still fixing UI mistakes from your LLM.\n\n"
            "The main app should load a modal window on click 'play' the modal does not load.")
    reply = ("I can see the issue! The modal is not loading because there's a mismatch between the HTML structure "
             "(which uses Bootstrap modal classes) and the JavaScript code (which tries to manually show/hide the "
             "modal).\n\nLet me examine the current modal setup and fix it:")
    rules = _constraints_of([("user", said), ("assistant", reply), ("user", said), ("assistant", reply)])
    assert len(rules) == 1 and rules[0].startswith("We are still fixing UI mistakes from your LLM.")
