"""Answers the user gives through a tool, not a message (docs/capture.md, Harness text: answers in a tool result).

Claude Code asks the user with its ``AskUserQuestion`` tool: the user picks an option in the terminal and the choice
comes back as the tool's result, in the harness's own words -- ``User has answered your questions: "<question>"=
"<answer>", "<question>"="<answer>". You can now continue …``. That choice is the user's, made on the agent's
question: a confirmed decision, like a yes to a proposal, though no user message carries it. The result is matched by
the tool's name and this envelope's shape; a tool result in any other form gives nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Final

from engine.capture.ledger_items import DIRECTIVE_CHARS, Item, Ledger, add_item
from engine.capture.whole_text import clip_words

__all__ = ["ASKING_TOOLS", "asked_questions", "fold_answers", "tool_answers"]

ASKING_TOOLS: Final = frozenset({"AskUserQuestion", "request_user_input"})
"""Tools whose successful result is the user's answer (Claude Code's multiple-choice question; Codex's
``request_user_input``, whose result is JSON keyed by the question ids of its call: session-bridge d98, round 29)."""

_ENVELOPE: Final = re.compile(r"^\s*(?:User has answered your questions?|Your questions? (?:has|have) been answered"
                              r"|The user answered):\s*")
"""The wordings Claude Code has used (the later two in eagerminds d97 and StarCar d102; docs/capture.md, round 29)."""
# One "question"="answer" pair; a question may hold escaped quotes, or bare ones around a phrase ('what "a stranger can
# deploy this" (Law 7) even means', d102); an answer ends at the quote before , or . or before the option's preview.
# With no option picked, the user's own notes are the answer ("=(no option selected) notes: yes this is exactly it …").
# A question's end is searched past bare quotes, so its length is bounded (1,000 characters, as the next question's in
# the notes' end): unbounded, 96 kB of quotes in a result took 40 s.
_PAIR: Final = re.compile(r'"((?:[^"\\]|\\.|"(?!=)){1,1000}?)"=(?:"((?:[^"\\]|\\.)*?)"'
                          r'(?=\s*(?:,\s*"|\.\s|\.?$|selected preview:))'
                          r'|\(no option selected\) notes:\s*(.+?)'
                          r'(?=,\s*"[^"]{10,1000}"=|\.\s+(?:Read the answers|You can now continue)|\s*$))', re.S)
_RECOMMENDED: Final = re.compile(r"\s*\((?:Recommended|推奨|推荐)\)\s*$", re.I)
"""The agent's own mark on the option it suggested: the user's choice is the option, not the mark."""


def tool_answers(tool_name: str | None, text: str, asked: Mapping[str, str] | None = None
                 ) -> list[tuple[str, str]]:
    """The ``(question, answer)`` pairs the user chose in an asking tool's result, or ``[]`` when ``text`` is not
    such a result (another tool, an error, a declined question). ``asked`` maps the question ids of the asking calls
    seen so far to their questions (:func:`asked_questions`)."""
    if tool_name not in ASKING_TOOLS:
        return []
    if text.lstrip().startswith("{"):
        return _codex_answers(text, asked or {})
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


def asked_questions(tool_name: str, arguments: Mapping[str, object]) -> dict[str, str]:
    """The questions a Codex ``request_user_input`` call asks, by id: its result names only the ids."""
    if tool_name != "request_user_input" or not isinstance(questions := arguments.get("questions"), list):
        return {}
    return {str(q["id"]): " ".join(str(q.get("question") or "").split()) for q in questions
            if isinstance(q, Mapping) and q.get("id")}


def _codex_answers(text: str, asked: Mapping[str, str]) -> list[tuple[str, str]]:
    """``{"answers": {"<id>": {"answers": ["Editor Panel"]}}}``: each id's question with the options picked."""
    try:
        answers = json.loads(text).get("answers")
    except (ValueError, AttributeError):
        return []
    if not isinstance(answers, Mapping):
        return []
    pairs = []
    for key, picked in answers.items():
        chosen = picked.get("answers") if isinstance(picked, Mapping) else None
        if isinstance(chosen, list) and (answer := ", ".join(
                _RECOMMENDED.sub("", " ".join(str(c).split())) for c in chosen if str(c).strip())):
            pairs.append((asked.get(str(key)) or str(key).replace("_", " "), answer))
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
