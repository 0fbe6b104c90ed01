"""The outcome joined to a decision: the agent's one-line account of carrying out the user's last instruction, put
after the decision with :data:`~engine.capture.ledger_items.OUTCOME_MARK` (docs/capture.md, The ledger)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Final

from engine.capture.acts import (
    sentences,
)
from engine.capture.ledger_items import OUTCOME_MARK, Item

DONE_REPORT: Final = re.compile(
    r"\b(?:i(?:'ve| have) (?:\w+ ){0,2}(?:updated|added|created|fixed|removed|implemented|changed|written|moved"
    r"|renamed|deleted|refactored|made|replaced|set up|completed|finished|documented)|(?:has|have) been (?:\w+ )?"
    r"(?:updated|added|created|fixed|removed|implemented|changed|written|moved|renamed|deleted|refactored)"
    r"|(?:is|are) now\b|now (?:passes|works|builds)|all set|done[.!]|build (?:now )?passes|tests? (?:now )?pass)"
    r"|已(?:经)?[^，。,\n]{0,8}?(?:完成|修改|更新|添加|删除|修复|实现|创建|改为|调整|合并|移动|对调|集成)|完成了|已全部"
    r"|完了(?:しました|です)?[。！]|(?:修正|変更|追加|削除|作成|更新|対応|実装|コミット|プッシュ)しました"
    # Korean, round 20: "성공적으로 푸시되었습니다" (moviehub d90), "완료했습니다" (patent_board d87).
    r"|(?:완료|수정|추가|삭제|변경|적용|반영|푸시|커밋|생성|해결|저장|구현|작성|배포)(?:했습니다|되었습니다|됐습니다)"
    # "Committed and pushed as `cd7e235`.", "Committed as `ab71aaf`.": the work is in the repository (round 15).
    r"|(?:^|\n|[.!]\s)[ \t*_#>✅-]*(?:committed|pushed|merged)\b(?! (?:yet|nothing))"
    # A report in headline form, a thing and what was done to it: "PR created and Copilot review requested: https://…"
    # (langlearn-tts d96), "Build green, env safe, verification scripts removed." (eagerminds d97; round 22); the
    # participle ends the clause, so Aider's "Just reply with fixed versions of the block" (LSFL d54) is none.
    r"|(?:^|\n|[.!,;]\s)[ \t*_#>✅-]*(?:(?!(?:was|were|is|are|be|been|being|not|never|get|gets|got|will|would"
    r"|should|to|can|could|must|have|has|had|if|when|what|which|that|it|this)\b)[\w`#./-]+ ){1,3}"
    r"(?:created|removed|opened|added|fixed|deleted|updated|published|released|deployed)(?=[.,:;!]|\s+and\b|\s*$)",
    re.I,
)


_OUTCOME_CHARS: Final = 200
"""An outcome sentence longer than this is left out rather than cut."""


def last_message(agent_text: str) -> str:
    """The last of the agent messages ``agent_text`` joins (``fold_agent`` puts three line breaks between them)."""
    return agent_text.strip().rsplit("\n\n\n", 1)[-1]


def _outcome(agent_text: str) -> str:
    """The agent's one-line account of what it did for the last instruction: the first sentence of its last
    turn that reports finished work, else that turn's first sentence."""
    last = last_message(agent_text)
    # Claude Code's insight box opens with a rule ("`★ Insight ─────`"): a frame, not an account of the work.
    found = [s for s in sentences(last) if len(s) > 12 and not s.endswith(("?", "？", ":", "："))
             and "─────" not in s]
    done = next((s for s in found if DONE_REPORT.search(s)), None)
    # Without a report, the turn's first statement (often "I'll change X to Y": it names what was done).
    chosen = done or (found[0] if found else "")
    return chosen if len(chosen) <= _OUTCOME_CHARS else ""


def first_statement(text: str) -> str:
    """The first sentence of an agent message that states something (not a question or a lead-in to a list)."""
    return next((s for s in sentences(text) if len(s) > 12 and not s.endswith(("?", "？", ":", "："))), "")


def with_outcome(items: list[Item], index: int | None, agent_text: str) -> None:
    """Complete the decision at ``index`` with what the agent reported doing for it."""
    if index is None or index >= len(items) or not agent_text.strip():
        return
    outcome = _outcome(agent_text)
    if outcome:
        items[index] = replace(items[index], text=f"{items[index].text}{OUTCOME_MARK}{outcome}")
