"""Capture on native agent sessions (docs/capture.md, round 11): answers given through a tool, Japanese orders,
Chinese questions without a question mark, Claude Code's bash-mode blocks. Real FIT text quoted verbatim."""

from __future__ import annotations

from bench.real import matches
from engine.capture.acts import read_user_turn
from engine.capture.envelopes import user_words
from engine.capture.tool_answers import tool_answers
from tests.engine.test_capture_real import _constraints, _decisions, _fold, _label, _state

_TRACK_BOTH = ('User has answered your questions: "The .gitignore change removes the .claude exclusion. Do you want to '
               'track the .claude/ directory in git? Also, should .entire/ be included?"="Track both". You can now '
               "continue with the user's answers in mind.")


def test_an_answer_given_through_askuserquestion_is_the_users_confirmed_decision() -> None:
    # d62 (rommeld/leeson): the user chose "Track both" in Claude Code's question, inside a tool result.
    decisions = [d.what for d in _state("d62_leeson_commit_signing").decisions]
    assert any(matches(d, _label("d62_leeson_commit_signing", "decisions", "D3")) for d in decisions)
    # d69 (yutakobayashidev/repiq): three answers in one result are one decision, each question with its choice.
    answered = [d.what for d in _state("d69_repiq_license_trend").decisions if "サイレントに無視" in d.what]
    assert len(answered) == 1 and "--fields" in answered[0] and "(Recommended)" not in answered[0]


def test_only_the_asking_tools_answer_envelope_is_read_as_the_users_choice() -> None:
    assert tool_answers("AskUserQuestion", _TRACK_BOTH) == [(
        "The .gitignore change removes the .claude exclusion. Do you want to track the .claude/ directory in git? "
        "Also, should .entire/ be included?", "Track both")]
    assert tool_answers("Bash", _TRACK_BOTH) == []
    assert tool_answers("AskUserQuestion", "The user doesn't want to proceed with this tool use.") == []


# --- Japanese orders (9BwgeBTPG-QH/mark-it-down d66, yutakobayashidev/repiq d69, d70) ---------------------------


def test_a_japanese_order_is_read_by_its_ending_even_in_kana_only() -> None:
    for said in ("コミットして", "リリース打って", "specsも更新しておいて",
                 "HeaderのNavigationをよりコンパクトにし、上部に配置してほしい"):
        assert read_user_turn(said, False).has("instructs"), said
    # A statement of what the user did is no order: "これは実際に実行した結果を示してます" (d70).
    assert not read_user_turn("これは実際に実行した結果を示してます", True).has("instructs")


def test_a_japanese_order_that_names_its_object_or_says_a_want_sets_direction_a_bare_one_does_not() -> None:
    assert _decisions(_fold(("user", "specsも更新しておいて"))) == ["specsも更新しておいて"]
    assert _decisions(_fold(("user", "tasksはコミットするようにしたいかな"))) == ["tasksはコミットするようにしたいかな"]
    assert _decisions(_fold(("user", "ユースケースシミュレーションって名前良くないな、シナリオテストにしておいて")))
    assert _decisions(_fold(("user", "コミットして"))) == []
    # Asking to look and propose sets no direction until the proposal is taken (d70).
    assert _decisions(_fold(("user", "use-case-simulation.mdを見て、改善点を考察して提案して"))) == []


def test_a_japanese_rule_said_with_naiyouni_is_a_constraint() -> None:
    said = "スクロールすると、Headerが残ってHeader-navが残らない\n\nHeader-navを残してHeaderは残さないようにすること"
    assert any("Headerは残さない" in c for c in _constraints(_fold(("user", said))))


def test_claude_codes_bash_mode_blocks_are_harness_not_the_user() -> None:
    assert user_words("<bash-input>git push</bash-input>") == ""
    assert user_words("<bash-stdout>[entire] Pushing session logs to origin...\nTo https://github.com/"
                      "yutakobayashidev/repiq.git\n   aecabae..1d32158  main -> main</bash-stdout>"
                      "<bash-stderr></bash-stderr>") == ""


# --- Chinese questions without a question mark (Real-s/mini-simclr-assignment d59, senlongyugood/Mini-SimCLR- d68) --


