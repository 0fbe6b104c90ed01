"""The conversation ledger: decisions, constraints and open items from the shape of a conversation
(docs/capture.md).

One fold over the turns, user and agent alternately, no LLM:

* a user message is read for its acts (:mod:`engine.capture.acts`); its direction-setting instructions become
  **decisions**, its standing preferences and corrections **constraints**, and the message itself an **open
  request** with the time it was said;
* a short approval or rejection right after the agent asked or offered something confirms or declines that
  **proposal** (the agent's closing question or offer, with the sentence before it); a declined proposal and a
  deferral ("not now", "don't implement it yet") also stay **open**;
* the agent's reply answers the request; the next user message that is not a correction closes it (the user
  moved on: done). What is open at the end is the last request when the agent's last turn is not a finished
  report, the agent's own closing question or next steps, and deferred or declined work.

Items are never deleted when closed: they are marked ``done`` with the time, so every view can show them as
done rather than silently drop them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Final

from engine.capture.acts import (
    SCOPE_LIMIT,
    UserTurn,
    after_place,
    asks_whether_fixed,
    copied_list_items,
    picks_option,
    read_user_turn,
    says_failure,
    sentences,
    word_count,
)
from engine.capture.approval_order import order_beyond_yes
from engine.capture.decisions import extract_decision_from_response, extract_open_items, is_open_item_line
from engine.capture.dedup import is_semantic_duplicate
from engine.capture.direction_forms import orders_git_work, says_what_instead
from engine.capture.envelopes import AIDER_FILE_COMMAND, accepted_plan, plan_steps
from engine.capture.language.japanese import JA_EXAMINES, JA_OBJECT, JA_REQUEST, JA_WANT, KANA
from engine.capture.language.korean import korean_direction, korean_examines
from engine.capture.next_steps import asks_how_to_proceed, steps_in
from engine.capture.response_lines import clean
from engine.capture.shape_acts import Pending, pending, taken_up
from engine.capture.shape_acts import acted as shape_acted
from engine.capture.whole_text import clip_words, flatten, whole_item

__all__ = [
    "ITEM_CHARS",
    "OUTCOME_MARK",
    "Item",
    "Ledger",
    "add_item",
    "agent_offers",
    "carry_open",
    "fold_agent",
    "fold_user",
    "ledger_at_end",
    "ledger_of",
]

ITEM_CHARS: Final = 300
"""Cap on one item's text, cut between words (an instruction's leading sentences)."""
DIRECTIVE_CHARS: Final = 400
"""Cap on a decision's or constraint's text taken from a user message: the directive sentences of a long message
reach past the first 300 characters more often than a request's lead does (docs/capture.md, round 9)."""
MAX_ITEMS: Final = 200
SHORT_REPLY_CHARS: Final = 50
"""A reply shorter than this after a long agent turn can confirm what the turn stated (docs/checkpoints.md)."""
LONG_RESPONSE_CHARS: Final = 200
"""How long that agent turn must be to hold a proposal."""

