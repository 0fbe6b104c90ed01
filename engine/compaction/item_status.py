"""Whether an open item still stands: finished later in the transcript, or simply old.

An open item (a TODO, a next step) is recorded when it is said; the transcript may finish it later ("Done: add
the retry test", a ``- [x]`` line, a ``Completed:`` list). :func:`completions` reads those statements from the
context with the summary extractor (docs/compaction.md, summarize and full), and :func:`stale_reason` says why an
item no longer stands: a completion that resolves it (:func:`engine.compaction.summary_merge.resolves`), or an
age past the configured ``open_items_max_age``. Only the redacted text is read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from engine.accounting.context import ContextMessage
from engine.compaction.layer_summary import build_span
from engine.compaction.span_text import redacted_loader
from engine.compaction.summary_extract import span_facts
from engine.compaction.summary_merge import resolves
from engine.stores.entries import Entry
from engine.stores.timestamps import parse_iso

__all__ = ["completions", "stale_reason"]


def completions(messages: Sequence[ContextMessage], load: Callable[[Entry], Mapping[str, Any]]) -> tuple[str, ...]:
    """The completion statements of ``messages`` (blocking: re-reads and redacts their text)."""
    span = build_span(messages, redacted_loader(load), {})
    return tuple(fact.text for fact in span_facts(span).facts if fact.kind in ("done", "closed"))


def stale_reason(item: str, when: str, done: Sequence[str], now: datetime, max_age_seconds: float) -> str | None:
    """Why ``item`` (recorded at ISO time ``when``) no longer stands, or ``None`` while it does."""
    finished = next((statement for statement in done if resolves(statement, item)), None)
    if finished is not None:
        return f"done later: {finished}"
    recorded = parse_iso(when)
    if recorded is not None and (now - recorded).total_seconds() > max_age_seconds:
        days = (now - recorded).days
        return f"{days} day{'s' if days != 1 else ''} old"
    return None
