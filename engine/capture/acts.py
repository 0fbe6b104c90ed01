"""What a user message does in the conversation, from its shape (docs/capture.md, Conversation acts).

A message is split into sentences; each sentence is read for its form -- a question, an imperative or a
request ("update X", "I want you to …", "请把…改成…"), a standing preference or prohibition ("don't …", "only
…", "不要…"), a correction of the agent's last turn ("no no, you did the opposite"), a deferral ("nevermind,
not now", "先不"). The message's acts follow from its sentences and from where it stands: a short "yes" / "no"
right after the agent asked or offered something approves or rejects that proposal; a message that is mostly a
pasted log reports a problem. English and Chinese forms are listed (Japanese in language/japanese.py, Korean in
language/korean.py); in other languages a message is a question by its mark, and an instruction by what the agent
does next (shape_acts.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Final

from engine.capture.act_forms import (
    ACK,
    ALWAYS_DESCRIBES,
    APPROVAL,
    ASKS_WHY,
    BARE_NO,
    BRIEF,
    CLAUSE_LEAD,
    CODE_LINE,
    CONVENTION,
    CORRECTION,
    CORRECTS_THIS_TURN,
    DEFER,
    DID_STEP,
    DISAPPROVES,
    DISLIKES_SHOWN,
    FAILS,
    IMPERATIVE,
    JUDGES_LOOK,
    LEAD,
    MOVED,
    NOT_A_RULE,
    ONLY_PRONOUN,
    PICK,
    PREFERENCE,
    QUESTION_START,
    REJECTION,
    REQUEST,
    SCOPE_LIMIT,
    STANDING,
    STILL_NOT,
    WH_ASKS,
    WORKS,
    ZH_APPROVAL,
    ZH_BARE_YES,
    ZH_CORRECTION,
    ZH_DEFER,
    ZH_PREFERENCE,
    ZH_QUESTION,
    ZH_REJECTION,
    ZH_REQUEST,
    ZH_STANDING,
    picks_option,
)
from engine.capture.language.japanese import JA_PREFERENCE, JA_REQUEST, JA_WANT, KANA
from engine.capture.language.korean import (
    HANGUL,
    KO_ACK,
    KO_APPROVAL,
    KO_BARE_YES,
    KO_CORRECTION,
    KO_REJECTION,
    read_korean,
)
from engine.capture.pasted import pasted_lines

__all__ = ["SCOPE_LIMIT", "Act", "Sentence", "UserTurn", "after_place", "asks_whether_fixed", "copied_list_items",
           "corrects_this_turn", "picks_option", "read_user_turn", "says_failure", "sentences", "word_count"]

Act = str
"""One of ``instructs``, ``prefers``, ``corrects``, ``approves``, ``rejects``, ``defers``, ``asks``,
``reports`` (a pasted log or error, or a statement of how things stand that neither asks nor instructs),
``acknowledges`` (thanks, ok)."""

_SPLIT: Final = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？；;])|\n+")
_CJK: Final = re.compile(r"[\u3400-\u9fff]")
_WORD: Final = re.compile(r"[^\W\d_]+", re.UNICODE)



def says_failure(text: str) -> bool:
    """Whether ``text`` says that something still fails or the last attempt did not work."""
    return bool(FAILS.search(text))


def asks_whether_fixed(turn: UserTurn) -> bool:
    """Whether a question of ``turn`` reports that the last attempt still fails ("… still does not get the realtime
    data first?") without asking why or how: a failure report, however punctuated (docs/capture.md, Closing)."""
    return any(s.question and STILL_NOT.search(s.text) and not ASKS_WHY.search(s.text) for s in turn.sentences)


def corrects_this_turn(turn: UserTurn) -> bool:
    """Whether ``turn``'s correction is of this turn's work and sets no rule: it opens with "actually" or "i meant"
    (`CORRECTS_THIS_TURN`), or its only judgement is of one look (`JUDGES_LOOK`) (docs/capture.md, round 28)."""
    if not turn.sentences:
        return False
    first = LEAD.sub("", turn.sentences[0].text).strip()
    if CORRECTS_THIS_TURN.match(first):
        return True
    heads = turn.sentences[:2]
    return not CORRECTION.match(first) and any(JUDGES_LOOK.search(s.text) for s in heads) and not any(
        DISAPPROVES.search(JUDGES_LOOK.sub(" ", s.text)) for s in heads)


@dataclass(frozen=True, slots=True)
class Sentence:
    """One sentence of a user message and what its form says."""

    text: str
    question: bool
    instruction: bool
    preference: bool
    deferral: bool


@dataclass(frozen=True, slots=True)
class UserTurn:
    """A user message read as conversation acts."""

    text: str
    """The user's words (harness removed), whitespace kept."""
    acts: frozenset[Act]
    sentences: tuple[Sentence, ...]

    def has(self, act: Act) -> bool:
        """Whether the message does ``act``."""
        return act in self.acts


def _words(text: str) -> int:
    # Chinese and Japanese write no spaces: about two characters make a word.
    return len(_WORD.findall(text)) + (len(_CJK.findall(text)) + len(KANA.findall(text))) // 2


def word_count(text: str) -> int:
    """How many words ``text`` holds, Chinese and Japanese counted at about two characters a word."""
    return _words(text)


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` outside fenced code, whitespace collapsed, without list markers."""
    prose: list[str] = []
    fence = False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
            continue
        if not fence:
            prose.append(line)
    out: list[str] = []
    for part in _SPLIT.split("\n".join(prose)):
        part = re.sub(r"^\s*(?:[-*+•]|\d+[.)])\s+", "", part or "").strip()
        if part:
            out.append(" ".join(part.split()))
    return out


_LOG_LINE: Final = re.compile(r"^[A-Z]{3,7}\s+(?:https?://|/)")
"""A logged HTTP request ("GET https://… 401"), not the verb "get"."""


_ASKS_TO_DO: Final = re.compile(
    r"^(?:can|could|would|will) (?:you|we) (?!(?:explain|tell|show|help me understand|describe|see|think)\b)"
    r"|^(?:can|could) (?:the |this |that |these |those )?[\w.&@/ -]{1,60}? be (?:changed|made|moved|converted|replaced"
    r"|updated|rewritten|turned)\b|^is it possible to\b",
    re.I,
)
"""A request put as a question ("Can TermsScreen.tsx be changed so that it appears as a popup?", "could you move …
?"): it asks for work, not for an answer."""
_ORDER_ASKED: Final = re.compile(r"^(?:(?:maybe|perhaps) )?we (?:should|need)\b", re.I)
"""An order or proposal of the user's own that ends in a question mark ("Make these two button "List / Tree" more
visible, on the left side, …?", "we need @vitest.config.ts and it is functional and working right?", "Maybe we
should make the search area … 50km radius?"): the mark asks the agent to agree, not to answer (docs/capture.md,
round 27)."""
_ORDER_ASKED_WORDS: Final = 5
_DESIRED: Final = re.compile(
    r"^(?:[\"'“‘`]?[^\W\d_][\w'\".#@/`’”-]*\s+){1,8}?(?:should|must|needs? to|has to)\s+"
    r"(?!work\b|be (?:fine|ok|okay|enough|good)\b|fix\b|solve\b|help\b|do it\b|i\b|we\b)\w+",
    re.I,
)
"""A statement of how a thing is to be ("The 'my videos' section should dynamically display any videos from the
database", "the page should remain recognizable"): an instruction in the form of a description; not a hope that
something works ("this should fix it")."""


