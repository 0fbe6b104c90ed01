"""Instructions in a language with no table, read from the shape of the conversation (docs/capture.md, round 14).

`acts.py` reads a sentence's form from English, Chinese and Japanese words. A user who writes Turkish, French,
Vietnamese or Korean gives none of those words, so every message of theirs reads as a report and no decision is
captured. What does not depend on the language is what happens around the message: the user writes a message of
their own (not pasted output, not a question by its mark), and the agent then acts on it -- it calls a tool or writes
an edit -- in a reply that takes up the message's own words (the same file names, identifiers and nouns, in the same
language). Such a message is an instruction; the sentences whose words the reply takes up are its directive.

The reading is pending while the agent answers: :func:`pending` keeps the message's sentences when the user sends
it, :func:`acted` records the agent's tool calls, and :func:`taken_up` decides, before the next user message or at
the end, from everything the agent said since.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Final

from engine.capture.acts import sentences
from engine.capture.pasted import pasted_lines

__all__ = ["Pending", "acted", "no_table", "pending", "pending_from", "taken_up"]

_WORD: Final = re.compile(r"[^\W\d_]+", re.UNICODE)
_TERM: Final = re.compile(r"[^\W_][\w./-]*[^\W_]|[^\W_]", re.UNICODE)
_TABLED_SCRIPT: Final = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
"""Chinese characters and kana: acts.py and language/japanese.py have tables for these."""
_ENGLISH: Final = frozenset((
    "the", "and", "to", "of", "is", "are", "be", "it", "this", "that", "you", "your", "we", "my", "for", "with",
    "from", "not", "can", "should", "would", "will", "please", "if", "but", "what", "how", "why", "there", "have",
    "has", "just", "now", "all", "also", "then", "want", "need", "don't", "it's", "let's", "i'm",
))
"""Words that mark English. Short words other languages write too ("a", "on", "do", "i", "me", "so", "in": Czech,
French, Spanish, Turkish) are left out."""
_ENGLISH_SHARE: Final = 0.08
"""Below this share of English marker words, a message is in a language without a table. On FIT, Turkish messages stay
under 0.013 and the French ones the rule reads under 0.06; no English message that has a letter English lacks is
under 0.2 (docs/capture.md, round 14)."""
_MIN_WORDS: Final = 6
"""A message whose own prose is shorter than this ("Oui !", "voila", "hataları düzelt", "error on terraform plan")
is an answer, a bare "go on" or the caption of a paste, not a direction."""
_PROSE_LETTERS: Final = 0.8
"""Share of letters among a sentence's non-space characters below which it is output, code or a list of paths."""
_EDIT: Final = re.compile(r"^[<>=]{7} ?(?:SEARCH|REPLACE)?\s*$|^\*\*\* (?:Begin Patch|Update File)|^```diff\b", re.M)
"""An edit written out in the agent's reply (Aider's SEARCH/REPLACE blocks, a patch): the agent acted."""
_OUTPUT: Final = re.compile(r"^(?:Traceback \(|[\w.]*(?:Error|Exception|Warning)\b)|\b[\w.]+(?:Error|Exception):")
"""A program's line left among the user's own ("Traceback (most recent call last):" ends in a colon, as a user's
"here is the log:" does, so pasted.py keeps it as the user's): the program speaks, not the user."""
_SHARED_TERMS: Final = 2
"""How many of the message's own terms the agent's reply must repeat to be taking it up."""
_MIN_TERM: Final = 4


@dataclass(frozen=True, slots=True)
class Pending:
    """A message in a language without a table, waiting for the agent's answer."""

    sentences: tuple[str, ...]
    """The message's own sentences (not pasted, none a question), in order."""
    when: str | None
    entry_id: str | None
    acted: bool = False
    """The agent called a tool since the message."""

    def to_dict(self) -> dict[str, object]:
        """The pending message as saved with the capture state (:func:`pending_from` reads it back)."""
        return {"sentences": list(self.sentences), "when": self.when, "entry_id": self.entry_id, "acted": self.acted}


