"""What the agent proposes and what a yes agrees to: the closing question or offer an agent turn ends on, and that
proposal said as a statement (docs/capture.md, Decisions)."""

from __future__ import annotations

import re
from typing import Final

from engine.capture.act_forms import FAILS
from engine.capture.acts import (
    sentences,
)
from engine.capture.ledger_items import ITEM_CHARS
from engine.capture.user_direction import ARTIFACT as _ARTIFACT
from engine.capture.user_direction import REFERS_BACK as _REFERS_BACK
from engine.capture.whole_text import clip_words

_OFFER: Final = re.compile(
    r"\b(?:would you like|do you want|shall i|should i|want me to|let me know if you(?:'d| would)? (?:like|want)"
    r"|if you(?:'d| would)? like,? i can|i can also|are you ok with|does this (?:plan )?(?:look|sound))\b"
    r"|要不要|是否需要|需要我|你希望|可以吗|是否继续|要我|如果你(?:愿意|需要|想)",
    re.I,
)


_HAS_WORD: Final = re.compile(r"[^\W_]")


def agent_offers(text: str) -> str | None:
    """The proposal an agent turn ends on -- its closing question or offer with the sentence before it -- or
    ``None`` when it ends on a statement."""
    parts = sentences(text)
    if not parts:
        return None
    tail = parts[-3:]
    for index in range(len(tail) - 1, -1, -1):
        sentence = tail[index]
        if sentence.endswith(("?", "？")) or _OFFER.search(sentence):
            # A line with no word ("`─────`", the close of Claude Code's insight box) is a frame, not the sentence
            # that names the offer's object (docs/capture.md, round 23).
            before = (tail[index - 1] if index > 0 and not tail[index - 1].endswith(":")
                      and _HAS_WORD.search(tail[index - 1]) else "")
            return clip_words(f"{before} {sentence}".strip(), ITEM_CHARS)
    return None


_ASK_LABEL: Final = re.compile(r"^(?:\*\*)?(?:question|q|ask|proposal)\s*[:：]\s*(?:\*\*)?\s*", re.I)
_ASKS_LEAVE: Final = re.compile(
    r"^(?:(?:so|then|and),?\s+)?(?:do you want(?: me)?(?: to)?|would you like(?: me)?(?: to)?|shall i|should i"
    r"|want me to|are you ok with|is it ok (?:if i|to))\s+", re.I)
_TAG_QUESTION_WORDS: Final = 4
"""A closing question this short ("OK?", "Go ahead?", "Sound good?") only asks for a yes to the sentence before."""
_OFFERS_ACTION: Final = re.compile(r"^(?:want(?: me)? to|ready to|shall i|should i)\s+(?=\w)", re.I)
_GO_ON: Final = re.compile(r"^(?:do|proceed|go|continue|start|begin)\b", re.I)
"""A short offer of an action ("Want to file it?", "Ready to deploy?", "Want me to commit this?") is agreed to as
that action after the sentence that names its object; only going on ("Shall I proceed?", "… do that?") agrees to
the sentence before alone (docs/capture.md, round 18)."""


def agreed(proposal: str) -> str:
    """What a yes to ``proposal`` agrees to, said as a statement: the agent's question is not the decision
    (docs/capture.md, Decisions). "Question: do you want a Prometheus alert …?" agrees to "a Prometheus alert …";
    "I'll fix both. OK?" to "I'll fix both."; a question whose object is only a pronoun keeps the sentence
    before it, which names the object."""
    parts = sentences(proposal)
    if not parts:
        return proposal
    *before, asked = parts
    asked = _ASK_LABEL.sub("", asked)
    action = _OFFERS_ACTION.match(asked)
    offered = asked[action.end():].rstrip("?？ ") if action else ""
    if offered and not _GO_ON.match(offered) and len(asked.split()) <= _TAG_QUESTION_WORDS and before:
        # "That's a Claude Code bug, not something we can fix in Duet. Want to file it?": the yes files it; the
        # diagnosis before it is no decision of its own.
        return clip_words(f"{' '.join(before)} {offered[0].upper()}{offered[1:]}", ITEM_CHARS)
    if len(asked.split()) <= _TAG_QUESTION_WORDS and before:
        return clip_words(" ".join(before), ITEM_CHARS)
    stated = _ASKS_LEAVE.sub("", asked).rstrip("?？ ")
    if stated != asked.rstrip("?？ ") and stated:
        stated = stated[0].upper() + stated[1:]
        pronoun = bool(_REFERS_BACK.search(stated)) and not _ARTIFACT.search(stated)
        if before and pronoun and len(stated.split()) < _TAG_QUESTION_WORDS and _GO_ON.match(stated):
            return clip_words(" ".join(before), ITEM_CHARS)  # "… Would you like me to do that?"
        if before and (len(stated.split()) < 6 or pronoun):
            stated = f"{' '.join(before)} {stated}"
        return clip_words(stated, ITEM_CHARS)
    return clip_words(" ".join([*before, asked]), ITEM_CHARS)


