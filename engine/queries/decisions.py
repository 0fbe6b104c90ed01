"""Decisions, open items and learnings with their time and source, and the key exchanges (the Decisions tab).

Two sources: the latest checkpoint (what was bundled so far) and the sidecar's live captured state (what was
recognised since that checkpoint, :class:`engine.capture.state.CapturedState`). Live items the checkpoint already
holds are listed once, as the checkpoint's (:func:`engine.capture.dedup.is_semantic_duplicate`). Open items the
transcript finished later, or older than the configured age, carry why they no longer stand
(:func:`engine.compaction.item_status.stale_reason`). Key exchanges come from
:func:`engine.capture.thread.extract_thread` over the current context.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from engine.capture.dedup import is_semantic_duplicate
from engine.capture.state import CapturedState
from engine.capture.thread import Exchange, extract_thread
from engine.checkpoints.store import latest_checkpoint
from engine.compaction.item_status import completions, stale_reason
from engine.session.snapshot import SessionFollower, SessionSnapshot

__all__ = ["DecisionsDigest", "NotedItem", "read_decisions"]


@dataclass(frozen=True, slots=True)
class NotedItem:
    """One decision, open item or learning, with when and where it was recorded."""

    text: str
    when: str
    """ISO-8601 time it was taken (decisions) or recorded (the checkpoint's or the capture's time); may be empty."""
    source: str
    """``cp_003`` (from that checkpoint) or ``live`` (captured since the latest checkpoint)."""
    entry_id: str | None = None
    """The transcript entry that confirmed it, when the capture knows it."""
    stale: str | None = None
    """Why an open item no longer stands (finished later, or old), or ``None``."""


@dataclass(frozen=True, slots=True)
class DecisionsDigest:
    """Everything the Decisions tab shows, newest first within each list."""

    decisions: tuple[NotedItem, ...]
    open_items: tuple[NotedItem, ...]
    learnings: tuple[NotedItem, ...]
    exchanges: tuple[Exchange, ...]
    thread_summary: str
    checkpoint_id: str | None
    live: bool
    """Whether the sidecar's live state was available (it is unless the app runs without a sidecar)."""
    this_year: str = ""
    """The current year (``2026``): times of another year are shown with theirs."""


def _merge(saved: Sequence[NotedItem], live: Sequence[NotedItem]) -> tuple[NotedItem, ...]:
    fresh = [item for item in live if not any(is_semantic_duplicate(item.text, s.text) for s in saved)]
    return tuple(reversed([*saved, *fresh]))


_CUTS: Final = (" (re: ", " (about: ", " → ", "…")
_LEAD_CHARS: Final = 60
_ISO_MINUTE: Final = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d")


def _minute(iso: str) -> str:
    """A transcript's ISO time to the minute, as the tab's time column writes it ("2026-02-25 08:25"); other text as
    it came (it is shown, never parsed further)."""
    return iso[:16].replace("T", " ") if _ISO_MINUTE.match(iso) else iso


def _lead(text: str) -> str:
    """The start of an item in the user's own words: before a reply's context or a cut, folded."""
    for cut in _CUTS:
        text = text.split(cut, 1)[0]
    return " ".join(text.split()).casefold()[:_LEAD_CHARS]


def _said_at(items: Sequence[NotedItem], user_said: Sequence[tuple[str, str]]) -> dict[str, str]:
    """The time of the first user message that holds each item's lead words, for items a checkpoint kept without
    one (docs/capture.md, One set of items: Times); ``user_said`` is the thread's (timestamp, words) of each."""
    leads = {item.text: lead for item in items if len(lead := _lead(item.text)) >= 12}
    found: dict[str, str] = {}
    for when, words in user_said:
        if not leads:
            break
        said = " ".join(words.split()).casefold()
        for text, lead in list(leads.items()):
            if lead in said:
                found[text] = when
                del leads[text]
    return found


def read_decisions(
    snapshot: SessionSnapshot, follower: SessionFollower, state: CapturedState | None, state_dir: Path,
    *, now: datetime | None = None, max_age_seconds: float = 14 * 86_400.0,
) -> DecisionsDigest:
    """Collect the tab's contents (blocking: reads the latest checkpoint and re-reads message text).

    Args:
        state: the sidecar's live captured state, or ``None`` when no sidecar runs.
        now: the clock the staleness of open items is judged by (default: the current time).
        max_age_seconds: open items older than this are stale (the config's ``open_items_max_age``).
    """
    loaded = latest_checkpoint(state_dir, snapshot.source.identity)  # docs/checkpoints.md, Session identity
    cp = loaded.checkpoint if loaded else None
    cid = cp.meta.checkpoint_id if cp else ""
    written = cp.meta.created_at if cp else ""
    saved_decisions = [NotedItem(d.what, d.when, cid) for d in cp.decisions] if cp else []
    saved_open = [NotedItem(item, written, cid) for item in cp.open_items] if cp else []
    saved_learnings = [NotedItem(item, written, cid) for item in cp.learnings] if cp else []
    live_decisions: list[NotedItem] = []
    live_open: list[NotedItem] = []
    live_learnings: list[NotedItem] = []
    said: dict[str, str] = {}
    if state is not None:
        captured = state.updated_at or ""
        live_decisions = [NotedItem(d.what, d.when or captured, "live", d.entry_id) for d in state.decisions]
        # Open items with the time they were said; those the conversation closed stay listed, marked done.
        ledger_items = state.items()
        live_open = [NotedItem(i.text, i.when or captured, "live", i.entry_id,
                               (f"done {_minute(i.done_when)}" if i.done_when else "done") if i.done else None)
                     for i in ledger_items if i.kind == "open"]
        said = {i.text: i.when for i in ledger_items if i.kind in ("open", "constraint") and i.when}
        live_learnings = [NotedItem(item, said.get(item) or captured, "live") for item in state.learnings]
    thread = extract_thread(snapshot.view.messages, follower.objects.read_object)
    now = now or datetime.now(UTC)
    done = completions(snapshot.view.messages, follower.objects.read_object)
    closed = [item.text for item in live_open if item.stale]
    merged_open = _merge(saved_open, live_open)
    learnings = _merge(saved_learnings, live_learnings)
    # The checkpoint keeps open items and learnings as bare text, so they carry its write time: the live ledger's
    # copy, or else the user message that said them, gives the time they were said.
    untimed = [item for item in (*merged_open, *learnings) if cid and item.source == cid and item.when == written]
    said_at = {item.text: said[item.text] for item in untimed if item.text in said}
    said_at |= _said_at([item for item in untimed if item.text not in said_at], thread.user_said)
    merged_open = tuple(replace(item, when=said_at.get(item.text, item.when)) for item in merged_open)
    learnings = tuple(replace(item, when=said_at.get(item.text, item.when)) for item in learnings)
    open_items = tuple(replace(item, stale=item.stale or stale_reason(item.text, item.when, [*closed, *done], now,
                                                                      max_age_seconds))
                       for item in merged_open)
    return DecisionsDigest(
        decisions=_merge(saved_decisions, live_decisions),
        open_items=open_items,
        learnings=learnings,
        exchanges=thread.key_exchanges,
        thread_summary=thread.summary,
        checkpoint_id=cid or None,
        live=state is not None,
        this_year=f"{now.year:04d}",
    )
