"""What is open at the end of a conversation: the last request closes when the agent's last turn reports it finished
(or its own run verified), and the agent's closing question and next steps stay open (docs/capture.md, Closing)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Final

from engine.capture.agent_fold import step_key as _step_key
from engine.capture.decisions import extract_open_items
from engine.capture.dedup import is_semantic_duplicate
from engine.capture.ledger_items import DIRECTIVE_CHARS, LONG_RESPONSE_CHARS, OUTCOME_MARK, Item, Ledger
from engine.capture.ledger_items import add_item as _add
from engine.capture.ledger_items import close_requests as _close_requests
from engine.capture.ledger_items import directive as _directive
from engine.capture.ledger_outcome import DONE_REPORT as _DONE_REPORT
from engine.capture.ledger_outcome import with_outcome as _with_outcome
from engine.capture.next_steps import asks_how_to_proceed, commands_left, steps_in
from engine.capture.proposals import agent_offers
from engine.capture.shape_acts import taken_up

# "Let me know if you'd like …" hands the next move to the user (an offer, as _LEAVES_TO_USER reads it), it announces
# no work of the agent's (udocket d100; round 30).
_IN_PROGRESS: Final = re.compile(r"(?:^|\n)\s*(?:let me(?! know\b)|let's|i'll|i will|now i'll|next,? i'll"
                                 r"|接下来|下一步|我来|我先)"
                                 r"[^\n]*[:：]?\s*$"
                                 # Japanese announces its next action by the plain polite verb ending the last
                                 # sentence: "コミット完了。jj に取り込んでプッシュします。" (tij d95),
                                 # "コミットしてPRを作成します。" (spot-diggz d93); "…をお願いします" asks.
                                 r"|(?:^|[。！\n])[^。！\n]*(?<!お願い)(?<!お願いいた)(?:します|しましょう)"
                                 r"[。！]?\s*$", re.I)
_GENERIC_OFFER: Final = re.compile(
    r"\b(?:any(?:thing)? (?:further|else|more|other)|further (?:\w+ )?(?:improvements|changes|refinements|tweaks"
    r"|adjustments|help)|more (?:improvements|changes|help)|need (?:anything|any) (?:else|more)|other questions)\b"
    r"|还有其他|其他需要|进一步",
    re.I,
)
"""A closing offer that proposes nothing in particular ("anything else?") leaves nothing open."""


_LEAVES_TO_USER: Final = re.compile(r"\byou(?:'d| would)? (?:like|want|prefer)\b|\blet me know\b", re.I)


def settle_shape(ledger: Ledger) -> Ledger:
    """``ledger`` with its pending message (a language without a table) decided by what the agent did since."""
    if ledger.shape is None:
        return ledger
    items = list(ledger.items)
    _add(items, Item("decision", _directive(taken_up(ledger.shape, ledger.agent_text, DIRECTIVE_CHARS)), "instruction",
                     ledger.shape.when, ledger.shape.entry_id))
    return replace(ledger, items=tuple(items), shape=None)


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


_PAST_REPORT: Final = re.compile(
    r"(?:^|\n|[.!]\s)[ \t*_#>-]*(?:updated|added|fixed|implemented|created|removed|replaced|renamed|refactored"
    r"|rewrote|moved)\s+(?:the|a|an|every|all|both|each|it|them|this|that|[`\[])"
    r"|\bi (?:fixed|updated|added|implemented|created|removed|changed|replaced|rewrote|renamed|moved)\b",
    re.I,
)
"""A report that opens with what was done, in the simple past: "Updated the constitution to v1.2.0 …" (udocket d100),
"I fixed that in [nativeTranscript.ts](…)" (session-bridge d99); FIT's "Done! Updated the copyright to SpecStory,
Inc." (keyframe-blogger d15) and "Done. Replaced every em dash in both files …" (duet d77) say it after a "Done"
(docs/capture.md, round 30)."""


def finished(agent_text: str) -> bool:
    """The agent's last words report finished work and do not announce more."""
    tail = agent_text[-1500:]
    if _IN_PROGRESS.search(tail.rstrip()[-300:]):
        return False
    return bool(_DONE_REPORT.search(tail) or _PAST_REPORT.search(tail))


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


def _last_ask_open(items: list[Item]) -> bool:
    """The user's last request or question is still open at the end: the agent's closing question or offer is then
    part of that unfinished work ("Would you like me to make any adjustments to the test file?" after "add a test
    file to check the csv", whose file was never written, expense-tracker d53; "普段どのようにプッシュしていますか？"
    after the user objected that the push went to the wrong branch, spot-diggz d92), not a second open item
    (docs/capture.md, round 26)."""
    last = next((i for i in reversed(items) if i.kind == "open" and i.source in ("request", "question", "stopped")),
                None)
    return last is not None and not last.done


def ledger_at_end(ledger: Ledger, when: str | None) -> tuple[Item, ...]:
    """Every item with the end of the conversation applied: the last request is closed when the agent's last
    turn reports it finished; the agent's closing question and next steps are open."""
    ledger = settle_shape(ledger)
    items = list(ledger.items)
    _with_outcome(items, ledger.awaiting, ledger.agent_text)
    last_message = ledger.agent_text.rsplit("\n\n\n", 1)[-1]  # the agent's last message only
    how_to = _how_to_at_end(items, last_message)
    verified = _verified(ledger.agent_text)
    if ledger.agent_text and (verified or finished(ledger.agent_text)):
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
    left = commands_left(last_message) if how_to is None else ""
    last = next((n for n in range(len(items) - 1, -1, -1) if items[n].kind == "open"
                 and items[n].source in ("request", "question", "stopped")), None)
    if left and last is not None and items[last].source == "request":
        # The agent could not finish the last request and left the user the commands that do ("I can\u2019t push from
        # here", coda d105; "以下を実行してください", tij d95): it is open, and the item says what is still to run.
        items[last] = replace(items[last], text=f"{items[last].text}{OUTCOME_MARK}{left}", source="next_step",
                              done=False, done_when=None)
    if how_to is not None:
        # The last question asked how the user goes on: the answer gave steps the user has yet to carry out.
        index, steps = how_to
        items[index] = replace(items[index], text=f"{items[index].text}{OUTCOME_MARK}{steps}", source="next_step",
                               done=False, done_when=None)
    if ledger.agent_text and not _last_ask_open(items):
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
