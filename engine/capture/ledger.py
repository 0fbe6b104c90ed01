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
from dataclasses import replace
from typing import Final

from engine.capture.acts import (
    SCOPE_LIMIT,
    UserTurn,
    asks_whether_fixed,
    copied_list_items,
    corrects_this_turn,
    picks_option,
    read_user_turn,
    says_failure,
    word_count,
)
from engine.capture.agent_fold import fold_agent
from engine.capture.approval_order import order_beyond_yes
from engine.capture.decisions import extract_decision_from_response
from engine.capture.envelopes import AIDER_FILE_COMMAND, accepted_plan, plan_steps
from engine.capture.ledger_end import finished as _finished
from engine.capture.ledger_end import ledger_at_end
from engine.capture.ledger_end import settle_shape as _settle_shape
from engine.capture.ledger_items import (
    DIRECTIVE_CHARS,
    ITEM_CHARS,
    LONG_RESPONSE_CHARS,
    MAX_ITEMS,
    OUTCOME_MARK,
    SHORT_REPLY_CHARS,
    Item,
    Ledger,
    add_item,
)
from engine.capture.ledger_items import add_item as _add
from engine.capture.ledger_items import close_requests as _close_requests
from engine.capture.ledger_items import directive as _directive
from engine.capture.ledger_items import lead as _lead
from engine.capture.ledger_items import repeats as _repeats
from engine.capture.ledger_outcome import first_statement as _first_statement
from engine.capture.ledger_outcome import last_message as _last_message
from engine.capture.ledger_outcome import with_outcome as _with_outcome
from engine.capture.proposals import agent_offers, agreed, listed_option, numbered_rows
from engine.capture.shape_acts import pending, taken_up
from engine.capture.user_direction import ABOUT as _ABOUT
from engine.capture.user_direction import ARTIFACT as _ARTIFACT
from engine.capture.user_direction import LEAD_WORDS as _LEAD_WORDS
from engine.capture.user_direction import NO_DIRECTION as _NO_DIRECTION
from engine.capture.user_direction import corrected_to as _corrected_to
from engine.capture.user_direction import direction as _direction
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

_BARE_WORD_CHARS: Final = 12
_GO_ON_WORDS: Final = 2
_RE_MARK: Final = " (re: "
_LETTERS: Final = re.compile(r"^[^\W\d_]+$")
"""Letters only: an Aider command ("/tokens", "/map-refresh", KLIMA d56), "---" or a number is no bare word."""
_HAN_OR_KANA: Final = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
"""Chinese and Japanese write a phrase without spaces: "出错了" (it failed, shadcn-ui-sidebar d05) and
"レビューチェック" (check the review, repiq d69) are a failure and an order in one "word"."""


def carry_open(ledger: Ledger) -> Ledger:
    """The ledger a new capture cycle starts from after a checkpoint: only the items still open, the agent's last
    words, and whether the user had just stopped it, so a later message still closes (or leaves open) what the
    checkpoint listed as open as it would have without the checkpoint. A message in a language without a table that
    the agent has not acted on yet stays pending: the checkpoint could not list it."""
    shape = ledger.shape if ledger.shape and not taken_up(ledger.shape, ledger.agent_text, DIRECTIVE_CHARS) else None
    return Ledger(tuple(i for i in ledger.items if i.kind == "open" and not i.done), ledger.agent_text,
                  ledger.agent_acted, None, interrupted=ledger.interrupted, stopped=ledger.stopped, shape=shape)


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


_ASKS_FOR_WORDS: Final = re.compile(
    r"^(?:explain|clarify|describe|tell me|help me understand"
    r"|give me (?:\w+ ){0,2}(?:examples?|an? explanation|an? overview|a summary))\b", re.I)
"""An order whose work is an answer ("give me dummy examples of what will happen in each of these cases:", "explain
please", odyash d09; "Clarify what the final structure of the requests_queue will be …", napoli-matcha d83): a
reply gives it, as it answers a question (docs/capture.md, round 26)."""


def _asks_for_answer(turn: UserTurn) -> bool:
    """The message asks for words only: one of its orders asks for an answer, and none asks for other work. Code or
    a list it asks about (read as pasted) does not make it a report to act on."""
    orders = [_LEAD_WORDS.sub("", s.text) for s in turn.sentences if s.instruction and not s.question]
    return any(_ASKS_FOR_WORDS.match(o) for o in orders) and all(
        _ASKS_FOR_WORDS.match(o) or _NO_DIRECTION.match(o) for o in orders)


_SESSION_COMMAND: Final = re.compile(r"^(?:/(?:exit|quit|clear|reset)|exit|quit)$",
                                     re.I)
"""A bare command to the agent's program (Aider's ``/exit``, ``/clear``, ``/tokens``; "exit" typed at its prompt)."""


_REDIRECT_WORDS: Final = 8
"""How short an order right after an interrupt is when it only redirects what the user stopped."""


def _latest_request(items: list[Item]) -> int | None:
    """Index of the latest open request: when the agent's reply to it was stopped before it reported the work
    finished ("Now let's apply these changes:" then "Cancelled") and the user moved on, it is left undone."""
    return next((n for n in range(len(items) - 1, -1, -1) if items[n].kind == "open" and not items[n].done
                 and items[n].source == "request"), None)


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


