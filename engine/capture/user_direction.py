"""Which sentences of a user message set direction: orders and preferences that name a concrete thing or are the
user's own want, not questions, examinations, records of done work or asking the agent to get on with its plan
(docs/capture.md, Decisions)."""

from __future__ import annotations

import re
from typing import Final

from engine.capture.acts import (
    UserTurn,
    after_place,
    picks_option,
)
from engine.capture.direction_forms import orders_git_work, says_what_instead
from engine.capture.envelopes import AIDER_FILE_COMMAND
from engine.capture.language.japanese import JA_EXAMINES, JA_OBJECT, JA_REQUEST, JA_WANT, KANA
from engine.capture.language.korean import korean_direction, korean_examines
from engine.capture.ledger_items import Item
from engine.capture.ledger_items import directive as _directive
from engine.capture.pasted import pasted_lines
from engine.capture.whole_text import clip_words

ARTIFACT: Final = re.compile(
    r"[\w-]+\.[a-z]{1,5}\b|[\w-]+/[\w./-]+|`[^`]+`|\"[^\"]{2,60}\"|“[^”]{2,60}”|'[^']{3,60}'|\b[a-z]+[A-Z]\w+"
    r"|\b[A-Z][a-z]+[A-Z]\w+|\b\w+_\w+|\b(?i:readme)\b|\d+\s*(?:%|seconds?|px|ms)|\b\d{2,}\b|「[^」]+」|[\u3400-\u9fff]{4,}"
)
"""A concrete thing an instruction names: a file, path, code, quoted text, identifier or amount (in any language:
Chinese instructions name components and files in Latin script too)."""


ABOUT: Final = " (about: "


NO_DIRECTION: Final = re.compile(
    r"^(?:give me|show me|tell me|explain|help me understand|read|look at|check|try|run|print|trace|find out)\b"
    # Thinking aloud together sets no direction yet: "let's start thinking about …", "help me learn and think …".
    r"|^(?:let'?s |let us |help me |we should )?(?:start |begin )?(?:think|thinking|learn|brainstorm|explore"
    r"|discuss|consider)\b",
    re.I,
)
_GOES_ON: Final = re.compile(
    r"\b(?:and|then),? (?:then )?(?:(?:start|begin)(?! (?:think|brainstorm|explor|discuss|learn))|fix|implement"
    r"|change|update|apply|make|add|remove|refactor|create|write|build)\b", re.I)
"""A request to read or look that goes on to order the work ("Read BUILD_PLAN.md and start Phase 1 — scaffold the
Next.js app.", eagerminds d97; "Look at @apps/ and see how we do the sync (push) UI and make a similar pull UI.",
tnyOffice d02): the order after it sets direction; "… then start thinking of a plan" (tnyOffice d01) is still
thinking aloud (docs/capture.md, round 23)."""
_EXAMINES: Final = re.compile(
    r"^(?:review|investigate|inspect|audit|diagnose|analy[sz]e|look (?:into|over)|go over|re-?read|summari[sz]e"
    r"|clarify (?:what|how|why|whether|if|where|who|which))\b"
    r"(?!.*\b(?:and|then) (?:then )?(?:fix|implement|change|update|apply|make|add|remove|refactor)\b)",
    re.I,
)
"""Asking for an examination ("Review ratelimit.py for races") sets no direction until its findings are acted on;
it is still work asked for (an open request)."""
_RECORDS: Final = re.compile(
    # Making a new document ("create a readme") is work of its own, not a record of work done.
    # Expanding a document adds to it ("i want to expand philosophy.md", duet d77): new content, not a record.
    r"^(?!(?:create|add|make|write) an?\b)(?!(?:\w+ ){0,5}?(?:expand|extend)\b)(?:\w+ ){0,5}?"
    r"(?:readme|docs?|documentation|comments?|[\w@/.-]+\.md)\b"
    # "how it works" points back at done work; "how to use it on win mac and linux" (expense-tracker d53) names new
    # content. A file name's dot is no sentence end ("write docs at the start of #file:update-paths.js to explain …").
    r"(?:\W*$|(?:[^.]|\.(?=\w)){0,80}?(?:\bto (?:reflect|explain|make clear|clarify|describe|document|match)"
    r"|\bbased on|\bwhat we(?:'ve| have)|\bhow (?:it|this)\b))",
    re.I,
)
"""Writing up what was done ("update @README.md to reflect this", "update @apps/api/README.md to clarify this",
"write docs … to explain how it works", a bare "update @README.md") records work; it sets no direction of its own
(docs/capture.md, Decisions). An update that says what the document is to hold ("update the readme with just the one
setup and usage path via poetry") does."""


_GO_AHEAD: Final = re.compile(
    r"^(?:let'?s |please |can you |could you )?(?:begin|start|get started|go ahead|proceed|continue)\b"
    r"(?: (?:on|with|to))?"
    r"(?: (?:implementing|implement|coding|building|the|this|that|it|plan|implementation|in|the api|changes?))*\W*$"
    r"|^帮我(?:开始)?(?:完成|修改|实现|改)(?:我的)?(?:需求|吧|一下)?\W*$",
    re.I,
)
"""Asking the agent to get on with the work it described ("begin implementing this plan", "let's get started on this
implementation in the API", 帮我完成我的需求, 帮我开始修改吧) names no direction of its own: the work is the agent's
plan."""