_PLACE: Final = re.compile(r"^(?:in|on|inside|within|under|based on|referring to|according to|following|given)\s+",
                           re.I)
"""Where an order applies, or what it follows ("Based on the ent.xml make some changes", "Referring to the update in
@CLAUDE.md , create tests …", round 18); not "for each value, …", which in a spec says how to compute, not where to
act."""
_PLACE_THING: Final = re.compile(r"[/.#`_]|:\d")


def after_place(core: str) -> str | None:
    """The order after a place named first ("in each engines/ module implement simple functions", "in
    #file:update-paths.js:22-23 , state that …", "in this app, look at …"), or ``None``: the place is a path or
    code, or a comma ends it, and an imperative follows."""
    lead = _PLACE.match(core)
    if not lead:
        return None
    words = core[lead.end():].split(" ")
    for n in range(1, min(len(words), 9)):
        place, rest = " ".join(words[:n]), " ".join(words[n:]).lstrip(", ")
        if (place.endswith(",") or _PLACE_THING.search(place) or rest != " ".join(words[n:])) and \
                IMPERATIVE.match(LEAD.sub("", rest)):
            return rest
    return None


def _read_sentence(text: str) -> Sentence:
    text = text.replace("’", "'")  # "I’d like" typed with a typographic apostrophe is "I'd like"
    core = LEAD.sub("", text).strip()
    cjk = bool(_CJK.search(core))
    ja = bool(KANA.search(core))  # Japanese marks an order at the sentence's end (language/japanese.py)
    question = core.endswith(("?", "？")) or (cjk and bool(ZH_QUESTION.search(core)))
    ko = read_korean(core) if HANGUL.search(core) else None  # Korean marks acts at the end too (language/korean.py)
    if ko is not None:
        question = ko.question  # "…해줄래?" asks for work
    if not question and not cjk and QUESTION_START.match(core) and _words(core) <= 25 and not IMPERATIVE.match(core):
        question = core.lower().startswith(("help me understand", "tell me", "explain")) or bool(WH_ASKS.match(core))
    instruction = not _LOG_LINE.match(core) and bool(
        IMPERATIVE.match(core) or REQUEST.search(text) or (cjk and ZH_REQUEST.search(core))
        or (not question and (_DESIRED.match(core) or CONVENTION.search(core) or DISLIKES_SHOWN.search(core)))
        or (not question and PICK.search(core) and _words(core) <= 12)
        or any(IMPERATIVE.match(LEAD.sub("", core[m.end():])) for m in CLAUSE_LEAD.finditer(core))
        or after_place(core) is not None
        or (ja and not question and bool(JA_REQUEST.search(core) or JA_WANT.search(core)))
        or (ko is not None and not question and ko.request))
    if question and not cjk and (_ASKS_TO_DO.match(core) or (
            _words(core) >= _ORDER_ASKED_WORDS and not QUESTION_START.match(core)
            and (IMPERATIVE.match(core) or _ORDER_ASKED.match(core)))):
        question, instruction = False, True
    deferral = bool(DEFER.search(core) or (cjk and ZH_DEFER.search(core)) or (ko is not None and ko.deferral))
    # A rule stands beyond this turn: "not now" is a deferral, and "we don't want that" names nothing.
    ruled = ALWAYS_DESCRIBES.sub(" ", core) if "always" in core.lower() else core
    # The Chinese table reads Chinese: in a Japanese sentence "不要" is "not needed" ("…一旦は不要でいいと
    # 思っています", "不要なブランチは…削除して"), not "don't", and "全部" is "all of it" in one order
    # (docs/capture.md, round 22).
    preference = bool(PREFERENCE.search(ruled) or CONVENTION.search(core)
                      or (cjk and not ja and ZH_PREFERENCE.search(core))
                      or (ja and JA_PREFERENCE.search(core)) or (ko is not None and ko.rule)) and not deferral and (
        _words(core) >= 4) and not NOT_A_RULE.search(core) and not (_words(core) <= 6 and ONLY_PRONOUN.search(core))
    if not core.endswith(("?", "？")) and (SCOPE_LIMIT.search(text) or BRIEF.search(core)):
        preference = True  # "tell me your thoughts without implementing any code changes" asks, and limits
    # An instruction that sets how a whole class of things is ("… camelCase in all .tsx files", 全部放在 @Physics 里)
    # or picks one thing over another ("use #!/bin/sh instead of powershell") stands beyond this turn.
    standing = STANDING.search(after_place(core) or core)  # "for each value, get …" is where it applies, not a rule
    if instruction and not question and not deferral and not preference and standing and not (
            ja and standing.group(0) in ZH_STANDING):
        preference = True
    if preference and MOVED.search(core):
        # "this file shouldn't be in apps/api, it should be in the root": one thing put right now, not a rule.
        preference, instruction = False, True
    return Sentence(text, question, instruction, preference, deferral)


