"""The Decisions tab: decisions, open items and learnings with their time and source, and the key exchanges.

Two sources, both the engine's: the latest checkpoint (what was bundled so far) and the sidecar's live
captured state (what was recognised since that checkpoint, :class:`engine.capture.state.CapturedState`). Live items
the checkpoint already holds are shown once, as the checkpoint's (:func:`engine.capture.dedup.is_semantic_duplicate`).
Key exchanges come from :func:`engine.capture.thread.extract_thread` over the current context.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from engine.capture.dedup import is_semantic_duplicate
from engine.capture.state import CapturedState
from engine.capture.thread import Exchange, extract_thread
from engine.checkpoints.store import latest_checkpoint
from engine.compaction.item_status import completions, stale_reason
from engine.session.snapshot import SessionFollower, SessionSnapshot

__all__ = ["DecisionsDigest", "DecisionsView", "NotedItem", "digest_content", "read_decisions"]


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
    """Everything the tab shows, newest first within each list."""

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


def read_decisions(
    snapshot: SessionSnapshot, follower: SessionFollower, state: CapturedState | None, state_dir: Path,
    *, now: datetime | None = None, max_age_seconds: float = 14 * 86_400.0,
) -> DecisionsDigest:
    """Collect the tab's contents (blocking: reads the latest checkpoint and re-reads message text)."""
    loaded = latest_checkpoint(state_dir, snapshot.key)
    cp = loaded.checkpoint if loaded else None
    cid = cp.meta.checkpoint_id if cp else ""
    written = cp.meta.created_at if cp else ""
    saved_decisions = [NotedItem(d.what, d.when, cid) for d in cp.decisions] if cp else []
    saved_open = [NotedItem(item, written, cid) for item in cp.open_items] if cp else []
    saved_learnings = [NotedItem(item, written, cid) for item in cp.learnings] if cp else []
    live_decisions: list[NotedItem] = []
    live_open: list[NotedItem] = []
    live_learnings: list[NotedItem] = []
    if state is not None:
        captured = state.updated_at or ""
        live_decisions = [NotedItem(d.what, d.when or captured, "live", d.entry_id) for d in state.decisions]
        # Open items with the time they were said; those the conversation closed stay listed, marked done.
        live_open = [NotedItem(i.text, i.when or captured, "live", i.entry_id,
                               f"done {i.done_when}" if i.done and i.done_when else ("done" if i.done else None))
                     for i in state.items() if i.kind == "open"]
        live_learnings = [NotedItem(item, captured, "live") for item in state.learnings]
    thread = extract_thread(snapshot.view.messages, follower.objects.read_object)
    now = now or datetime.now(UTC)
    done = completions(snapshot.view.messages, follower.objects.read_object)
    closed = [item.text for item in live_open if item.stale]
    open_items = tuple(replace(item, stale=item.stale or stale_reason(item.text, item.when, [*closed, *done], now,
                                                                      max_age_seconds))
                       for item in _merge(saved_open, live_open))
    return DecisionsDigest(
        decisions=_merge(saved_decisions, live_decisions),
        open_items=open_items,
        learnings=_merge(saved_learnings, live_learnings),
        exchanges=thread.key_exchanges,
        thread_summary=thread.summary,
        checkpoint_id=cid or None,
        live=state is not None,
        this_year=f"{now.year:04d}",
    )


def _when(iso: str, this_year: str) -> str:
    """``MM-DD HH:MM`` this year; ``YYYY-MM-DD HH:MM`` for another year, so an old item never looks recent."""
    if len(iso) < 16:
        return iso or ""
    return iso[5:16].replace("T", " ") if iso[:4] == this_year else iso[:16].replace("T", " ")


def _items(title: str, items: Sequence[NotedItem], empty: str, this_year: str, *,
           show_stale: bool = False) -> list[Content]:
    stale = [item for item in items if item.stale]
    shown = list(items) if show_stale else [item for item in items if not item.stale]
    lines = [Content.styled(f"{title} ({len(items) - len(stale)})", "bold $text-accent")]
    if not shown:
        lines.append(Content.styled(f"  {empty}", "$text-muted"))
    for item in shown:
        where = f" · {item.entry_id}" if item.entry_id else ""
        lines.append(Content.assemble(
            (f"  {_when(item.when, this_year):<11}  ", "$text-muted"),
            item.text,
            (f"  [{item.source}{where}]", "$text-success" if item.source == "live" else "$text-secondary"),
            (f"  stale: {item.stale}", "$text-warning") if item.stale else "",
        ))
    if stale and not show_stale:
        lines.append(Content.styled(f"  + {len(stale)} stale (finished later or old): x shows them", "$text-muted"))
    return lines


def digest_content(digest: DecisionsDigest, *, show_stale: bool = False) -> Content:
    """The whole tab as lines: the three lists, then the key exchanges and the thread summary."""
    origin = f"checkpoint {digest.checkpoint_id}" if digest.checkpoint_id else "no checkpoint yet"
    live = " + live capture since then" if digest.live else " (live capture off)"
    lines = [Content.styled(f"From {origin}{live}; newest first.", "$text-muted"), Content("")]
    year = digest.this_year
    lines += _items("Decisions", digest.decisions, "none recognised yet", year)
    lines.append(Content(""))
    lines += _items("Open items", digest.open_items, "none", year, show_stale=show_stale)
    lines.append(Content(""))
    lines += _items("Learnings", digest.learnings, "none", year)
    lines += [Content(""), Content.styled(f"Key exchanges ({len(digest.exchanges)})", "bold $text-accent")]
    if not digest.exchanges:
        lines.append(Content.styled("  no real user message in the context yet", "$text-muted"))
    for exchange in digest.exchanges:
        lines.append(Content.assemble(
            (f"  {exchange.role:<5}  ", "bold $text-primary" if exchange.role == "user" else "bold $text-secondary"),
            exchange.gist,
            (f"  [{exchange.entry_id}]" if exchange.entry_id else "", "$text-muted"),
        ))
    if digest.thread_summary:
        lines += [Content(""), Content.assemble(("Thread  ", "bold $text-accent"), digest.thread_summary)]
    return Content("\n").join(lines)


class DecisionsView(VerticalScroll):
    """Call :meth:`show` with a digest (or a problem); :attr:`show_stale` also lists open items that no longer
    stand."""

    show_stale: reactive[bool] = reactive(False)

    def compose(self) -> ComposeResult:
        yield Static(Content.styled("Reading…", "$text-muted"), id="decisions-text")

    def on_mount(self) -> None:
        self._shown: tuple[DecisionsDigest | None, str | None] = (None, "Reading…")

    def show(self, digest: DecisionsDigest | None, problem: str | None = None) -> None:
        """Display ``digest``; ``problem`` replaces it with an error."""
        self._shown = (digest, problem)
        if problem is not None or digest is None:
            text = Content.styled(problem or "Decisions are not available.", "$text-error")
        else:
            text = digest_content(digest, show_stale=self.show_stale)
        self.query_one("#decisions-text", Static).update(text)

    def watch_show_stale(self) -> None:
        if self.is_mounted and self._shown[0] is not None:
            self.show(*self._shown)