_OPTION_LINE: Final = re.compile(
    r"^\s*(?:[-*+•]\s+|\d+[.)]\s+|\|\s*)?(?:\*\*(?:\((?P<letter>[a-z])\)\s*)?(?P<bold>[^*|\n]{1,40}?)\*\*"
    r"|\((?P<plain>[a-z])\))", re.I | re.M)
"""A line of the agent's that sets out one option: a list item or table row led by a bold name ("| **Matilda** |
Knowledgeable, Professional |") or by a lettered mark ("- **(b) Keep confirmation on** — …")."""
_CHOICE_WORDS: Final = 8
"""A reply this short that names an option is the choice, not a message of its own."""
_ASKS_CHOICE: Final = re.compile(r"\bwhich\b|\byour (?:call|choice|pick)\b|\b(?:pick|choose|prefer)\b", re.I)
"""The agent asks the user to choose ("which voice feels right as the default? … Your call.", "Pick one:"): a list of
what it did ("- **README.md** updated"), even one closed by "Want me to run the tests again?", offers no choice."""


def listed_option(reply: str, last: str) -> str | None:
    """The option line of the agent's last message ``last`` that the short ``reply`` picks by its name or letter
    ("Matilda" from a table of voices, langlearn-tts d96; "b option and ok then start next" from "(a) …" / "(b) …",
    eagerminds d97), or ``None``: the agent must have set out two options or more (docs/capture.md, round 27)."""
    words = reply.split()
    if not words or len(words) > _CHOICE_WORDS or reply.rstrip().endswith(("?", "？")):
        return None
    if not _ASKS_CHOICE.search(last) or FAILS.search(reply):
        return None  # "README.md is still wrong" names a listed file to report it, not to pick it
    options = [(m, last[m.start():].split("\n", 1)[0].strip()) for m in _OPTION_LINE.finditer(last)]
    if len(options) < 2:
        return None
    said = reply.lower()
    for found, line in options:
        letter = (found["letter"] or found["plain"] or "").lower()
        name = (found["bold"] or "").strip().lower()
        if letter and re.search(rf"(?<!\w)(?:option\s*\(?{letter}\)?|\(?{letter}\)?\s*option)(?!\w)", said):
            return clip_words(line, ITEM_CHARS)
        if not letter and len(name) >= 3 and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", said):
            return clip_words(line, ITEM_CHARS)
    return None


_NUMBERED_REF: Final = re.compile(
    r"\b(?:items?|options?|steps?|points?|fixes|changes)\s+#?(\d{1,2}(?:\s*(?:,\s*(?:and\s+)?|and\s+|&\s*)#?\d{1,2})*)"
    r"(?!\s*(?:%|px|ms|seconds?|minutes?|hours?|days?)\b)",
    re.I)
"""A reply or an offer that names what it is about by the numbers of the agent's list ("Want me to apply items 5, 6,
and 7 now?", d104; "can you fix option 1", safecast d63)."""
_NUMBERED_ROW: Final = re.compile(r"^\s*(?:\|\s*)?(?:\*\*)?(\d{1,2})(?:\*\*)?\s*(?:[.)]|\|)\s*(.+)$", re.M)
"""A numbered line of the agent's: a list item ("1. **Resolve merge conflicts** - …") or a table row whose first
cell is the number ("| 5 | After writing new tests, run the **full suite** … | … |")."""
_ROW_CHARS: Final = 110
_MARKUP: Final = re.compile(r"\*\*|__")


def numbered_rows(said: str, last: str) -> str:
    """The agent's numbered lines in ``last`` that ``said`` names by number, as " (5: …; 6: …)", or "" when it names
    none or the agent set out no such line: "apply items 5, 6, and 7" only says what it decides with the rows those
    numbers name (docs/capture.md, round 32). The last line of each number counts: the list the question follows."""
    found = _NUMBERED_REF.search(said)
    if found is None:
        return ""
    rows: dict[str, str] = {}
    for row in _NUMBERED_ROW.finditer(last):
        text = row[2]
        if row.group(0).lstrip().startswith("|"):
            text = text.split("|", 1)[0]  # a table row says what in the cell after its number
        rows[row[1]] = clip_words(_MARKUP.sub("", text).strip(), _ROW_CHARS)
    named = [f"{n}: {rows[n]}" for n in re.findall(r"\d{1,2}", found[1]) if rows.get(n)]
    return f" ({'; '.join(named)})" if named else ""