def _pasted(text: str) -> bool:
    """Mostly a pasted log, error or code: most non-empty lines look like output, not prose."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) < 4:
        return False
    code, fence = 0, False
    for line in lines:
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
            code += 1
        elif fence or CODE_LINE.match(line) or _words(line) <= 2:
            code += 1
    return code / len(lines) >= 0.6


_ERROR_HEAD: Final = re.compile(
    r"^\s*(?:\w+[ \t]+){0,5}?(?:\w*error|exception|traceback|fatal|warning)\b[^:\n]{0,60}:[ \t]*\S", re.I)
"""A line that quotes an error ("error on user create account: Username cannot be …", "Error: The current project
could not be installed"): it and the lines right after it are the program's words, not the user's."""


def _quoted_output(text: str) -> str:
    """The quoted error blocks of ``text``, flattened: each from an error line to the next blank line."""
    blocks: list[str] = []
    inside = False
    for line in text.splitlines():
        if not line.strip():
            inside = False
        elif inside or _ERROR_HEAD.match(line):
            inside = True
            blocks.append(line)
    return " ".join(" ".join(blocks).split())


def _pasted_sentences(text: str) -> frozenset[str]:
    """The sentences of ``text`` that lie only in pasted lines (docs/capture.md, Pasted material)."""
    pasted = pasted_lines(text)
    if not pasted:
        return frozenset()
    lines = text.splitlines()
    own = "\n".join("" if i in pasted else line for i, line in enumerate(lines))
    theirs = "\n".join(line if i in pasted or line.lstrip().startswith(("```", "~~~")) else ""
                       for i, line in enumerate(lines))
    # Compared as `_read_sentence` keeps them: with typographic apostrophes read as straight ones.
    return frozenset(s.replace("’", "'") for s in set(sentences(theirs)) - set(sentences(own)))


_LIST_ITEM: Final = re.compile(r"^(?P<indent>[ \t]*)(?:[-*+•]|\d+[.)])\s+(?P<rest>\S.*)$")


def copied_list_items(text: str) -> frozenset[str]:
    """The sentences of list items indented with no list item at the margin above them in their block: a terminal
    indents what it prints, and a user's own nested list has its parent item (docs/capture.md, round 17)."""
    if "\n " not in text and "\n\t" not in text:
        return frozenset()
    copied: set[str] = set()
    top = False
    for line in text.splitlines():
        item = _LIST_ITEM.match(line)
        if not line.strip():
            top = False
        elif item and not item["indent"]:
            top = True
        elif item and len(item["indent"].expandtabs(4)) >= 2 and not top:
            copied.update(s.replace("’", "'") for s in sentences(item["rest"]))
    return frozenset(copied)


def read_user_turn(text: str, agent_offered: bool) -> UserTurn:
    """The acts of a user message ``text`` (harness already removed).

    Args:
        agent_offered: the agent's last turn ended by asking or offering something (a proposal to answer).
    """
    parts = [_read_sentence(s) for s in sentences(text)]
    output = _quoted_output(text) if ":" in text else ""
    if output:
        # A quoted error's "cannot be of email format" or "use --no-root" is the program speaking: no rule, no order.
        parts = [replace(p, instruction=False, preference=False) if p.text in output else p for p in parts]
    foreign = _pasted_sentences(text)
    if foreign:
        # A pasted page's "You must be signed in" or an article's "Install Cursor …" is not the user's rule or order.
        parts = [replace(p, instruction=False, preference=False, question=False) if p.text in foreign else p
                 for p in parts]
    acts: set[Act] = set()
    flat = " ".join(text.split())
    first = LEAD.sub("", parts[0].text).strip() if parts else ""
    short = _words(flat) <= 12
    if _pasted(text):
        acts.add("reports")
    if ACK.match(flat) or KO_ACK.match(flat):
        acts.add("acknowledges")
    if agent_offered and (REJECTION.match(flat) or ZH_REJECTION.match(flat) or KO_REJECTION.match(flat)):
        acts.add("rejects")
    elif agent_offered and short and parts and (APPROVAL.match(parts[0].text) or ZH_APPROVAL.match(parts[0].text)
                                                or KO_APPROVAL.match(parts[0].text)):
        acts.add("approves")  # a long message that starts "great, …" goes on to say something of its own
    # A judgement corrects as an opening "no" does; it may follow the question it answers ("But why do I have to
    # provide api_key there? It's bad design."), so the first two sentences are read.
    if parts and (CORRECTION.match(first) or ZH_CORRECTION.match(first) or KO_CORRECTION.match(first)
                  or any(DISAPPROVES.search(p.text) for p in parts[:2])) and "rejects" not in acts:
        acts.add("corrects")
    if "corrects" in acts and BARE_NO.match(first) and FAILS.search(first) and not any(
            p.instruction or p.preference for p in parts):
        # "No the video doesn't load in the modal. Console error: …", "Nope, still not adjusting to dark mode": the
        # last attempt failed; the user sets no direction and no rule (docs/capture.md, Conversation acts).
        acts.discard("corrects")
        acts.add("reports")
    for part in parts:
        if part.deferral:
            acts.add("defers")
        if part.question:
            acts.add("asks")
        if part.instruction and not part.question:
            acts.add("instructs")
        if part.preference and not part.question:
            acts.add("prefers")
    if short and not agent_offered and parts and len(parts) == 1 and (
            APPROVAL.match(parts[0].text) or ACK.match(parts[0].text) or ZH_BARE_YES.match(parts[0].text)
            or KO_BARE_YES.match(parts[0].text)):
        acts = {"acknowledges"}  # "ok go ahead", 确认 with nothing offered asks for nothing new
    if "approves" in acts and _words(flat) <= 4 and not acts & {"asks", "prefers", "defers"}:
        acts = {"approves"}  # "ok go ahead", "yes do it": the yes itself, not a new request to "go"
    if not acts and parts:
        # Neither asks, instructs nor answers: the user tells the agent how things stand. "Everything works" confirms;
        # anything else ("there is now an unclosable modal", a pasted result) is a report the agent should act on.
        confirms = WORKS.search(flat) and not FAILS.search(flat) and _words(flat) <= 30 and "\n" not in text.strip()
        # "I copied the assets directory": the user did the step the agent asked for; it asks for nothing new.
        did_step = DID_STEP.match(first) and not FAILS.search(flat) and _words(flat) <= 20
        acts.add("acknowledges" if confirms or did_step else "reports")
    return UserTurn(text, frozenset(acts), tuple(parts))