def _restated(items: list[Item], direction: str) -> bool:
    """Whether ``direction`` repeats an order the user gave before and the agent already answered (it carries the
    agent's outcome after ``→``)."""
    return any(i.kind == "decision" and i.source == "instruction" and OUTCOME_MARK in i.text
               and _repeats(direction, i.text.split(OUTCOME_MARK)[0]) for i in items[-40:])


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
    # The user stopped the agent's action and in a few words says what to do instead ("use uv as the package manager"
    # after the pip3 install was stopped, "no verify" after the hook ran again): the stopped action is what the order
    # is about, so it sets direction though it names no file. A longer message after an interrupt restates the task
    # and is read like any other (docs/capture.md, round 11).
    redirects = bool(ledger.interrupted and turn.acts & {"instructs", "corrects"}
                     and word_count(flatten(words)) <= _REDIRECT_WORDS
                     and not turn.acts & {"asks", "approves", "acknowledges", "reports"})
    if ledger.agent_acted and not (turn.acts & {"corrects", "approves", "rejects"}) and not bare:
        # The agent answered and the user moved on (a new request, a question, thanks): what they asked was
        # done. A correction keeps it open; a yes or no to a proposal is still part of the same work.
        # Claude Code's interrupt stops a reply as SpecStory's "Cancelled" does, unless the user's next words take the
        # same work up again ("yep go ahead", keyframe-blogger d13; docs/capture.md, round 20).
        # A redirect ("use shadcn if you want", eagerminds d97) takes the stopped work up again in another way: the
        # request stays the work at hand, which a later report finishes (docs/capture.md, round 26).
        # So does a few words of fact about the stopped work ("teams is installed as a pwa", omarchy-backup d107;
        # "screenshot of the issue", safecast d63): the user informs the same work, and a later report finishes it
        # (docs/capture.md, round 30).
        # A fact names its thing and says something of it, in words apart; one run of words names nothing
        # ("続けて" goes on, round 20; "レビューチェック" orders a check, repiq d69).
        informs = (ledger.interrupted and turn.acts == {"reports"}
                   and len(flatten(words).split()) >= 3 and word_count(flatten(words)) <= _REDIRECT_WORDS)
        interrupted = ledger.interrupted and not turn.has("acknowledges") and not redirects and not informs
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
            rows = numbered_rows(agreed_to, last)  # "apply items 5, 6, and 7": what the rows those numbers name say
            agreed_to = _lead(agreed_to + rows) if rows else agreed_to
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
    if redirects:
        direction = direction or _directive(flat)
    corrected = not direction and turn.has("corrects") and not turn.has("reports") and _corrected_to(turn)
    if corrected:
        direction = _directive(flat)
    # "Matilda" after the agent's table of voices, "b option …" after its "(a) …" / "(b) …": the reply names the
    # option it picks, which the agent's line completes (docs/capture.md, round 27).
    option = (listed_option(flat, _last_message(ledger.agent_text))
              if not direction and ledger.agent_text and not turn.acts & {"approves", "rejects", "asks", "corrects"}
              else None)  # a yes confirms the agent's offer (above)
    if option:
        direction = _directive(f"{flat} (picks: {option})")
    elif direction and ledger.agent_text and " (re: " not in direction:
        # "can you fix option 1": the agent's numbered line says what option 1 is (docs/capture.md, round 32).
        direction = _directive(direction + numbered_rows(direction, _last_message(ledger.agent_text)))
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
    elif direction and (turn.has("instructs") or redirects or corrected or option) and _add(items, Item(
            "decision", direction, "picked" if picks_option(direction) and not _ARTIFACT.search(direction)
            else "instruction", when, entry_id)):
        awaiting = len(items) - 1
    elif direction and turn.has("instructs") and " (re: " not in direction and _restated(items, direction):
        # The same order given again after the agent answered it ("plan.md,README更新後にcommit,push,publishして
        # ください" after each release; "We are still fixing UI mistakes from your LLM. The main app should load a
        # modal …" sent twice) is how the user works or what must hold, not one turn's request (round 25). "commit
        # this" said again names another change each time: an order named by a pronoun repeats words, not content.
        _add(items, Item("constraint", _directive(flat), "restated", when, entry_id))
    # A request for an answer ("tell me …", no question mark) can still set a limit ("… without implementing any
    # code changes"); a real question ("should we never …?") sets none.
    preferences = [s.text for s in turn.sentences if s.preference and not s.text.rstrip().endswith(("?", "？"))
                   and (not s.question or SCOPE_LIMIT.search(s.text))]
    if preferences and (copied := copied_list_items(words)):
        # "  - google-genai requires Python >=3.9, so it will not be installable …": a tool's output, no rule.
        preferences = [text for text in preferences if text not in copied]
    if turn.has("reports") and not turn.has("instructs"):
        pass  # a pasted log's "is never read" states no rule
    elif turn.has("corrects") and not corrects_this_turn(turn):
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
        asks_for_work = asks_for_work and (problem or not _asks_for_answer(turn))
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