def test_a_chinese_what_should_i_do_is_a_question_not_an_order() -> None:
    for said in ("现在是第一天 我应该做些什么来完成这个任务", "我应该如何做 可以在网页端的entire看到会话记录",
                 "跑通readme里面的要求我需要配置什么环境比如pytorch版本等等"):
        turn = read_user_turn(said, False)
        assert turn.has("asks") and not turn.has("instructs"), said
        assert _decisions(_fold(("user", said))) == [], said
    # The user's own idea after the comma stays an order (2333qbyqby/GlobalPose d07).
    own = "如果我的模型动捕已经估算出了人体的整体姿态，我该怎么把物理模块迁入unity,我想的是直接在unity中调c++的库"
    assert read_user_turn(own, False).has("instructs")


def test_a_chinese_question_without_a_question_mark_is_answered_by_the_agents_reply_not_left_open() -> None:
    reply = "可以直接在终端里运行：先激活环境，再执行 python linear_probe.py。" * 8  # a long answer, no report
    for said in ("看一下我的项目进度 接下来该做些什么了", "我自己该怎么运行"):  # d59, d67
        assert read_user_turn(said, False).has("asks"), said
        items = _fold(("user", said), ("assistant", reply))
        assert not [i for i in items if i.kind == "open" and not i.done and i.text == said], said


# --- what the user says right after stopping the agent (rommeld/leeson d61, yutakobayashidev/repiq d70) ----------


def test_a_short_order_right_after_an_interrupt_redirects_the_stopped_action_and_sets_direction() -> None:
    # d61: the user stopped `pip3 install git-filter-repo` and wrote " use uv as the package manager".
    assert any(d.what.startswith("use uv as the package manager") for d in _state("d61_leeson_risk_guard").decisions)
    # d70: the user stopped the commit hook's rerun and wrote "no verify".
    assert any(d.what.startswith("no verify") for d in _state("d70_repiq_scenario_test").decisions)


def test_the_same_short_order_without_an_interrupt_names_nothing_and_sets_no_direction() -> None:
    assert _decisions(_fold(("user", "use uv as the package manager"))) == []


# --- Codex Desktop's envelopes (Real-s/mini-simclr-assignment d59) -----------------------------------------------


def test_codex_desktops_files_mentioned_wrapper_keeps_only_the_request_and_its_agents_md_is_harness() -> None:
    wrapped = ("\n# Files mentioned by the user:\n\n## codex-clipboard-850c84aa-a88b-4cde-8485-75a8e0f1d14e.png: "
               "C:/Users/13416/AppData/Local/Temp/codex-clipboard-850c84aa-a88b-4cde-8485-75a8e0f1d14e.png\n\n"
               "## My request for Codex:\n这是什么意思\n\n<image name=[Image #1] path=\"C:\\Users\\13416\\AppData\\"
               "Local\\Temp\\codex-clipboard-850c84aa-a88b-4cde-8485-75a8e0f1d14e.png\">\n</image>")
    assert user_words(wrapped) == "这是什么意思"
    assert user_words("# AGENTS.md instructions\n\n<INSTRUCTIONS>\n每次修改word文档时，备份之后在进行修改。\n"
                      "不要轻易地大批量删除文件。\n</INSTRUCTIONS>") == ""


def test_a_japanese_done_report_closes_the_last_request_at_the_end() -> None:
    # d69: the agent's last turn after "レビューチェック" reports it finished.
    report = ("完了。\n\n- CI: パス\n- レビュー指摘 2件: 両方修正して resolve 済み\n"
              "  1. 空プロバイダーオブジェクトを除外するよう例を修正\n  2. Markdown 例に `error` 列を追加")
    items = _fold(("user", "specsも更新しておいて"), ("assistant", report))
    assert not [i for i in items if i.kind == "open" and not i.done]


def test_a_reply_claude_code_wrote_itself_is_no_outcome() -> None:
    # d96 (punt-labs/langlearn-tts): after "release v0.6.4" the agent did the release and reported; a later record with
    # the model "<synthetic>" ("No response requested.", written by Claude Code after a local command) is harness.
    released = [d.what for d in _state("d96_langlearn_release_voice").decisions if d.what.startswith("release v0.6.4")]
    assert len(released) == 1
    assert "No response requested" not in released[0] and "All 10 steps complete" in released[0]
