"""The public JSON of a compaction plan, declared once (docs/compaction.md, Plan JSON).

``ctxscope compact --dry-run --json``, the audit's readers and scripts read these keys; :data:`PLAN_JSON` lays them
out over :class:`~engine.compaction.plan.CompactionPlan`'s attributes, and :func:`laid_out` builds the object, so
a key is added in one place and a figure is never computed twice.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from engine.compaction.degradation import GuardDecision
from engine.compaction.plan_parts import MessagePreview

__all__ = ["PLAN_JSON", "Section", "Spec", "laid_out"]


@dataclass(frozen=True, slots=True)
class Section:
    """A nested JSON object: ``keys`` read from the value at ``path`` (the whole object ``null`` when ``when``,
    read there, is ``None``); with ``rows``, the value at ``path`` is a sequence and each item becomes one."""

    path: str
    keys: Mapping[str, Spec]
    when: str | None = None
    rows: bool = False


Spec = str | Section | Callable[[Any], Any]
"""An attribute path, a nested object, or a function of the value."""


def _fields_of(cls: type) -> dict[str, str]:
    """Every field of a dataclass under its own name."""
    return {f.name: f.name for f in fields(cls)}


PLAN_JSON: Mapping[str, Spec] = {
    "session_key": "session_key",
    "path": "path",
    "format": "source.format",
    "layer": "layer",
    "focus": "focus",
    "controller": "controller",
    "leaf_id": "leaf_id",
    # null where pi's prepareCompaction returns nothing (the path already ends on a compaction).
    "cut_point": Section("", {
        "first_kept_entry_id": "first_kept_entry_id",
        "first_kept_line": "first_kept_line",
        "split_turn": "split_turn",
        "turn_start_entry_id": "turn_start_entry_id",
        "keep_recent_tokens": "keep_recent_tokens",
        "tokens_before": "tokens_before_estimate",
    }, when="first_kept_entry_id"),
    "keep_recent_tokens": "keep_recent_tokens",
    "protected_budget": lambda p: p.protected.to_dict() if p.protected is not None else None,
    "budget_note": "budget_note",
    "messages": Section("", {"summarized": "messages_summarized", "kept": "messages_kept"}),
    "tokens": Section("figures", {
        "method": "token_method",
        "summarized": "tokens_summarized",
        "kept": "tokens_kept",
        "summary": "summary_tokens",
        "checkpoint_message": "checkpoint_tokens",
        "before": "tokens_before",
        "after": "tokens_after",
        "overhead": "overhead_tokens",
        "context_before": "context_tokens_before",
        "context_after": "context_tokens_after",
        "agent_estimate_before": "tokens_before_estimate",
    }),
    "summary": "summary",
    "summary_source": "summary_source",
    "summary_edited": "summary_edited",
    "read_files": "read_files",
    "modified_files": "modified_files",
    "pinned": "pinned",
    "dropped": Section("dropped", _fields_of(MessagePreview), rows=True),
    "kept_ids": "kept_ids",
    "cost": Section("cost", {
        "cache_write_cost_usd": "cache_write_cost_usd",
        "tokens_saved_per_turn": "tokens_saved_per_turn",
        "saved_per_turn_usd": "saved_per_turn_usd",
        "break_even_turns": "break_even_turns",
        "price_source": "price_source",
    }, when="cost"),
    "degradation": Section("degradation", {
        "level": "report.level",
        "compaction_count": "report.compaction_count",
        "information_loss": "report.information_loss",
        "recommendation": "report.recommendation",
        "warnings": "warnings",
    }, when="degradation"),
    "guard": Section("guard", _fields_of(GuardDecision), when="guard"),
    "checkpoint_id": "checkpoint.ref.checkpoint_id",
    "archive": Section("archive", {"path": "path", "record_id": "record_id", "messages": lambda a: len(a.messages)},
                       when="archive"),
    "openclaw_budget": "openclaw_budget",
    "warnings": "warnings",
    "blocked": "blocked",
    "applicable": "applicable",
    "needs_confirmation": "needs_confirmation",
    "automatic": "automatic",
    "created_at": "created_at",
}
"""The public JSON of a plan (``compact --dry-run --json``, read by scripts and tests): JSON key → attribute path
of :class:`CompactionPlan` (dotted; ``None`` anywhere on the way gives ``null``). Keys and order are a contract
(docs/compaction.md, Plan JSON)."""


def _read(value: Any, path: str) -> Any:
    for name in path.split(".") if path else ():
        if value is None:
            return None
        value = getattr(value, name)
    return value


def _plain(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return dict(value)
    return value


def laid_out(value: Any, layout: Mapping[str, Spec]) -> dict[str, Any]:
    """``value`` as the JSON object ``layout`` describes."""
    out: dict[str, Any] = {}
    for key, spec in layout.items():
        if isinstance(spec, Section):
            inner = _read(value, spec.path)
            if spec.when is not None and _read(value, spec.when) is None:
                out[key] = None
            elif spec.rows:
                out[key] = [laid_out(item, spec.keys) for item in inner]
            else:
                out[key] = laid_out(inner, spec.keys)
        elif callable(spec):
            out[key] = _plain(spec(value))
        else:
            out[key] = _plain(_read(value, spec))
    return out