REFERS_BACK: Final = re.compile(r"\b(?:it|that|this|them|those|these)\b", re.I)
"""An instruction whose object is in the turn before ("put it back and make it optional")."""
_WANTS: Final = re.compile(
    r"^(?:i|we)(?: (?:really )?(?:want|need|would like)|['’]d like) (?:you )?to "
    r"(?!know|understand|see|learn|think|ask)\w+",
    re.I,
)
"""An order said as the user's own want ("I want to use gemini 2.5 pro", "I want to add an api to communicate with a
dynamodb"): it says what is to be done, though it may name no file or code (docs/capture.md, round 10)."""


def _japanese_direction(sentence: str) -> bool:
    """A Japanese order that names its object ("specsも更新しておいて", "シナリオテストにしておいて") or is the user's
    own want ("tasksはコミットするようにしたいかな"): direction, as "I want to …" is (language/japanese.py)."""
    return bool(KANA.search(sentence)) and bool(
        JA_WANT.search(sentence) or (JA_REQUEST.search(sentence) and JA_OBJECT.search(sentence)))


def _order_of(sentence: str) -> str:
    """The order a sentence gives, without lead words or a place named first ("in this app, look at …")."""
    lead = _ASKED_TO.sub("", LEAD_WORDS.sub("", sentence))
    return after_place(lead) or lead


_ASKED_TO: Final = re.compile(r"^(?:can|could|would|will) (?:you|we) (?:please |kindly |just )?", re.I)
"""An order put as a question ("Can you check if we can merge this PR …") gives the order after it: asking to check
is asking for an examination, as "check …" is (docs/capture.md, round 15)."""


def _records(order: str, *, more: bool) -> bool:
    """Whether ``order`` writes up done work (:data:`_RECORDS`). A bare "update the README.md." followed by orders
    that say what it is to hold ("describe the current project structure and functionality.", leeson d62) is new
    content, as "update the readme with just the one setup …" is (docs/capture.md, round 18)."""
    plain = order.replace("@", "")
    found = _RECORDS.match(plain)
    return found is not None and not (more and found.end() == len(plain))


def direction(turn: UserTurn, items: list[Item] | None = None) -> str:
    """The sentences of a message that set direction: instructions and preferences that name a concrete thing
    (a file, identifier, quoted text, amount) or are the user's own want ("I want to use …") -- not questions,
    requests to explain or show, or pastes. One that names its object only by a pronoun carries what the user asked
    just before (the thing "it" is)."""
    orders = [s.text for s in turn.sentences if (s.instruction or s.preference) and not s.question
              and not (NO_DIRECTION.match(lead := _order_of(s.text)) and not _GOES_ON.search(lead))
              and not _EXAMINES.match(lead)
              and not (KANA.search(s.text) and JA_EXAMINES.search(s.text)) and not korean_examines(s.text)]
    kept = [text for n, text in enumerate(orders) if not _records(_order_of(text), more=n + 1 < len(orders))]
    joined = " ".join(kept)
    if _GO_AHEAD.match(LEAD_WORDS.sub("", joined).strip()):
        return ""  # "begin implementing this plan", 帮我开始修改吧: the work asked for is the agent's, not a direction
    # A yes to the agent's offer ("yes, do these fixes") refers to the offer, which the approval confirms already.
    if joined and not ARTIFACT.search(joined) and items and REFERS_BACK.search(joined) and len(joined.split()) <= 15 \
            and not turn.has("approves"):
        # Aider's `/read file` before "fix that" is the file put in play, not the request "that" is about.
        before = next((i for i in reversed(items) if i.kind == "open"
                       and i.source in ("request", "question", "stopped") and not AIDER_FILE_COMMAND.match(i.text)),
                      None)
        if before is not None:
            return _directive(f"{joined} (re: {clip_words(before.text.split(ABOUT)[0], 160)})")
    if not joined:
        return ""
    if not (ARTIFACT.search(joined) or picks_option(joined)) and not any(
            _WANTS.match(_order_of(text)) or _japanese_direction(text) or korean_direction(text)
            or _git_work(text, turn) for text in kept):
        return ""
    if len(kept) == 1 and len(joined.split()) <= _ANNOUNCES_WORDS and not pasted_lines(turn.text):
        # One short order the message goes on to spell out in statements ("ok, change the logic of mermaid-to-png.js
        # to the following;" then its numbered list, odyash d09; "I want to create a new Input Mask/Form. This one is
        # supposed to be seperated into …", KLIMA d51): the statements say what is decided (docs/capture.md, round
        # 32). A log pasted under the order is output, not what it says (tnyOffice d02).
        said = [s.text for s in turn.sentences if not s.question]
        if kept[0] in said and said.index(kept[0]) + 1 < len(said):
            return _directive(" ".join(said[said.index(kept[0]):]))
    return _directive(joined)


_ANNOUNCES_WORDS: Final = 10
"""An order this short says what it is about, not what is to be done, when statements follow it."""


def _git_work(sentence: str, turn: UserTurn) -> bool:
    rule = any(s.preference for s in turn.sentences if s.text == sentence)
    return orders_git_work(_order_of(sentence), sentence, is_rule=rule)


def corrected_to(turn: UserTurn) -> bool:
    statements = [s.text for s in turn.sentences if not s.question and not s.text.rstrip().endswith(("?", "？"))]
    return says_what_instead(statements, lambda text: bool(ARTIFACT.search(text)))


LEAD_WORDS: Final = re.compile(r"^(?:(?:ok(?:ay)?|so|now|also|and|then|great|but|please|kindly|just|\d+ questions?)"
                                r"\b[\s,.!:;]*)+", re.I)
