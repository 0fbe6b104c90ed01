"""Answers the user gives through a tool, not a message (docs/capture.md, Harness text: answers in a tool result).

Claude Code asks the user with its ``AskUserQuestion`` tool: the user picks an option in the terminal and the choice
comes back as the tool's result, in the harness's own words -- ``User has answered your questions: "<question>"=
"<answer>", "<question>"="<answer>". You can now continue …``. That choice is the user's, made on the agent's
question: a confirmed decision, like a yes to a proposal, though no user message carries it. The result is matched by
the tool's name and this envelope's shape; a tool result in any other form gives nothing.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Final

from engine.capture.ledger_items import DIRECTIVE_CHARS, Item, Ledger, add_item
from engine.capture.whole_text import clip_words

__all__ = ["ASKING_TOOLS", "fold_answers", "tool_answers"]

ASKING_TOOLS: Final = frozenset({"AskUserQuestion"})
"""Tools whose successful result is the user's answer (Claude Code's multiple-choice question)."""

_ENVELOPE: Final = re.compile(r"^\s*(?:User has answered your questions?|Your questions? (?:has|have) been answered"
                              r"|The user answered):\s*")
"""The wordings Claude Code has used (the later two in eagerminds d97 and StarCar d102; docs/capture.md, round 29)."""
# One "question"="answer" pair; a question may hold escaped quotes, or bare ones around a phrase ('what "a stranger can
# deploy this" (Law 7) even means', d102); an answer ends at the quote before , or . or before the option's preview.
# With no option picked, the user's own notes are the answer ("=(no option selected) notes: yes this is exactly it …").
_PAIR: Final = re.compile(r'"((?:[^"\\]|\\.|"(?!=))+?)"=(?:"((?:[^"\\]|\\.)*?)"'
                          r'(?=\s*(?:,\s*"|\.\s|\.?$|selected preview:))'
                          r'|\(no option selected\) notes:\s*(.+?)'
                          r'(?=,\s*"[^"]{10,}"=|\.\s+(?:Read the answers|You can now continue)|\s*$))', re.S)
_RECOMMENDED: Final = re.compile(r"\s*\((?:Recommended|推奨|推荐)\)\s*$", re.I)
"""The agent's own mark on the option it suggested: the user's choice is the option, not the mark."""


def tool_answers(tool_name: str | None, text: str) -> list[tuple[str, str]]:
    """The ``(question, answer)`` pairs the user chose in an asking tool's result, or ``[]`` when ``text`` is not
    such a result (another tool, an error, a declined question)."""
    if tool_name not in ASKING_TOOLS:
        return []
    envelope = _ENVELOPE.match(text)
    if not envelope:
        return []
    pairs = []
    for match in _PAIR.finditer(text, envelope.end()):
        question = " ".join(match.group(1).split())
        answer = _RECOMMENDED.sub("", " ".join((match.group(2) or match.group(3) or "").split()))
        if question and answer:
            pairs.append((question, answer))
    return pairs


def fold_answers(ledger: Ledger, pairs: list[tuple[str, str]], when: str | None, entry_id: str | None) -> Ledger:
    """``ledger`` after the user answered the agent's questions through a tool: one confirmed decision holding each
    question with the option chosen. It is no user turn: what the user asked before stays as it was."""
    if not pairs:
        return ledger
    said = "; ".join(f"{question} \u2014 {answer}" for question, answer in pairs)
    items = list(ledger.items)
    if not add_item(items, Item("decision", clip_words(said, DIRECTIVE_CHARS), "confirmed", when, entry_id)):
        return ledger
    return replace(ledger, items=tuple(items))
