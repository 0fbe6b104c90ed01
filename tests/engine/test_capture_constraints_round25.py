"""Constraint capture on FIT, round 25 (docs/capture.md, "Capture figures, round 25 (constraints)"). Real FIT text
quoted verbatim; each case fails on the code before the round."""

from __future__ import annotations

from engine.capture.acts import read_user_turn


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
