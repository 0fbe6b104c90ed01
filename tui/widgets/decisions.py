"""The Decisions tab: decisions, open items and learnings with their time and source, and the key exchanges.

The values are the engine's (:func:`engine.queries.decisions.read_decisions`: the latest checkpoint merged with the
sidecar's live capture, open items marked stale); this module only draws them.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from engine import DecisionsDigest, NotedItem
from tui.shown import shown

__all__ = ["DecisionsView", "digest_content"]


def _when(iso: str, this_year: str) -> str:
    """``MM-DD HH:MM`` this year; ``YYYY-MM-DD HH:MM`` for another year, so an old item never looks recent."""
    if len(iso) < 16:
        return iso or ""
    return iso[5:16].replace("T", " ") if iso[:4] == this_year else iso[:16].replace("T", " ")


def _items(title: str, items: Sequence[NotedItem], empty: str, this_year: str, *,
           show_stale: bool = False) -> list[Content]:
    stale = [item for item in items if item.stale]
    listed = list(items) if show_stale else [item for item in items if not item.stale]
    lines = [Content.styled(f"{title} ({len(items) - len(stale)})", "bold $text-accent")]
    if not listed:
        lines.append(Content.styled(f"  {empty}", "$text-muted"))
    for item in listed:
        where = f" · {item.entry_id}" if item.entry_id else ""
        lines.append(Content.assemble(
            (f"  {_when(item.when, this_year):<11}  ", "$text-muted"),
            shown(item.text),
            shown(f"  [{item.source}{where}]", "$text-success" if item.source == "live" else "$text-secondary"),
            shown(f"  stale: {item.stale}", "$text-warning") if item.stale else "",
        ))
    if stale and not show_stale:
        lines.append(Content.styled(f"  + {len(stale)} stale (finished later or old): x shows them", "$text-muted"))
    return lines


def digest_content(digest: DecisionsDigest, *, show_stale: bool = False) -> Content:
    """The whole tab as lines: the three lists, then the key exchanges and the thread summary."""
    if digest.checkpoint_id:
        live = " + live capture since then" if digest.live else " (live capture off)"
        said = f"From checkpoint {digest.checkpoint_id}{live}; newest first."
    else:
        said = ("No checkpoint yet: live capture of the whole session; newest first." if digest.live
                else "No checkpoint yet and live capture is off.")
    lines = [shown(said, "$text-muted"), Content("")]
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
            shown(exchange.gist),
            shown(f"  [{exchange.entry_id}]" if exchange.entry_id else "", "$text-muted"),
        ))
    if digest.thread_summary:
        lines += [Content(""), Content.assemble(("Thread  ", "bold $text-accent"),
                                                          shown(digest.thread_summary, one_line=False))]
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
            text = shown(problem or "Decisions are not available.", "$text-error", one_line=False)
        else:
            text = digest_content(digest, show_stale=self.show_stale)
        self.query_one("#decisions-text", Static).update(text)

    def watch_show_stale(self) -> None:
        if self.is_mounted and self._shown[0] is not None:
            self.show(*self._shown)
