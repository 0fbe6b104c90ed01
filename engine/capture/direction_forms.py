"""Orders that set direction though they name no file or code (docs/capture.md, The ledger, round 21).

An instruction sets direction when it names a concrete thing or is the user's own want. Two more forms do, read
from FIT sessions of two or more repositories: git work ordered by its verb ("Commit and push all changes",
"Create a PR", "Please merge."), whose object is the repository's state, and a correction that says what the user
wants instead ("orient the GeneralInput.js on Goals.js not data.js", "i meant extracting it into a local package,
not publishing it as framework"), which is a decision as well as the constraint a correction is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Final

__all__ = ["orders_git_work", "says_what_instead"]

_GIT_WORK: Final = re.compile(
    r"^(?:do (?:a |the )?)?(?:commit|push|merge|squash|rebase|release|tag|create (?:a |the )?(?:pr|pull request)\b"
    r"|open (?:a |the )?(?:pr|pull request)\b|resolve (?:the |all )?(?:merge )?conflicts)",
    re.I,
)
_PUSH_ONLY: Final = re.compile(
    r"^(?:do (?:a |the )?)?push\b(?!.*\b(?:commit|merge|squash|rebase|release|tag|pr|pull request)\b)", re.I)
"""A push and nothing else ("push", repiq d69; "and then push the update", chkit d82) publishes work already
committed: it decides nothing new, and no FIT label holds one (docs/capture.md, round 23)."""
_INSTEAD: Final = re.compile(r"\b(?:not|instead|i meant|shouldn'?t|should not)\b", re.I)
_MEANT: Final = re.compile(r"\bi meant\b", re.I)


def orders_git_work(order: str, sentence: str, *, is_rule: bool) -> bool:
    """Whether ``sentence`` (whose order, without lead words, is ``order``) orders git work for this turn: not a
    standing rule about it ("commit always before updating" is a constraint), not a push alone, and said in English
    ("push khác gì pushreplacement" asks, in Vietnamese, how two calls differ)."""
    return bool(_GIT_WORK.match(order)) and not _PUSH_ONLY.match(order) and sentence.isascii() and not is_rule


def says_what_instead(statements: Sequence[str], names_thing: Callable[[str], bool]) -> bool:
    """Whether a correction's ``statements`` (its sentences that are not questions) say what the user wants instead:
    one contrasts ("not", "instead", "shouldn't", "i meant") and they name a thing or say what was meant. A
    correction that only judges or asks why ("These are an insane amount of questions") says nothing of the kind."""
    joined = " ".join(statements)
    return any(_INSTEAD.search(text) for text in statements) and (names_thing(joined) or bool(_MEANT.search(joined)))
