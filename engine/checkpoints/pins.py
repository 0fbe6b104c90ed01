"""Checkpoints the user marked are pinned: retention keeps them while they are marked (docs/checkpoints.md, Pins).

With retention 5 and a checkpoint every 10–20 s, a checkpoint marked for comparison was deleted within a minute,
and its mark with it. The TUI records its marks here (``pinned.json`` beside the checkpoints, written atomically
and audited); :func:`engine.checkpoints.store.write_checkpoint` never deletes a pinned one. What retention did
delete is in the audit log (``deleted`` of each checkpoint record): :func:`removed_by_retention` lists it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import orjson

from engine.checkpoints.legacy_dirs import checkpoint_dirs, readable_checkpoint_dir
from engine.fs.atomic import write_atomic
from engine.fs.audit import read_audit, record_action
from engine.fs.layout import display_key

__all__ = ["PINS_NAME", "pins_of", "read_pins", "removed_by_retention", "set_pins"]

PINS_NAME = "pinned.json"


def read_pins(directory: Path) -> frozenset[str]:
    """The pinned checkpoint ids in a session's checkpoint directory (none when the file is absent or unreadable:
    a broken pin file must never stop a checkpoint from being written)."""
    try:
        data = orjson.loads((directory / PINS_NAME).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return frozenset()
    ids = data.get("pinned") if isinstance(data, dict) else None
    return frozenset(i for i in ids if isinstance(i, str)) if isinstance(ids, list) else frozenset()


def pins_of(state_dir: Path, key: str) -> frozenset[str]:
    """The pinned checkpoint ids of session ``key`` (its identity: copies keep their own; docs/checkpoints.md)."""
    return read_pins(readable_checkpoint_dir(state_dir, key)[0])


def set_pins(state_dir: Path, key: str, ids: Iterable[str]) -> frozenset[str]:
    """Pin exactly ``ids`` (the marked checkpoints) of session ``key``; atomic and audited."""
    pinned = frozenset(ids)
    directory, _ = checkpoint_dirs(state_dir, key)
    if pinned == read_pins(directory):
        return pinned
    directory.mkdir(parents=True, exist_ok=True)
    write_atomic(directory / PINS_NAME, orjson.dumps({"pinned": sorted(pinned)}), root=state_dir)
    record_action(state_dir, "pin", display_key(key), params={"pinned": sorted(pinned)})
    return pinned


def removed_by_retention(state_dir: Path, key: str) -> tuple[str, ...]:
    """The checkpoint ids retention deleted for ``key``, oldest first (from the audit log)."""
    removed: list[str] = []
    shown = display_key(key)  # the audit log names a session as write_checkpoint does
    for record in read_audit(state_dir):
        if record.action == "checkpoint" and record.session_key == shown and record.result == "ok":
            removed += [d for d in record.plan.get("deleted") or () if isinstance(d, str)]
    return tuple(removed)
