"""What changed between two checkpoints: a structured diff and a raw unified YAML diff (docs/checkpoints.md, Diff)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass

from engine.checkpoints.model import Checkpoint

__all__ = ["CheckpointDiff", "ListChange", "TextChange", "diff_checkpoints", "raw_diff"]


def _norm(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True, slots=True)
class ListChange:
    """Items of one list that appeared or disappeared (compared with whitespace normalised)."""

    added: tuple[str, ...] = ()
    """In the newer checkpoint only, in its order."""
    removed: tuple[str, ...] = ()
    """In the older checkpoint only, in its order."""

    @property
    def changed(self) -> bool:
        """Whether anything was added or removed."""
        return bool(self.added or self.removed)


@dataclass(frozen=True, slots=True)
class TextChange:
    """One text field in both checkpoints."""

    old: str
    new: str

    @property
    def changed(self) -> bool:
        """Whether the text differs beyond whitespace."""
        return _norm(self.old) != _norm(self.new)


@dataclass(frozen=True, slots=True)
class CheckpointDiff:
    """The structured difference from checkpoint ``old_id`` to ``new_id``."""

    old_id: str
    new_id: str
    trigger: TextChange
    """Each checkpoint's ``meta.trigger``."""
    topic: TextChange
    status: TextChange
    token_delta: int
    """``input_tokens`` of the new one minus the old one (negative after a compaction)."""
    utilization_delta: float
    """Change of ``utilization`` as a ratio (0.05 = five points)."""
    compaction_delta: int
    decisions: ListChange
    open_items: ListChange
    learnings: ListChange
    files_read: ListChange
    files_modified: ListChange
    tools: ListChange

    @property
    def lists(self) -> tuple[tuple[str, ListChange], ...]:
        """The list changes with display names, in display order."""
        return (
            ("decisions", self.decisions),
            ("open items", self.open_items),
            ("learnings", self.learnings),
            ("files read", self.files_read),
            ("files modified", self.files_modified),
            ("tools", self.tools),
        )

    @property
    def is_empty(self) -> bool:
        """Whether nothing but ids, triggers and token figures changed."""
        return not (self.topic.changed or self.status.changed or any(c.changed for _, c in self.lists))


def _unique(items: Iterable[str]) -> dict[str, str]:
    """Normalised form -> first original, in order; blank items dropped."""
    out: dict[str, str] = {}
    for item in items:
        key = _norm(item)
        if key and key not in out:
            out[key] = item
    return out


def _list_change(old: Iterable[str], new: Iterable[str]) -> ListChange:
    before, after = _unique(old), _unique(new)
    return ListChange(
        added=tuple(v for k, v in after.items() if k not in before),
        removed=tuple(v for k, v in before.items() if k not in after),
    )


def diff_checkpoints(a: Checkpoint, b: Checkpoint) -> CheckpointDiff:
    """How ``b`` (newer) differs from ``a`` (older); decisions are compared by their text, not their ids."""
    ua, ub = a.meta.token_usage, b.meta.token_usage
    return CheckpointDiff(
        old_id=a.meta.checkpoint_id,
        new_id=b.meta.checkpoint_id,
        trigger=TextChange(a.meta.trigger, b.meta.trigger),
        topic=TextChange(a.working.topic, b.working.topic),
        status=TextChange(a.working.status, b.working.status),
        token_delta=ub.input_tokens - ua.input_tokens,
        utilization_delta=ub.utilization - ua.utilization,
        compaction_delta=b.meta.compaction_count - a.meta.compaction_count,
        decisions=_list_change((d.what for d in a.decisions), (d.what for d in b.decisions)),
        open_items=_list_change(a.open_items, b.open_items),
        learnings=_list_change(a.learnings, b.learnings),
        files_read=_list_change(a.resources.files_read, b.resources.files_read),
        files_modified=_list_change(a.resources.files_modified, b.resources.files_modified),
        tools=_list_change(a.resources.tools_used, b.resources.tools_used),
    )


def _lines(text: str) -> list[str]:
    # Split on "\n" only: str.splitlines() would also split on \x85, U+2028 and form feeds inside values.
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def raw_diff(a_text: str, b_text: str, *, a_name: str = "a", b_name: str = "b", context: int = 3) -> str:
    """A unified diff of two checkpoint YAML texts (empty when they are equal)."""
    out = list(difflib.unified_diff(_lines(a_text), _lines(b_text), a_name, b_name, n=context, lineterm=""))
    return "\n".join(out) + "\n" if out else ""
