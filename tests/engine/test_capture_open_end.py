"""What is still open at the end of a real session (docs/capture.md, round 12). Real FIT text quoted verbatim."""

from __future__ import annotations

from bench.real import matches
from engine.capture.acts import asks_whether_fixed, read_user_turn, says_failure
from tests.engine.test_capture_real import _fold, _label, _open, _state

# d65 (Safecast/safecast-map-MCP): the user's last message; the agent then pushed a change and described it.
_STILL_NOT = "Tables are good now. Bu seems Mistral still does not get the realtime data first?"
# d52 (Sprayer115/KLIMA): the user's last message; the agent then rewrote Layout.vue.
_WORKED_BUT = ("I think you are way over complicating it maybe also check Layout.vue usually applying dark mode "
               "style is easy, with the last change it somehow worked but has a diffrent background color. Try to "
               "keep it simple with standard implementation")
_FIXED = ("Pushed. The key change — instead of a text instruction, `query_radiation` now returns structured data. "
          "The bounding box is pre-computed from the query coordinates ±0.5° (~50km), so Mistral just copies the "
          "numbers directly — no geocoding needed, no room to get it wrong.")


def test_a_failure_reported_as_a_question_stays_open_until_the_user_confirms_the_fix() -> None:
    assert asks_whether_fixed(read_user_turn(_STILL_NOT, False))
    items = _fold(("user", _STILL_NOT), ("assistant", _FIXED))
    assert _open(items) == [_STILL_NOT]
    # The whole session: the label "Check whether Mistral now fetches the real-time sensor data first" is open.
    opened = _state("d65_safecast_mistral_guidance").open_items
    assert any(matches(o, _label("d65_safecast_mistral_guidance", "open_items", "O1")) for o in opened)
    # A question about why or how it fails, or a bare "still", asks for an answer, which the reply gives.
    for said in ("why does the page still not load?", "Is this still needed?", "what error do you get?"):
        assert not asks_whether_fixed(read_user_turn(said, False)), said
        assert not _open(_fold(("user", said), ("assistant", _FIXED * 2))), said


def test_it_worked_but_reports_what_still_fails() -> None:
    assert says_failure(_WORKED_BUT)
    items = _fold(("user", _WORKED_BUT),
                  ("assistant", "I've simplified the dark mode implementation in src\\components\\Layout.vue. "
                                "These changes should provide a more straightforward and consistent dark mode."))
    assert _open(items) == [_WORKED_BUT]
    opened = _state("d52_klima_results_tables").open_items
    assert any(matches(o, _label("d52_klima_results_tables", "open_items", "O1")) for o in opened)


# --- a reply the user stopped (SpecStory's "Cancelled"): tha-hammer/easy-video-share-vue d23, twardoch/twat-search d22

_STOPPED_TURNS = (
    ("user", "ran command in external window, error attached"),
    ("assistant", "Let me try a different approach. Since the API Gateway authorizer configuration looks correct, the "
                  "issue might be that the **identity source** needs to be explicitly configured, or there's a timing "
                  "issue. Let's fix the API Gateway authorizer:"),
    ("assistant", "Now let's apply these changes:"),
    ("assistant", "Cancelled"),
    ("user", "Review this entire conversation and the 'easy video sharing' document.\n\nHelp me understand the "
             "troubleshooting reasoning. Help me with a troubleshooting process to use in general for cloud "
             "engineering and devops as well."),
    ("assistant", "Here is the reasoning we followed, step by step, and a general process you can reuse." * 5),
)


def test_a_request_whose_reply_was_stopped_stays_open_until_later_finished_work_supersedes_it() -> None:
    items = _fold(*_STOPPED_TURNS)
    stopped = [i for i in items if i.source == "stopped"]
    assert [i.text for i in stopped] == ["ran command in external window, error attached"]
    assert not stopped[0].done
    for name, label in (("d23_evs_accounts_api", "O2"), ("d22_twat_brave", "O1")):
        assert any(matches(o, _label(name, "open_items", label)) for o in _state(name).open_items), name
    # Without the stop, the user moving on closes the request as before.
    turns = tuple(t for t in _STOPPED_TURNS if t[1] != "Cancelled")
    assert "ran command in external window, error attached" not in _open(_fold(*turns))
    # Only the latest stop stays open: work finished after it, which the user moved on from, supersedes it.
    later = _fold(*_STOPPED_TURNS, ("user", "add a login page under src/app/login/page.tsx"),
                  ("assistant", "I've added the login page in src/app/login/page.tsx."), ("user", "thanks"))
    assert not [i for i in later if i.source == "stopped" and not i.done]


