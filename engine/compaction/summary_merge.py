"""Earlier summaries and a span's facts merged item by item: nothing dropped, duplicates folded, conflicts
superseded, finished work moved to done.

Rules, applied to the span's facts in message order:

* **duplicates fold** — a fact that :func:`engine.capture.dedup.is_semantic_duplicate` says repeats an item of
  the same kind adds a reference to that item; the item keeps its (older, verbatim) text;
* **newer supersedes conflicting older** — a decision or constraint that conflicts with an item of the same kind
  (see :func:`conflicts`) moves that item to ``superseded``, where it is shown as no longer current;
* **done moves** — a completion statement (``Done: …``) that matches an open TODO, blocker, work in progress or
  pending ask moves it to ``done``; a completion that matches nothing is recorded as done work itself;
* everything else is added; earlier items are never dropped here (only the size budget of
  :mod:`engine.compaction.summary_format` may leave whole items out, and it says where they are kept).

The kept messages after the cut are read too, only to close or supersede items (never to add them): the
summary must not call current what the messages right after it finish or replace. Identifiers are added when
new (exact match). References (how many messages of the span mention an item) are
counted for every item, for the budget's choice of what to leave out.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Final

from engine.capture.dedup import extract_keywords, is_semantic_duplicate
from engine.compaction.summary_extract import SpanFacts
from engine.compaction.summary_sections import CARRIED_KINDS, SummaryItem, item_key

__all__ = ["OPEN_KINDS", "SUPERSEDING_KINDS", "conflicts", "merge_items", "resolves"]

OPEN_KINDS: Final = frozenset({"todos", "in_progress", "blocked", "asks"})
"""Kinds a completion statement can close."""
SUPERSEDING_KINDS: Final = frozenset({"decisions", "constraints"})
"""Kinds in which a newer item replaces a conflicting older one (asks and TODOs accumulate until done)."""
_SUPERSEDE: Final = re.compile(
    r"\b(?:instead|rather than|no longer|not any ?more|anymore|switch(?:ed|ing)? (?:from|to|back)|replac(?:e|es|ed|ing)"
    r"|revert(?:s|ed|ing)?|supersed\w*|overrid\w*|change[sd]? (?:it |that |this )?(?:to|from)|actually)\b",
    re.IGNORECASE,
)
_NUMBER: Final = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.]*\w)")
_NEGATION: Final = re.compile(r"\b(?:not|no|never|don't|dont|do not|without|nemoj|ne)\b", re.IGNORECASE)
_DONE_PREFIX: Final = re.compile(r"^(?:done|completed|fixed|finished|resolved|shipped)\s*[:–—-]?\s*", re.IGNORECASE)


MERGE_THRESHOLD = 0.5
"""Dedup threshold for merging summaries: stricter than capture's, because a false "same item" here drops an
item from the only record the agent keeps ("added the Grafana panel" must not close "add a p95 latency panel")."""

def _stem(word: str) -> str:
    """A word without one common English ending, cut to five letters: ``cache``/``cached``, ``lookup``/``lookups``
    and ``page``/``paging`` meet."""
    for suffix in ("ing", "ed", "es", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:5]


@functools.lru_cache(maxsize=8192)
def _stems(text: str) -> frozenset[str]:
    return frozenset(_stem(word) for word in extract_keywords(text) if not word.replace(".", "").isdigit())


def _same(a: str, b: str) -> bool:
    """The project's dedup, asked only when the two texts share at least a third of the shorter one's word stems
    (and one): it costs milliseconds on long texts, and its own rules need far more overlap (one keyword set
    covering the other, or a Jaccard similarity of 0.4) — only its small thesaurus of synonyms can add to it."""
    sa, sb = _stems(a), _stems(b)
    shared = len(sa & sb)
    return shared >= 1 and shared * 3 >= min(len(sa), len(sb)) and is_semantic_duplicate(a, b, MERGE_THRESHOLD)


def conflicts(older: str, newer: str) -> bool:
    """Whether ``newer`` replaces ``older``: the two share most of their words (half of the shorter one's, at
    least two) and ``newer`` changes a number (``30 s`` → ``120 s``), flips a negation, or says so
    (``instead``, ``no longer``, ``switch to``, ``revert``, ``actually`` …).

    Checked before the dedup: "Actually, deploying on Fridays is fine" shares enough words with "Never deploy on
    Fridays" for the dedup to call them one item, but it replaces it. Misses a replacement stated with no shared
    words or no marker ("Use Memcached for the sliding window" after "Use Redis sorted sets for the sliding
    window"): both stay current.
    """
    if item_key(older).lower() == item_key(newer).lower():
        return False
    a, b = _stems(older), _stems(newer)
    shared = a & b
    if len(shared) < 2 or len(shared) * 2 < min(len(a), len(b)):
        return False
    old_numbers, new_numbers = set(_NUMBER.findall(older)), set(_NUMBER.findall(newer))
    if old_numbers and new_numbers and old_numbers != new_numbers:
        return True
    if bool(_NEGATION.search(older)) != bool(_NEGATION.search(newer)):
        return True
    return bool(_SUPERSEDE.search(newer))


def resolves(done: str, item: str) -> bool:
    """Whether the completion statement ``done`` reports ``item`` as finished (the project's dedup on the text
    after the ``Done:`` marker, or every keyword of the item named in the statement)."""
    statement = _DONE_PREFIX.sub("", done)
    if _same(statement, item):
        return True
    wanted = _stems(item)
    return len(wanted) >= 3 and wanted <= _stems(statement)


def _references(items: Sequence[SummaryItem], texts: Sequence[str]) -> list[SummaryItem]:
    """Each item with ``refs`` raised by the messages that mention it (an identifier verbatim, else at least
    three of its keywords, or all of them when it has fewer)."""
    if not texts:
        return list(items)
    words = [{_stem(w) for w in re.findall(r"[\w./@:-]+", text.lower())} for text in texts]
    out: list[SummaryItem] = []
    for item in items:
        if item.kind == "identifiers":
            count = sum(1 for text in texts if item.text in text)
        else:
            stems = _stems(item.text)
            need = min(3, len(stems))
            count = sum(1 for w in words if need and len(stems & w) >= need)
        out.append(replace(item, refs=item.refs + count) if count else item)
    return out


def _add_identifiers(items: list[SummaryItem], found: Iterable[tuple[str, str]], start: int) -> None:
    known = {item.text for item in items if item.kind == "identifiers"}
    for offset, (identifier, entry_id) in enumerate(found):
        if identifier not in known:
            known.add(identifier)
            items.append(SummaryItem(identifier, "identifiers", source=f"entry {entry_id}", order=start + offset))


def _distinct(items: Sequence[SummaryItem]) -> list[SummaryItem]:
    """One item per text: a split turn's request and progress are summarized again as asks and done work, and
    the same words may sit in two sections. Superseded or done wins over current (the later state), else the
    first one."""
    chosen: dict[str, SummaryItem] = {}
    for item in items:
        key = item_key(item.text)
        held = chosen.get(key)
        if held is None or (item.kind in ("superseded", "done") and held.kind not in ("superseded", "done")):
            chosen[key] = item
    keep = {id(item) for item in chosen.values()}
    return [item for item in items if id(item) in keep]


def _apply_later(items: list[SummaryItem], later: SpanFacts) -> None:
    """What the kept messages say about the summary's items: a completion there closes an open item, a
    conflicting decision or constraint there supersedes one. Nothing is added (the kept messages hold it)."""
    for fact in later.facts:
        for i, item in enumerate(items):
            closes = (item_key(item.text) == item_key(fact.text) if fact.kind == "closed"
                      else fact.kind == "done" and resolves(fact.text, item.text))
            if item.kind in OPEN_KINDS and closes:
                items[i] = replace(item, kind="done")
            elif fact.kind in SUPERSEDING_KINDS and item.kind == fact.kind and conflicts(item.text, fact.text):
                items[i] = replace(item, kind="superseded")


def merge_items(previous: Sequence[SummaryItem], facts: SpanFacts, later: SpanFacts | None = None
                ) -> list[SummaryItem]:
    """The items of the new summary: ``previous`` (earlier summaries' items, oldest first) with ``facts`` merged
    in by the module's rules; ctxscope's old status lines are replaced by the span's. ``later`` are the facts
    of the messages the compaction keeps: they only close or supersede items, so the summary never presents as
    current what the kept messages already finished or replaced."""
    items = _distinct([item for item in previous if item.kind in CARRIED_KINDS])
    start = max((item.order for item in items), default=-1) + 1
    for fact in facts.facts:
        order = start + fact.order
        same_text = next((i for i, item in enumerate(items) if item_key(item.text) == item_key(fact.text)), None)
        if fact.kind == "closed":
            # A request the conversation closed (docs/capture.md): the very same item is done, nothing fuzzy.
            if same_text is not None and items[same_text].kind in OPEN_KINDS | {"done"}:
                items[same_text] = replace(items[same_text], kind="done", refs=items[same_text].refs + 1)
            elif same_text is None:
                items.append(SummaryItem(fact.text, "done", source=f"entry {fact.entry_id}", order=order))
            continue
        if same_text is not None and fact.kind != "done":
            items[same_text] = replace(items[same_text], refs=items[same_text].refs + 1)
            continue  # the very same statement again (whatever section it is in now) adds nothing
        if fact.kind == "done":
            closed = False
            for i, item in enumerate(items):
                if item.kind in OPEN_KINDS and resolves(fact.text, item.text):
                    items[i] = replace(item, kind="done", refs=item.refs + 1)
                    closed = True
            known = any(item.kind == "done" and _same(fact.text, item.text) for item in items)
            if not closed and not known:
                items.append(SummaryItem(fact.text, "done", source=f"entry {fact.entry_id}", order=order))
            continue
        same = [i for i, item in enumerate(items) if item.kind == fact.kind]
        replaced = [i for i in same if fact.kind in SUPERSEDING_KINDS and conflicts(items[i].text, fact.text)]
        duplicate = next((i for i in same if i not in replaced and (item_key(items[i].text) == item_key(fact.text)
                          or _same(fact.text, items[i].text))), None)
        if duplicate is not None:
            items[duplicate] = replace(items[duplicate], refs=items[duplicate].refs + 1)
            continue
        if fact.kind == "todos" and any(item.kind == "done" and _same(fact.text, item.text)
                                        for item in items):
            continue  # a step listed again after it was reported done stays done
        for i in replaced:
            items[i] = replace(items[i], kind="superseded")
        items.append(SummaryItem(fact.text, fact.kind, source=f"entry {fact.entry_id}", order=order))
    if later is not None:
        _apply_later(items, later)
    _add_identifiers(items, facts.identifiers, start + len(facts.facts) + 1)
    if facts.goal and not any(item.kind == "goal" for item in items):
        items.append(SummaryItem(facts.goal, "goal", source="", order=start))
    end = max((item.order for item in items), default=0) + 1
    items += [SummaryItem(line, "status", order=end + i) for i, line in enumerate(facts.status)]
    return _references(items, facts.texts)
