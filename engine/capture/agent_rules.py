"""The user's standing rules as the agent states them back (docs/capture.md, "Capture figures, round 25").

An agent that takes a rule to heart says so: it quotes the rule it is holding to ("According to your instructions,
I should avoid using '&&' to chain commands."), records it for later turns ("Now let me record your instruction
about `cartrabbit.in` so I respect it going forward.") or writes it into its lessons file ("`tasks/lessons.md` に
ルールを追記済み: リリース CI がある場合はタグ push のみ、…"). That shape marks a rule that holds beyond this turn
even when the user's own words for it were not read as one. Doing what the user asked "as per your instructions"
is this turn's work, not a rule.
"""

from __future__ import annotations

import re
from typing import Final

from engine.capture.response_lines import clean, sentences

__all__ = ["same_rule", "stated_rules"]

_ACCORDING: Final = re.compile(r"\baccording to your (?:instructions?|rules?|preferences?)\b", re.I)
"""The agent quotes the user's instruction as what it goes by."""
_RECORDS: Final = re.compile(
    r"\b(?:note|record|remember|save|keep)\b[^.\n]{0,20}\byour (?:instructions?|rules?|preferences?)\b", re.I)
"""The agent keeps the user's instruction for later turns."""
_HOLDS: Final = re.compile(
    r"\b(?:should(?:n't| not)?|must|avoid|never|not|don'?t|always|going forward|from now on|in future)\b", re.I)
"""What the agent says of it is a rule of conduct, not the work of this turn."""
_LESSONS: Final = re.compile(r"(?:ルール|教訓)を(?:追記|記録|追加)(?:済み|しました|しておきます|します)")
"""A rule the agent has written, or writes now, into its lessons or rules file (Japanese); not an offer of where
the user could add one ("プロジェクト固有のルールを追加したい場合は、…")."""
_CODE: Final = re.compile(r"`([^`\n]+)`")


def stated_rules(text: str) -> list[str]:
    """The sentences (a lessons line whole) of an agent message that state a standing rule of the user's."""
    rules: list[str] = []
    if "your" not in text.lower() and "ルール" not in text and "教訓" not in text:
        return rules  # every form names the user's rule so: most agent turns are passed over at this cost
    for raw in text.splitlines():
        line = clean(raw)
        if not line:
            continue
        if _LESSONS.search(line):
            rules.append(line)
            continue
        for sentence in sentences(line):
            if (_ACCORDING.search(sentence) or _RECORDS.search(sentence)) and _HOLDS.search(sentence):
                rules.append(sentence.strip())
    return rules


def same_rule(a: str, b: str) -> bool:
    """Whether two statements of rules name the same code span (`cartrabbit.in` noted, then recorded): the agent
    restating one rule in other words."""
    return bool(set(_CODE.findall(a)) & set(_CODE.findall(b)))