# --- a reported problem the agent's own run shows fixed: senlongyugood/Mini-SimCLR- d68, yutakobayashidev/repiq d69


def test_a_reported_problem_is_closed_at_the_end_when_the_agents_own_run_shows_it_working() -> None:
    said = "我的data_utils.py用simclr环境运行不了"  # d68, the user's last message
    ran = ("跑通了。总共修了两个问题：\n\n| 问题 | 原因 | 修复 |\n|---|---|---|\n"
           "| `No module named 'code'` | `code/` 没有 `__init__.py` | 新建了空的 `code/__init__.py` |")
    assert not _open(_fold(("user", said), ("assistant", ran)))
    # The same problem with only a claim of a fix ("should work now") stays open until the user confirms it.
    claimed = "找到原因了，我把数据文件移到了子目录下，现在应该可以了。"
    assert _open(_fold(("user", said), ("assistant", claimed))) == [said]
    # d69: "no veridy" after the user stopped the commit hook; the agent's last message reports CI passing.
    done = "完了。\n\n- CI: パス\n- レビュー指摘 2件: 両方修正して resolve 済み"
    assert not _open(_fold(("user", "レビューチェック"), ("assistant", "CI パス。レビューコメントを確認します。"),
                           ("user", "no veridy"), ("assistant", done)))
    assert not _state("d68_minisimclr_env").open_items
    # d69 keeps open only the "go on" the user stopped earlier (round 20), not the problem the run fixed.
    assert not [o for o in _state("d69_repiq_license_trend").open_items if not o.startswith("続けて")]


# --- a last question about how to go on: Rinku8381/seraphine-hybrid-v1 d12, Real-s d59, senlongyugood d67 ----------

_HOW_TO_RUN = ("直接命令行运行：\n\n**预训练：**\n```bash\ncd code\npython pretrain.py\n```\n\n"
               "**线性评估（先等预训练跑完生成 checkpoint）：**\n```bash\ncd code\npython linear_probe.py\n```\n\n"
               "如果你要调参数，可以直接改文件底部的 `config` 字典：")


def test_a_last_question_about_how_to_go_on_stays_open_with_the_steps_the_answer_gave() -> None:
    items = _fold(("user", "我自己该怎么运行"), ("assistant", _HOW_TO_RUN))  # d67
    assert _open(items) == ["我自己该怎么运行 → python pretrain.py; python linear_probe.py"]
    # d59: no commands in the answer, its first numbered step is what is to do.
    plan = ("接下来最该做的不是继续折腾数据集，而是进入“模型和 loss”阶段。按优先级我建议你这样走：\n\n"
            "1. 写 `model.py` 的思路，不急着写满：\n   先确定一个小型 CNN encoder。\n2. 写 `loss.py` 的思路：")
    assert _open(_fold(("user", "看一下我的项目进度 接下来该做些什么了"), ("assistant", plan * 2))) == [
        "看一下我的项目进度 接下来该做些什么了 → 写 `model.py` 的思路，不急着写满："]
    for name, label in (("d12_rinku_terms_popup", "O2"), ("d59_simclr_codex_day1", "O1"),
                        ("d67_minisimclr_ntxent", "O1")):
        assert any(matches(o, _label(name, "open_items", label)) for o in _state(name).open_items), name
    # A question the user moved on from is answered; so is one about why, which gives no steps of the user's.
    assert not _open(_fold(("user", "我自己该怎么运行"), ("assistant", _HOW_TO_RUN), ("user", "thanks, works")))
    assert not _open(_fold(("user", "why does the build fail?"), ("assistant", _HOW_TO_RUN * 2)))
