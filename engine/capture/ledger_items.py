"""The ledger's values and how an item joins it: :class:`Item`, :class:`Ledger`, the caps on an item's text, adding an
item unless it repeats a recent one, and closing the requests the user moved on from (docs/capture.md, The ledger)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Final

from engine.capture.shape_acts import Pending
from engine.capture.whole_text import clip_words

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


OUTCOME_MARK: Final = " → "
"""Joins a decision to the agent's account of carrying it out."""


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


def lead(text: str) -> str:
    return clip_words(text, ITEM_CHARS)


def directive(text: str) -> str:
    return clip_words(text, DIRECTIVE_CHARS)


def close_requests(items: list[Item], when: str | None, *, stopped: bool = True) -> None:
    # The agent's explicit steps (TODO, unchecked boxes) stay open until a checked box closes them; stopped work
    # is closed by later work the user moved on from, not by the end of the conversation.
    sources = ("request", "question", "agent_question", "stopped") if stopped else ("request", "question",
                                                                                     "agent_question")
    for index, item in enumerate(items):
        if item.kind == "open" and not item.done and item.source in sources:
            items[index] = replace(item, done=True, done_when=when)


_TOKEN: Final = re.compile(r"[\w./#@-]+|[\u3400-\u9fff]")


def repeats(a: str, b: str) -> bool:
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
        if known.kind == item.kind and not known.done and repeats(base, known.text.split(OUTCOME_MARK)[0]):
            if known.source == "stopped":  # the user came back to the stopped request: it is asked again
                items[n] = replace(known, source=item.source)
            return False
    items.append(item)
    return True


add_item: Final = _add
"""Public name of :func:`_add` for the other folds of the ledger (answers given through a tool)."""