def pending_from(data: object) -> Pending | None:
    """A pending message saved by :meth:`Pending.to_dict`, or ``None`` for anything else."""
    if not isinstance(data, dict) or not isinstance(data.get("sentences"), list):
        return None
    said = tuple(str(s) for s in data["sentences"] if isinstance(s, str))
    when, entry_id = data.get("when"), data.get("entry_id")
    return Pending(said, when if isinstance(when, str) else None, entry_id if isinstance(entry_id, str) else None,
                   data.get("acted") is True) if said else None


def _prose(sentence: str) -> bool:
    """Whether ``sentence`` reads as a person's words: mostly letters, not a log line, a path list or code."""
    if _OUTPUT.search(sentence) or len(_WORD.findall(sentence)) < 3:
        return False
    chars = sentence.replace(" ", "")
    return sum(c.isalpha() for c in chars) / len(chars) >= _PROSE_LETTERS


def no_table(prose: list[str]) -> bool:
    """Whether the sentences ``prose`` are in a language that acts.py has no table for: no Chinese characters or
    kana, and almost none of the words that mark English."""
    text = " ".join(prose)
    if _TABLED_SCRIPT.search(text):
        return False
    words = [w.lower() for w in re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)?", text)]
    # A log or an error message in English has no function words either; a language without a table has letters
    # English does not (ş, é, ư, Hangul, Cyrillic) -- or it is one the rule does not claim to read.
    return bool(words) and sum(w in _ENGLISH for w in words) / len(words) < _ENGLISH_SHARE and any(
        not w.isascii() for w in words)


def pending(words: str, when: str | None, entry_id: str | None) -> Pending | None:
    """The user message ``words`` as a candidate instruction, or ``None``: its own prose (pasted lines and log lines
    aside) is in a language with a table, asks (a sentence ends in a question mark) or is too short to direct
    anything."""
    if words.isascii():
        return None  # no letter English lacks anywhere in it (no_table): spares reading an English message twice
    pasted = pasted_lines(words)
    prose = [s for s in sentences("\n".join("" if n in pasted else line for n, line in enumerate(words.splitlines())))
             if _prose(s)]
    if not prose or any(s.rstrip().endswith(("?", "？")) for s in prose) or not no_table(prose):
        return None
    if sum(len(_WORD.findall(s)) for s in prose) < _MIN_WORDS:
        return None
    return Pending(tuple(prose), when, entry_id)


def acted(shape: Pending | None, called: bool) -> Pending | None:
    """``shape`` after an agent message that ``called`` a tool or not."""
    return replace(shape, acted=True) if shape is not None and called and not shape.acted else shape


def _terms(text: str) -> set[str]:
    return {t.lower() for t in _TERM.findall(text) if len(t) >= _MIN_TERM and t.lower() not in _ENGLISH}


def taken_up(shape: Pending, agent_text: str, limit: int) -> str:
    """The directive of ``shape`` when the agent acted on it in ``agent_text`` (all it said since the message), else
    an empty string: the message's prose when it fits in ``limit`` characters, else the sentences whose terms the
    reply repeats most, as many as fit, in the user's order."""
    if not (shape.acted or _EDIT.search(agent_text)):
        return ""
    said = _terms(agent_text)
    shared = [_terms(s) & said for s in shape.sentences]
    if len(set().union(*shared)) < _SHARED_TERMS:
        return ""
    whole = " ".join(" ".join(shape.sentences).split())
    if len(whole) <= limit:
        return whole  # a message that fits is the user's direction whole, as the tables keep all its orders
    # A long specification puts what the agent took up (the colours, the file names) anywhere in it: the sentences
    # sharing most terms with the reply are the directive, not its first lines.
    ranked = sorted((n for n, terms in enumerate(shared) if terms), key=lambda n: -len(shared[n]))
    kept: list[int] = []
    room = limit
    for n in ranked:
        size = len(" ".join(shape.sentences[n].split())) + 1
        if size <= room or not kept:
            kept.append(n)
            room -= size
    return " ".join(" ".join(shape.sentences[n] for n in sorted(kept)).split())