_OFFER: Final = re.compile(
    r"\b(?:would you like|do you want|shall i|should i|want me to|let me know if you(?:'d| would)? (?:like|want)"
    r"|if you(?:'d| would)? like,? i can|i can also|are you ok with|does this (?:plan )?(?:look|sound))\b"
    r"|要不要|是否需要|需要我|你希望|可以吗|是否继续|要我|如果你(?:愿意|需要|想)",
    re.I,
)
_DONE_REPORT: Final = re.compile(
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
_IN_PROGRESS: Final = re.compile(r"(?:^|\n)\s*(?:let me|let's|i'll|i will|now i'll|next,? i'll|接下来|下一步|我来|我先)"
                                 r"[^\n]*[:：]?\s*$", re.I)
_GENERIC_OFFER: Final = re.compile(
    r"\b(?:any(?:thing)? (?:further|else|more|other)|further (?:\w+ )?(?:improvements|changes|refinements|tweaks"
    r"|adjustments|help)|more (?:improvements|changes|help)|need (?:anything|any) (?:else|more)|other questions)\b"
    r"|还有其他|其他需要|进一步",
    re.I,
)
"""A closing offer that proposes nothing in particular ("anything else?") leaves nothing open."""
_ARTIFACT: Final = re.compile(
    r"[\w-]+\.[a-z]{1,5}\b|[\w-]+/[\w./-]+|`[^`]+`|\"[^\"]{2,60}\"|“[^”]{2,60}”|'[^']{3,60}'|\b[a-z]+[A-Z]\w+"
    r"|\b[A-Z][a-z]+[A-Z]\w+|\b\w+_\w+|\b(?i:readme)\b|\d+\s*(?:%|seconds?|px|ms)|\b\d{2,}\b|「[^」]+」|[\u3400-\u9fff]{4,}"
)
"""A concrete thing an instruction names: a file, path, code, quoted text, identifier or amount (in any language:
Chinese instructions name components and files in Latin script too)."""
_LEAVES_TO_USER: Final = re.compile(r"\byou(?:'d| would)? (?:like|want|prefer)\b|\blet me know\b", re.I)
_ABOUT: Final = " (about: "
_BARE_WORD_CHARS: Final = 12
_GO_ON_WORDS: Final = 2
_RE_MARK: Final = " (re: "
_LETTERS: Final = re.compile(r"^[^\W\d_]+$")
"""Letters only: an Aider command ("/tokens", "/map-refresh", KLIMA d56), "---" or a number is no bare word."""
_HAN_OR_KANA: Final = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
"""Chinese and Japanese write a phrase without spaces: "出错了" (it failed, shadcn-ui-sidebar d05) and
"レビューチェック" (check the review, repiq d69) are a failure and an order in one "word"."""
_NO_DIRECTION: Final = re.compile(
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


@dataclass(frozen=True, slots=True)
class Item:
    """One captured item: a decision, a constraint or an open item, with the time it was said."""

    kind: str
    """``decision``, ``constraint`` or ``open``."""
    text: str
    source: str
    """How it arose: ``instruction``, ``confirmed``, ``declined``, ``deferred``, ``preference``, ``correction``,
    ``request``, ``question`` (the user's), ``agent_question`` / ``next_step`` (the agent's, open at the end),
    ``stopped`` (a request whose reply was stopped before it finished and the user moved on from)."""
    when: str | None
    entry_id: str | None
    done: bool = False
    done_when: str | None = None


@dataclass(frozen=True, slots=True)
class Ledger:
    """Every item so far and what the next turn is judged against."""

    items: tuple[Item, ...] = ()
    agent_text: str = ""
    """The agent's text since the last user message (its last words judge the next reply)."""
    agent_acted: bool = False
    """The agent called a tool or said something since the last user message."""
    awaiting: int | None = None
    """Index in ``items`` of the decision whose outcome the agent's next report gives (docs/capture.md)."""
    unconfirmed: int | None = None
    """Index in ``items`` of the problem the user last reported ("still 404", a pasted error): the agent saying it
    fixed it does not close it; only the user moving on does (docs/capture.md, Closing)."""
    interrupted: bool = False
    """The user stopped the agent just now (Claude Code's interrupt marker): their next words redirect it."""
    stopped: bool = False
    """The agent's reply was stopped ("Cancelled" in a SpecStory export) and nothing it said since: the request it
    was working on is not answered by the user moving on (docs/capture.md, Closing)."""
    shape: Pending | None = None
    """A message in a language without a table, read as an instruction once the agent acts on it (shape_acts)."""

    def of_kind(self, kind: str, *, include_done: bool = True) -> tuple[Item, ...]:
        """The items of ``kind``, in the order said (closed ones only with ``include_done``)."""
        return tuple(i for i in self.items if i.kind == kind and (include_done or not i.done))


def carry_open(ledger: Ledger) -> Ledger:
    """The ledger a new capture cycle starts from after a checkpoint: only the items still open, the agent's last
    words, and whether the user had just stopped it, so a later message still closes (or leaves open) what the
    checkpoint listed as open as it would have without the checkpoint. A message in a language without a table that
    the agent has not acted on yet stays pending: the checkpoint could not list it."""
    shape = ledger.shape if ledger.shape and not taken_up(ledger.shape, ledger.agent_text, DIRECTIVE_CHARS) else None
    return Ledger(tuple(i for i in ledger.items if i.kind == "open" and not i.done), ledger.agent_text,
                  ledger.agent_acted, None, interrupted=ledger.interrupted, stopped=ledger.stopped, shape=shape)


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


_OUTCOME_CHARS: Final = 200
"""An outcome sentence longer than this is left out rather than cut."""
OUTCOME_MARK: Final = " → "
"""Joins a decision to the agent's account of carrying it out."""


def _last_message(agent_text: str) -> str:
    """The last of the agent messages ``agent_text`` joins (``fold_agent`` puts three line breaks between them)."""
    return agent_text.strip().rsplit("\n\n\n", 1)[-1]


def _outcome(agent_text: str) -> str:
    """The agent's one-line account of what it did for the last instruction: the first sentence of its last
    turn that reports finished work, else that turn's first sentence."""
    last = _last_message(agent_text)
    # Claude Code's insight box opens with a rule ("`★ Insight ─────`"): a frame, not an account of the work.
    found = [s for s in sentences(last) if len(s) > 12 and not s.endswith(("?", "？", ":", "："))
             and "─────" not in s]
    done = next((s for s in found if _DONE_REPORT.search(s)), None)
    # Without a report, the turn's first statement (often "I'll change X to Y": it names what was done).
    chosen = done or (found[0] if found else "")
    return chosen if len(chosen) <= _OUTCOME_CHARS else ""


def _first_statement(text: str) -> str:
    """The first sentence of an agent message that states something (not a question or a lead-in to a list)."""
    return next((s for s in sentences(text) if len(s) > 12 and not s.endswith(("?", "？", ":", "："))), "")


def _with_outcome(items: list[Item], index: int | None, agent_text: str) -> None:
    """Complete the decision at ``index`` with what the agent reported doing for it."""
    if index is None or index >= len(items) or not agent_text.strip():
        return
    outcome = _outcome(agent_text)
    if outcome:
        items[index] = replace(items[index], text=f"{items[index].text}{OUTCOME_MARK}{outcome}")


def _lead(text: str) -> str:
    return clip_words(text, ITEM_CHARS)


def _directive(text: str) -> str:
    return clip_words(text, DIRECTIVE_CHARS)


_PROSE_LINE: Final = re.compile(r"^\s*(?![\[{}\]\"'`|<>#$➜]|\d+[:|]|at )\S.*[^\W\d_].*[^\W\d_]")


def _asked(words: str, turn: UserTurn) -> str:
    """What a message asks, as an item's text: a paste's own prose (the request around the log, which may come
    after it) when the message is mostly pasted, else the message's lead."""
    flat = flatten(words)
    if len(flat) <= ITEM_CHARS:
        return _lead(flat)
    prose = [line for line in _without_frames(words) if _PROSE_LINE.match(line) and len(line.split()) >= 5]
    return _lead(" ".join(" ".join(line.split()) for line in prose)) or _lead(flat)


_FRAME: Final = re.compile(r'^\s*(?:Traceback \(most recent call last\):|File "[^"]+", line \d+)')
"""A Python traceback's own lines: its heading and each frame ("File "<frozen runpy>", line 198, in …")."""


def _without_frames(words: str) -> list[str]:
    """The lines of ``words`` without a traceback's heading, frames and the source line under each frame: what is
    left of a pasted traceback is its error ("OSError: [Errno 5] Input/output error", tellmepedia d58), which names
    the problem as its frames do not (docs/capture.md, round 20)."""
    kept: list[str] = []
    after_frame = False
    for line in words.splitlines():
        frame = bool(_FRAME.match(line))
        if not frame and not (after_frame and line.startswith((" ", "\t")) and line.strip()):
            kept.append(line)
        after_frame = frame and line.lstrip().startswith("File")
    return kept


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
_SESSION_COMMAND: Final = re.compile(r"^(?:/(?:exit|quit|clear|reset)|exit|quit)$",
                                     re.I)
"""A bare command to the agent's program (Aider's ``/exit``, ``/clear``, ``/tokens``; "exit" typed at its prompt)."""
_REFERS_BACK: Final = re.compile(r"\b(?:it|that|this|them|those|these)\b", re.I)
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
    lead = _ASKED_TO.sub("", _LEAD_WORDS.sub("", sentence))
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


def _direction(turn: UserTurn, items: list[Item] | None = None) -> str:
    """The sentences of a message that set direction: instructions and preferences that name a concrete thing
    (a file, identifier, quoted text, amount) or are the user's own want ("I want to use …") -- not questions,
    requests to explain or show, or pastes. One that names its object only by a pronoun carries what the user asked
    just before (the thing "it" is)."""
    orders = [s.text for s in turn.sentences if (s.instruction or s.preference) and not s.question
              and not (_NO_DIRECTION.match(lead := _order_of(s.text)) and not _GOES_ON.search(lead))
              and not _EXAMINES.match(lead)
              and not (KANA.search(s.text) and JA_EXAMINES.search(s.text)) and not korean_examines(s.text)]
    kept = [text for n, text in enumerate(orders) if not _records(_order_of(text), more=n + 1 < len(orders))]
    joined = " ".join(kept)
    if _GO_AHEAD.match(_LEAD_WORDS.sub("", joined).strip()):
        return ""  # "begin implementing this plan", 帮我开始修改吧: the work asked for is the agent's, not a direction
    # A yes to the agent's offer ("yes, do these fixes") refers to the offer, which the approval confirms already.
    if joined and not _ARTIFACT.search(joined) and items and _REFERS_BACK.search(joined) and len(joined.split()) <= 15 \
            and not turn.has("approves"):
        # Aider's `/read file` before "fix that" is the file put in play, not the request "that" is about.
        before = next((i for i in reversed(items) if i.kind == "open"
                       and i.source in ("request", "question", "stopped") and not AIDER_FILE_COMMAND.match(i.text)),
                      None)
        if before is not None:
            return _directive(f"{joined} (re: {clip_words(before.text.split(_ABOUT)[0], 160)})")
    if not joined:
        return ""
    if not (_ARTIFACT.search(joined) or picks_option(joined)) and not any(
            _WANTS.match(_order_of(text)) or _japanese_direction(text) or korean_direction(text)
            or _git_work(text, turn) for text in kept):
        return ""
    return _directive(joined)


def _git_work(sentence: str, turn: UserTurn) -> bool:
    rule = any(s.preference for s in turn.sentences if s.text == sentence)
    return orders_git_work(_order_of(sentence), sentence, is_rule=rule)


def _corrected_to(turn: UserTurn) -> bool:
    statements = [s.text for s in turn.sentences if not s.question and not s.text.rstrip().endswith(("?", "？"))]
    return says_what_instead(statements, lambda text: bool(_ARTIFACT.search(text)))


_REDIRECT_WORDS: Final = 8
"""How short an order right after an interrupt is when it only redirects what the user stopped."""


def _close_requests(items: list[Item], when: str | None, *, stopped: bool = True) -> None:
    # The agent's explicit steps (TODO, unchecked boxes) stay open until a checked box closes them; stopped work
    # is closed by later work the user moved on from, not by the end of the conversation.
    sources = ("request", "question", "agent_question", "stopped") if stopped else ("request", "question",
                                                                                     "agent_question")
    for index, item in enumerate(items):
        if item.kind == "open" and not item.done and item.source in sources:
            items[index] = replace(item, done=True, done_when=when)


_TOKEN: Final = re.compile(r"[\w./#@-]+|[\u3400-\u9fff]")


def _latest_request(items: list[Item]) -> int | None:
    """Index of the latest open request: when the agent's reply to it was stopped before it reported the work
    finished ("Now let's apply these changes:" then "Cancelled") and the user moved on, it is left undone."""
    return next((n for n in range(len(items) - 1, -1, -1) if items[n].kind == "open" and not items[n].done
                 and items[n].source == "request"), None)


def _repeats(a: str, b: str) -> bool:
    """The same message again (a request re-sent, a rule restated): nearly all words shared. Looser matching
    merged different requests about the same file ("update X so that …" / "X is overly complex")."""
    wa, wb = set(_TOKEN.findall(a.lower())), set(_TOKEN.findall(b.lower()))
    return bool(wa and wb) and len(wa & wb) / len(wa | wb) >= 0.75


def _add(items: list[Item], item: Item) -> bool:
    """Append ``item`` unless it is empty or repeats a recent item of its kind; whether it was added."""
    if not item.text:
        return False
    base = item.text.split(OUTCOME_MARK)[0]
    start = max(0, len(items) - 40)
    for n in range(start, len(items)):
        known = items[n]
        if known.kind == item.kind and not known.done and _repeats(base, known.text.split(OUTCOME_MARK)[0]):
            if known.source == "stopped":  # the user came back to the stopped request: it is asked again
                items[n] = replace(known, source=item.source)
            return False
    items.append(item)
    return True


add_item: Final = _add
"""Public name of :func:`_add` for the other folds of the ledger (answers given through a tool)."""


def _fold_plan(ledger: Ledger, plan: str, steps: list[str], when: str | None, entry_id: str | None) -> Ledger:
    """Plan mode: the user accepted ``plan`` (its title, and the ``steps`` its headings name) and asked for it to be
    carried out."""
    items = list(ledger.items)
    _with_outcome(items, ledger.awaiting, ledger.agent_text)
    if ledger.agent_acted:
        _close_requests(items, when)
    # The title says which plan; its steps say what was agreed ("Pre-commit hook: generate-readme.sh before prettier").
    title = re.sub(r"^plan:\s*", "", plan, flags=re.I)
    agreed_plan = clip_words(f"Agreed plan: {title}" + (f" — {'; '.join(steps)}" if steps else ""), DIRECTIVE_CHARS)
    added = _add(items, Item("decision", agreed_plan, "confirmed", when, entry_id))
    awaiting = len(items) - 1 if added else None
    _add(items, Item("open", f"Implement the plan: {plan}", "request", when, entry_id))
    return Ledger(tuple(items), "", False, awaiting)


def _settle_shape(ledger: Ledger) -> Ledger:
    """``ledger`` with its pending message (a language without a table) decided by what the agent did since."""
    if ledger.shape is None:
        return ledger
    items = list(ledger.items)
    _add(items, Item("decision", _directive(taken_up(ledger.shape, ledger.agent_text, DIRECTIVE_CHARS)), "instruction",
                     ledger.shape.when, ledger.shape.entry_id))
    return replace(ledger, items=tuple(items), shape=None)


def _what_went_on(request: str, stopped_reply: str) -> str:
    """A stopped "go on" ("続けて", repiq d69) names its work only in the agent's reply it started: the item carries
    that reply's first statement ("フィールド選択の実装計画を作成します。"), as a pronoun order carries its request."""
    started = _first_statement(stopped_reply)
    if not started or word_count(request) > _GO_ON_WORDS or _ARTIFACT.search(request) or _RE_MARK in request:
        return request
    return f"{request}{_RE_MARK}{clip_words(started, 160)})"


def _bare_word(words: str) -> bool:
    """A message of one word that no table reads and that names nothing ("voila" handing over the file the agent
    asked for, tellmepedia d58; "게속", a misspelt "go on", moviehub d90): it asks for nothing of its own, so it is
    no open item, though it is read as a report, and the work before it goes on (docs/capture.md, round 20)."""
    flat = words.strip()
    return (len(flat) <= _BARE_WORD_CHARS and bool(_LETTERS.match(flat)) and not _HAN_OR_KANA.search(flat)
            and not says_failure(flat))


def fold_user(ledger: Ledger, words: str, when: str | None, entry_id: str | None) -> Ledger:
    """``ledger`` after a real user message whose own words are ``words`` (harness already removed)."""
    ledger = _settle_shape(ledger)
    plan = accepted_plan(words)
    if plan is not None:
        return _fold_plan(ledger, plan, plan_steps(words), when, entry_id)
    if _SESSION_COMMAND.match(words.strip()):
        # "/exit", "/clear", "exit": the user ends or resets the session; it asks for nothing and answers nothing,
        # but what the agent answered before it is done (docs/capture.md, Conversation acts).
        items = list(ledger.items)
        _with_outcome(items, ledger.awaiting, ledger.agent_text)
        if ledger.agent_acted:
            _close_requests(items, when)
        # Kept as said and done at once: the transcript shows it, and nothing waits for an answer to it.
        _add(items, Item("open", words.strip(), "request", when, entry_id, done=True, done_when=when))
        return Ledger(tuple(items), "", False, None)
    proposal = agent_offers(ledger.agent_text) if ledger.agent_text else None
    turn = read_user_turn(words, proposal is not None)
    items = list(ledger.items)
    _with_outcome(items, ledger.awaiting, ledger.agent_text)
    awaiting: int | None = None
    bare = turn.acts == {"reports"} and _bare_word(words)
    if ledger.agent_acted and not (turn.acts & {"corrects", "approves", "rejects"}) and not bare:
        # The agent answered and the user moved on (a new request, a question, thanks): what they asked was
        # done. A correction keeps it open; a yes or no to a proposal is still part of the same work.
        # Claude Code's interrupt stops a reply as SpecStory's "Cancelled" does, unless the user's next words take the
        # same work up again ("yep go ahead", keyframe-blogger d13; docs/capture.md, round 20).
        interrupted = ledger.interrupted and not turn.has("acknowledges")
        stopped = (_latest_request(items) if (ledger.stopped or interrupted) and not _finished(ledger.agent_text)
                   else None)
        _close_requests(items, when)
        if stopped is not None:
            # Only the latest stop stays open: work finished after an earlier stop superseded it.
            items[stopped] = replace(items[stopped], text=_what_went_on(items[stopped].text, ledger.agent_text),
                                     source="stopped", done=False, done_when=None)
    flat = flatten(words)
    own_order = (order_beyond_yes(flat) if turn.has("approves") and proposal and not turn.acts & {"asks", "corrects"}
                 else None)
    if turn.has("rejects") and proposal:
        _add(items, Item("decision", f"Declined: {proposal}", "declined", when, entry_id))
        _add(items, Item("open", f"Not done (declined): {proposal}", "declined", when, entry_id))
    elif (turn.has("approves") or turn.has("acknowledges")) and (len(flat) < SHORT_REPLY_CHARS or own_order):
        # A short yes after a long turn confirms what the turn stated (the synthetic sets' shape,
        # docs/checkpoints.md), else the offer it closed on. Only the agent's last message is read for it: the
        # ones before it narrate work between tool calls ("Let me typecheck, lint, and build."), which the user
        # answering the last one does not confirm (docs/capture.md, round 23).
        last = _last_message(ledger.agent_text)
        stated = (extract_decision_from_response(last, words) if len(last) >= LONG_RESPONSE_CHARS else None)
        stated = whole_item(stated, last) if stated else None
        confirmed = stated or (proposal if turn.has("approves") else None)
        if confirmed:
            agreed_to = stated or agreed(confirmed)
            # "yes, fix plugin.json": the user's own words are the decision as made, the offer what they agree to.
            said = f"{own_order} (agrees: {agreed_to})" if own_order else agreed_to
            decision = Item("decision", said, "confirmed", when, entry_id)
            # The agent stated it by label a turn ago: it is now the user's, taken at this reply.
            stated_by_agent = next((n for n in range(len(items) - 1, -1, -1) if items[n].source == "agent"
                                    and _repeats(items[n].text, decision.text)), None)
            if stated_by_agent is not None:
                items[stated_by_agent] = decision
            else:
                _add(items, decision)
    direction = "" if turn.has("reports") else _direction(turn, items)  # a pasted log's "Use doc() instead" is output
    # The user stopped the agent's action and in a few words says what to do instead ("use uv as the package manager"
    # after the pip3 install was stopped, "no verify" after the hook ran again): the stopped action is what the order
    # is about, so it sets direction though it names no file. A longer message after an interrupt restates the task
    # and is read like any other (docs/capture.md, round 11).
    redirects = bool(ledger.interrupted and turn.acts & {"instructs", "corrects"}
                     and word_count(flat) <= _REDIRECT_WORDS
                     and not turn.acts & {"asks", "approves", "acknowledges", "reports"})
    if redirects:
        direction = direction or _directive(flat)
    corrected = not direction and turn.has("corrects") and not turn.has("reports") and _corrected_to(turn)
    if corrected:
        direction = _directive(flat)
    if turn.has("defers"):
        deferred = _lead(" ".join(s.text for s in turn.sentences if s.deferral)) or _lead(flat)
        if direction:  # "nevermind, don't do anything about this now" decides nothing of its own: the open item says it
            _add(items, Item("decision", direction, "deferred", when, entry_id))
        # What is put off: this message's own request, or -- when it only defers ("don't do anything about this
        # now") -- the request before it, which it answers.
        earlier = next((i for i in reversed(items)
                        if i.kind == "open" and i.source in ("request", "question", "stopped")), None)
        text = f"Deferred: {flat}" if direction or earlier is None else f"Deferred: {earlier.text} ({deferred})"
        _add(items, Item("open", _lead(text), "deferred", when, entry_id))
    elif direction and (turn.has("instructs") or redirects or corrected) and _add(items, Item(
            "decision", direction, "picked" if picks_option(direction) and not _ARTIFACT.search(direction)
            else "instruction", when, entry_id)):
        awaiting = len(items) - 1
    # A request for an answer ("tell me …", no question mark) can still set a limit ("… without implementing any
    # code changes"); a real question ("should we never …?") sets none.
    preferences = [s.text for s in turn.sentences if s.preference and not s.text.rstrip().endswith(("?", "？"))
                   and (not s.question or SCOPE_LIMIT.search(s.text))]
    if preferences and (copied := copied_list_items(words)):
        # "  - google-genai requires Python >=3.9, so it will not be installable …": a tool's output, no rule.
        preferences = [text for text in preferences if text not in copied]
    if turn.has("reports") and not turn.has("instructs"):
        pass  # a pasted log's "is never read" states no rule
    elif turn.has("corrects"):
        # A correction is kept whole (its lead sentences): "no, you did the opposite" alone says nothing.
        if _add(items, Item("constraint", _directive(flat), "correction", when, entry_id)) and awaiting is None and \
                picks_option(flat) and not _ARTIFACT.search(flat):
            awaiting = len(items) - 1  # "no, i want you to do the right approach": the agent's reply says which
    elif preferences:
        # One message's rules are one item: "do NOT rewrite … do NOT add sections" is one stance.
        _add(items, Item("constraint", _directive(" ".join(preferences)), "preference", when, entry_id))
    asks_for_work = turn.has("reports") or any(
        s.instruction and not s.question and not _NO_DIRECTION.match(_LEAD_WORDS.sub("", s.text))
        for s in turn.sentences)
    wants = turn.acts & {"instructs", "asks", "reports", "corrects"}
    if bare:
        wants = frozenset()  # "voila", "게속": nothing of its own to do, and it does not move on from the work before
    unconfirmed: int | None = None
    if wants and not turn.has("acknowledges") and not (turn.acts <= {"approves", "rejects"} and turn.acts):
        # "give me examples" or "explain" is answered by a reply; work needs a report that it is finished.
        text = _asked(words, turn)
        # A question about why something is so asks for an answer; a failure report asks for a fix.
        problem = (turn.has("corrects") or (bool(says_failure(flat)) and not turn.has("asks"))
                   or asks_whether_fixed(turn))
        earlier = next((i for i in reversed(items) if i.kind == "open" and i.source in ("request", "stopped")
                        and not AIDER_FILE_COMMAND.match(i.text)), None)
        if problem and earlier is not None and not _ARTIFACT.search(flat) and len(flat.split()) <= 15:
            # "that did not fix the issue": the problem is the one the earlier request named.
            text = _lead(f"{flat} (about: {earlier.text.split(_ABOUT)[0]})")
        if _add(items, Item("open", text, "request" if asks_for_work or problem else "question", when, entry_id)):
            unconfirmed = len(items) - 1 if problem else None
    # No table read a direction: in a language without one, the agent's answer may still show it (shape_acts).
    shape = pending(words, when, entry_id) if not direction and not redirects and not turn.acts & {
        "approves", "rejects", "acknowledges", "defers", "corrects"} else None
    if len(items) > MAX_ITEMS:
        drop = len(items) - MAX_ITEMS
        items, awaiting = items[drop:], (awaiting - drop if awaiting is not None and awaiting >= drop else None)
        unconfirmed = unconfirmed - drop if unconfirmed is not None and unconfirmed >= drop else None
    return Ledger(tuple(items), "", False, awaiting, unconfirmed, shape=shape)


_CHECKED: Final = re.compile(r"^\s*(?:[-*+]\s+)?(?:\[[xX✓✔]\]|✅|☑)\s*(?P<rest>\S.*)$")
_ANY_BOX: Final = re.compile(r"^\s*[-*+]\s+\[.\]\s*(\S.*)$", re.M)
_LEAD_WORDS: Final = re.compile(r"^(?:(?:ok(?:ay)?|so|now|also|and|then|great|but|please|kindly|just|\d+ questions?)"
                                r"\b[\s,.!:;]*)+", re.I)
_LABEL: Final = re.compile(r"^(?:[^:]{1,30}:\s*)")
_SYMBOLS: Final = re.compile(r"^[\W_]+|[\W_]+$")


def _step_key(text: str) -> str:
    """A step's text without label, box, emoji or case: how a later ``[x]`` line names the same step."""
    return _SYMBOLS.sub("", " ".join(_LABEL.sub("", clean(text)).lower().split()))


def _agent_steps(items: list[Item], text: str, when: str | None, entry_id: str | None) -> None:
    """The agent's explicit open steps (``TODO:``, ``- [ ]``) are opened; its ``- [x]`` lines close them, and a
    new checklist replaces the steps of an earlier one it no longer lists (a task list rewritten after the user
    changed course)."""
    boxes = [_step_key(m.group(1)) for m in _ANY_BOX.finditer(text)]
    if len(boxes) >= 2:
        for index, item in enumerate(items):
            if item.source == "next_step" and not item.done and _step_key(item.text) not in boxes:
                items[index] = replace(item, done=True, done_when=when)
    for raw in text.splitlines():
        line = raw.strip()
        checked = _CHECKED.match(line)
        if checked:
            key = _step_key(checked.group("rest"))
            for index, item in enumerate(items):
                if item.source == "next_step" and not item.done and key and _step_key(item.text) == key:
                    items[index] = replace(item, done=True, done_when=when)
        elif line and is_open_item_line(line):
            step = clean(re.sub(r"^\s*[-*+]\s+\[ \]\s*", "", line))
            step = re.sub(r"^(?:todo|to do|fixme|next steps?|next|follow[- ]?ups?)\s*[:–-]\s*", "", step, flags=re.I)
            if step and not any(i.source == "next_step" and _step_key(i.text) == _step_key(step) for i in items):
                items.append(Item("open", step, "next_step", when, entry_id))


_STATED: Final = re.compile(
    r"^(?:\*\*)?(?:decision|decided|final decision|going with|we(?:'ll| will) go with|the fix is(?: to)?|chosen"
    r"|we chose|we(?:'ll| will) (?!need|want|have|see|check|look|try|probably|likely|also need))\b",
    re.I,
)
"""An agent line that states a decision by its label ("Decision: …", "Going with …", "The fix is …", "We'll …")."""


def _agent_decisions(items: list[Item], text: str, when: str | None, entry_id: str | None) -> None:
    """Decisions the agent states by label: the scorer must agree the line is one (docs/capture.md)."""
    for raw in text.splitlines():
        line = clean(raw)
        if not line or not _STATED.match(line) or line.endswith(("?", ":")) or is_open_item_line(line):
            continue
        stated = extract_decision_from_response(line)
        if stated:
            _add(items, Item("decision", whole_item(stated, line), "agent", when, entry_id))


_SAYS_NOTHING: Final = re.compile(r"^[\W_]*(?:cancell?ed[\W_]*)?$", re.I)
_STOPPED: Final = re.compile(r"^[\W_]*cancell?ed[\W_]*$", re.I)
"""An agent turn with no words (SpecStory's ``_****_`` marker), or only its record of a reply the user stopped
("Cancelled"): it answered nothing."""


def fold_agent(ledger: Ledger, text: str, acted: bool, when: str | None = None,
               entry_id: str | None = None) -> Ledger:
    """``ledger`` after an agent message with visible ``text`` (its tool calls set ``acted``)."""
    if _SAYS_NOTHING.match(text):
        if _STOPPED.match(text):
            ledger = replace(ledger, stopped=True)
        return replace(ledger, agent_acted=ledger.agent_acted or acted, shape=shape_acted(ledger.shape, acted)) \
            if acted else ledger
    items = list(ledger.items)
    awaiting = ledger.awaiting
    if awaiting is not None and not ledger.agent_text and awaiting < len(items) and items[awaiting].source in (
            "picked", "correction"):
        # "do the second approach instead", "no, i want you to do the right approach" name what they want by place
        # or standing only: the agent's first words after them say what it is ("Let's use the AI Studio API
        # approach", "let me keep the separate .env.example files in each app"), its later report only what it did.
        said = items[awaiting].entry_id
        for index, item in enumerate(items):
            if item.entry_id == said and item.source in ("picked", "correction") and OUTCOME_MARK not in item.text:
                _with_outcome(items, index, _first_statement(text))
        awaiting = None
    if "[" in text or ":" in text:
        _agent_steps(items, text, when, entry_id)
    _agent_decisions(items, text, when, entry_id)

    joined = f"{ledger.agent_text}\n\n\n{text}" if ledger.agent_text else text
    unconfirmed = ledger.unconfirmed
    if len(items) > MAX_ITEMS:
        drop = len(items) - MAX_ITEMS
        items, awaiting = items[drop:], (awaiting - drop if awaiting is not None and awaiting >= drop else None)
        unconfirmed = unconfirmed - drop if unconfirmed is not None and unconfirmed >= drop else None
    return Ledger(tuple(items), joined[-8000:], True, awaiting, unconfirmed, shape=shape_acted(ledger.shape, acted))


_VERIFIED: Final = re.compile(
    r"\b(?:tests? (?:now )?pass(?:es|ed)?|(?:ci|build|checks?) (?:now )?(?:passe[sd]|succeeded|is green)"
    r"|(?:now )?(?:runs|ran) (?:fine|successfully|without errors?))\b"
    r"|跑通|运行成功|测试通过|ci[:：]?\s*パス|テスト(?:が)?(?:パス|通過)|動作確認(?:済み|しました)",
    re.I,
)
"""The agent's last turn reports its own run of the work succeeding (a test, the build, CI, running the script): the
fix is shown, not only claimed (docs/capture.md, Closing)."""


def _verified(agent_text: str) -> bool:
    """The agent's last message reports that its own run of the work succeeded."""
    return bool(_VERIFIED.search(agent_text.rsplit("\n\n\n", 1)[-1][-1500:]))


def _finished(agent_text: str) -> bool:
    """The agent's last words report finished work and do not announce more."""
    tail = agent_text[-1500:]
    if _IN_PROGRESS.search(tail.rstrip()[-300:]):
        return False
    return bool(_DONE_REPORT.search(tail))


def _how_to_at_end(items: list[Item], answer: str) -> tuple[int, str] | None:
    """The user's last message, when it is a question about how to go on that the agent answered with steps, and
    those steps (docs/capture.md, round 12)."""
    last = next((n for n in range(len(items) - 1, -1, -1) if items[n].kind == "open"
                 and items[n].source in ("request", "question", "stopped")), None)
    if last is None or items[last].done or items[last].source != "question" or not asks_how_to_proceed(
            items[last].text):
        return None
    steps = steps_in(answer)
    return (last, steps) if steps else None


def ledger_at_end(ledger: Ledger, when: str | None) -> tuple[Item, ...]:
    """Every item with the end of the conversation applied: the last request is closed when the agent's last
    turn reports it finished; the agent's closing question and next steps are open."""
    ledger = _settle_shape(ledger)
    items = list(ledger.items)
    _with_outcome(items, ledger.awaiting, ledger.agent_text)
    last_message = ledger.agent_text.rsplit("\n\n\n", 1)[-1]  # the agent's last message only
    how_to = _how_to_at_end(items, last_message)
    verified = _verified(ledger.agent_text)
    if ledger.agent_text and (verified or _finished(ledger.agent_text)):
        # A fix for a problem the user reported is not done until the user says so, or the agent's own run shows it
        # working ("跑通了", "CI: パス"): at the end nobody else has.
        held = (ledger.unconfirmed if not verified and ledger.unconfirmed is not None
                and ledger.unconfirmed < len(items) else None)
        kept = items[held] if held is not None else None
        _close_requests(items, when, stopped=False)
        if held is not None and kept is not None:
            items[held] = kept
    elif len(ledger.agent_text) >= LONG_RESPONSE_CHARS:
        # A question is answered by a long reply; a request needs a report that it is finished.
        for index, item in enumerate(items):
            if item.kind == "open" and not item.done and item.source == "question":
                items[index] = replace(item, done=True, done_when=when)
    if how_to is not None:
        # The last question asked how the user goes on: the answer gave steps the user has yet to carry out.
        index, steps = how_to
        items[index] = replace(items[index], text=f"{items[index].text}{OUTCOME_MARK}{steps}", source="next_step",
                               done=False, done_when=None)
    if ledger.agent_text:
        offer = agent_offers(ledger.agent_text)
        if offer and _GENERIC_OFFER.search(offer):
            offer = None
        if offer:
            items.append(Item("open", offer, "agent_question", when, None))
        for step in extract_open_items(last_message):
            known = any(i.kind == "open" and (is_semantic_duplicate(step, i.text) or (
                i.source == "next_step" and _step_key(step) == _step_key(i.text))) for i in items)
            # A line of the closing that leaves the choice to the user ("… features you'd like to configure") is
            # an offer like the closing question, not a step of work still open.
            if not known and not _GENERIC_OFFER.search(step) and not _LEAVES_TO_USER.search(step) and (
                    not offer or not is_semantic_duplicate(step, offer)):
                items.append(Item("open", step, "agent_question", when, None))
    return tuple(items)


def ledger_of(turns: Iterable[tuple[str, str, str | None, str | None, bool]]) -> tuple[Item, ...]:
    """Every item of a whole conversation: ``turns`` are ``(role, text, when, entry_id, acted)`` with ``role``
    ``user`` (text already the user's own words) or ``assistant``."""
    ledger = Ledger()
    last_when: str | None = None
    for role, text, when, entry_id, acted in turns:
        last_when = when or last_when
        if role == "user":
            if text.strip():
                ledger = fold_user(ledger, text, when, entry_id)
        else:
            ledger = fold_agent(ledger, text, acted, when, entry_id)
    return ledger_at_end(ledger, last_when)
