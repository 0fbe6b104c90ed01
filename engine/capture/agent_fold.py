"""The ledger after an agent message: its explicit steps (``TODO:``, ``- [ ]``, closed by ``- [x]``), the decisions it
states by label, and the outcome of a decision named only by place or standing (docs/capture.md, The ledger)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Final

from engine.capture.agent_rules import same_rule, stated_rules
from engine.capture.decisions import extract_decision_from_response, is_open_item_line, prose_lines
from engine.capture.ledger_items import MAX_ITEMS, OUTCOME_MARK, Item, Ledger
from engine.capture.ledger_items import add_item as _add
from engine.capture.ledger_outcome import first_statement as _first_statement
from engine.capture.ledger_outcome import with_outcome as _with_outcome
from engine.capture.response_lines import clean
from engine.capture.shape_acts import acted as shape_acted
from engine.capture.whole_text import whole_item

_CHECKED: Final = re.compile(r"^\s*(?:[-*+]\s+)?(?:\[[xX✓✔]\]|✅|☑)\s*(?P<rest>\S.*)$")
_ANY_BOX: Final = re.compile(r"^\s*[-*+]\s+\[.\]\s*(\S.*)$", re.M)


_LABEL: Final = re.compile(r"^(?:[^:]{1,30}:\s*)")
_SYMBOLS: Final = re.compile(r"^[\W_]+|[\W_]+$")


def step_key(text: str) -> str:
    """A step's text without label, box, emoji or case: how a later ``[x]`` line names the same step."""
    return _SYMBOLS.sub("", " ".join(_LABEL.sub("", clean(text)).lower().split()))


def _agent_steps(items: list[Item], text: str, when: str | None, entry_id: str | None) -> None:
    """The agent's explicit open steps (``TODO:``, ``- [ ]``) are opened; its ``- [x]`` lines close them, and a
    new checklist replaces the steps of an earlier one it no longer lists (a task list rewritten after the user
    changed course). Code fences are left out, as in the closing's open items: ``# TODO: Implement undo`` in a
    module the agent writes is the program's text, not its plan (LSFL d54; docs/capture.md, round 26)."""
    prose = "\n".join(prose_lines(text))
    boxes = [step_key(m.group(1)) for m in _ANY_BOX.finditer(prose)]
    if len(boxes) >= 2:
        for index, item in enumerate(items):
            if item.source == "next_step" and not item.done and step_key(item.text) not in boxes:
                items[index] = replace(item, done=True, done_when=when)
    for line in prose.splitlines():
        checked = _CHECKED.match(line)
        if checked:
            key = step_key(checked.group("rest"))
            for index, item in enumerate(items):
                if item.source == "next_step" and not item.done and key and step_key(item.text) == key:
                    items[index] = replace(item, done=True, done_when=when)
        elif line and is_open_item_line(line):
            step = clean(re.sub(r"^\s*[-*+]\s+\[ \]\s*", "", line))
            step = re.sub(r"^(?:todo|to do|fixme|next steps?|next|follow[- ]?ups?)\s*[:–-]\s*", "", step, flags=re.I)
            if step and not any(i.source == "next_step" and step_key(i.text) == step_key(step) for i in items):
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
    for rule in stated_rules(text):  # the user's standing rule as the agent states it back (agent_rules.py)
        if not any(i.kind == "constraint" and same_rule(rule, i.text) for i in items):
            _add(items, Item("constraint", rule, "agent", when, entry_id))

    joined = f"{ledger.agent_text}\n\n\n{text}" if ledger.agent_text else text
    unconfirmed = ledger.unconfirmed
    if len(items) > MAX_ITEMS:
        drop = len(items) - MAX_ITEMS
        items, awaiting = items[drop:], (awaiting - drop if awaiting is not None and awaiting >= drop else None)
        unconfirmed = unconfirmed - drop if unconfirmed is not None and unconfirmed >= drop else None
    return Ledger(tuple(items), joined[-8000:], True, awaiting, unconfirmed, shape=shape_acted(ledger.shape, acted))
