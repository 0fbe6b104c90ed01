"""The captured state on disk: ``<stateDir>/context/state/<safe_key>/*.json`` (docs/checkpoints.md, Layout).

Five files, each written atomically: ``decisions.json``, ``thread.json``, ``resources.json``,
``open_items.json`` and ``last_tool_call.json``. They hold what was captured since the last checkpoint;
a checkpoint bundles them and the state starts over. State whose ``captured_at`` is older than the latest
checkpoint is stale (left by a process that died before bundling, or already bundled) and is discarded on
load, never merged. Free text is redacted before it is written. Each file names its ``session_key``; a file of
another session is ignored on load.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from engine.capture.redact import redact_obj
from engine.capture.state import CapturedState
from engine.fs.atomic import write_atomic
from engine.fs.layout import session_state_dir
from engine.stores.timestamps import parse_iso

__all__ = ["LoadedState", "load_state", "save_state",]

_FILES = ("decisions.json", "thread.json", "resources.json", "open_items.json", "last_tool_call.json")


@dataclass(frozen=True, slots=True)
class LoadedState:
    """State read back from disk, and why it may have been discarded."""

    state: CapturedState
    captured_at: datetime | None
    stale: bool
    problems: tuple[str, ...] = ()


def _split(state: CapturedState, now: datetime) -> dict[str, Any]:
    data = redact_obj(state.to_dict())
    stamp = now.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return {
        # The ledger travels with the decisions: the item lists are read from it (docs/capture.md).
        "decisions.json": {"captured_at": stamp, "decisions": data["decisions"], "ledger": data["ledger"],
                           "done_items": data["done_items"]},
        "thread.json": {
            "captured_at": stamp,
            "failures": data["failures"],
            "last_agent_text": data["last_agent_text"],
            "last_entry_id": data["last_entry_id"],
            "last_line_no": data["last_line_no"],
            "entries_seen": data["entries_seen"],
            "real_user_messages": data["real_user_messages"],
            "updated_at": data["updated_at"],
        },
        "resources.json": {
            "captured_at": stamp,
            "tools_used": data["tools_used"],
            "files_read": data["files_read"],
            "files_modified": data["files_modified"],
        },
        "open_items.json": {"captured_at": stamp, "open_items": data["open_items"], "learnings": data["learnings"]},
        "last_tool_call.json": data["last_tool_call"],
    }


def save_state(state_dir: Path, key: str, state: CapturedState, *, now: datetime | None = None) -> Path:
    """Write the five state files atomically; returns their directory."""
    directory = session_state_dir(state_dir, key)
    for name, payload in _split(state, now or datetime.now(UTC)).items():
        if isinstance(payload, dict) and name != "last_tool_call.json":
            payload = {"session_key": key, **payload}
        write_atomic(directory / name, orjson.dumps(payload, option=orjson.OPT_INDENT_2), root=state_dir)
    return directory


def load_state(state_dir: Path, key: str, *, latest_checkpoint_at: datetime | None = None) -> LoadedState:
    """Read the state files; missing or corrupt files read as empty, stale state is discarded."""
    directory = session_state_dir(state_dir, key)
    merged: dict[str, Any] = {}
    problems: list[str] = []
    captured: datetime | None = None
    for name in _FILES:
        path = directory / name
        try:
            payload = orjson.loads(path.read_bytes())
        except FileNotFoundError:
            continue
        except (OSError, orjson.JSONDecodeError) as exc:
            problems.append(f"{path}: unreadable ({exc}); ignored")
            continue
        if name == "last_tool_call.json":
            merged["last_tool_call"] = payload
            continue
        if not isinstance(payload, dict):
            problems.append(f"{path}: expected an object; ignored")
            continue
        owner = payload.pop("session_key", key)
        if owner != key:
            problems.append(f"{path}: belongs to session {owner!r}; ignored")
            continue
        stamp = parse_iso(payload.pop("captured_at", None))
        if stamp is not None and (captured is None or stamp < captured):
            captured = stamp
        merged.update(payload)
    state = CapturedState.from_dict(merged)
    stale = captured is not None and latest_checkpoint_at is not None and captured < latest_checkpoint_at
    if stale:
        return LoadedState(CapturedState(), captured, True, tuple(problems))
    return LoadedState(state, captured, False, tuple(problems))
