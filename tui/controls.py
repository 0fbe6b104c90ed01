"""The engine operations behind the control keys and the audit pane: where the engine plugs in.

A runner takes the session's latest snapshot and the config, runs in a worker thread, and returns the line to
show the user (raising reports a failure); ``controls.wire("diff", diff_latest)`` backs a key with one. The App
wires ``force_checkpoint`` to its own sidecar (one :class:`~engine.sidecar.ContextManager` for the whole app)
and opens the compaction dialog for ``compact`` and ``prune``. When the engine module an action needs is
missing, pressing its key explains that instead of failing silently.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.config.loader import Config, resolve_state_dir
from engine.session.snapshot import SessionSnapshot
from engine.stores.source import SessionSource

__all__ = [
    "CONTROL_SPECS",
    "ControlRunner",
    "ControlSpec",
    "Controls",
    "HistoryItem",
    "HistoryLoader",
    "default_controls",
    "session_state_dir",
]

ControlRunner = Callable[[SessionSnapshot, Config], str]


@dataclass(frozen=True, slots=True)
class HistoryItem:
    """One line of a history pane."""

    time: str
    title: str
    detail: str = ""


HistoryLoader = Callable[[SessionSnapshot, Config], tuple[HistoryItem, ...]]


@dataclass(frozen=True, slots=True)
class ControlSpec:
    """An App action backed by an engine operation."""

    action: str
    title: str
    help: str
    module: str
    """The engine module that provides the operation."""
    doing: str
    """What the action does, completing "Can't …"."""


CONTROL_SPECS: tuple[ControlSpec, ...] = (
    ControlSpec("force_checkpoint", "Force checkpoint", "Write a checkpoint of the session now",
                "engine.sidecar", "write a checkpoint"),
    ControlSpec("enriched_checkpoint", "Checkpoint with LLM decisions",
                "Write a checkpoint now, with decisions found by the LLM in the config's llm: section",
                "engine.llm.enrich", "write an enriched checkpoint"),
    ControlSpec("compact", "Compact", "Preview a compaction (layer, focus, tokens before/after, cost) and apply it",
                "engine.compaction.planner", "compact the session"),
    ControlSpec("prune", "Prune tool outputs", "Preview clearing old tool outputs and apply it",
                "engine.compaction.planner", "prune the session"),
    ControlSpec("diff", "Diff checkpoints", "Compare the latest checkpoint with the previous one",
                "engine.checkpoints.diff", "diff checkpoints"),
)


def _module_exists(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ImportError:
        return False


class Controls:
    """The runners and history loaders the App may use; anything not wired is reported, never faked."""

    def __init__(self, *, module_exists: Callable[[str], bool] = _module_exists) -> None:
        self._runners: dict[str, ControlRunner] = {}
        self._loaders: dict[str, HistoryLoader] = {}
        self._module_exists = module_exists

    def wire(self, action: str, runner: ControlRunner) -> None:
        """Back ``action`` (``force_checkpoint``, ``enriched_checkpoint``, ``diff``, …) with an engine runner."""
        self._runners[action] = runner

    def wire_history(self, pane: str, loader: HistoryLoader) -> None:
        """Fill a history pane (``audit``) with ``loader``."""
        self._loaders[pane] = loader

    def runner(self, action: str) -> ControlRunner | None:
        return self._runners.get(action)

    def loader(self, pane: str) -> HistoryLoader | None:
        return self._loaders.get(pane)

    def spec(self, action: str) -> ControlSpec:
        return next(s for s in CONTROL_SPECS if s.action == action)

    def has_module(self, action: str) -> bool:
        """Whether the engine module behind ``action`` is installed."""
        return self._module_exists(self.spec(action).module)

    def missing(self, action: str) -> str | None:
        """Why ``action`` cannot run in this install, or ``None`` when a runner is wired."""
        if action in self._runners:
            return None
        spec = self.spec(action)
        if not self._module_exists(spec.module):
            return f"Can't {spec.doing}: this install of ctxscope has no {spec.module} module."
        return f"Can't {spec.doing} from the TUI yet: {spec.module} is installed but not wired to this key."


def session_state_dir(source: SessionSource, config: Config) -> Path:
    """Where ctxscope keeps a session's checkpoints, state and audit log (docs/checkpoints.md, Layout)."""
    return resolve_state_dir(source.state_dir, config)


def _audit(snapshot: SessionSnapshot, config: Config) -> tuple[HistoryItem, ...]:
    """The session's audit records, newest first."""
    from engine.fs.audit import read_audit

    records = [r for r in read_audit(session_state_dir(snapshot.source, config)) if r.session_key == snapshot.key]
    return tuple(
        HistoryItem(r.time, f"{r.action} · {r.result}", r.error or _params(r.params, r.plan))
        for r in reversed(records)
    )


def _params(params: Mapping[str, Any], plan: Mapping[str, Any]) -> str:
    shown = dict(params)
    shown.pop("path", None)  # the same for every record of a session
    before, after = plan.get("tokens_before"), plan.get("tokens_after")
    if isinstance(before, int) and isinstance(after, int):
        shown["message tokens"] = f"{before:,} → {after:,}"
    return ", ".join(f"{k}={v}" for k, v in shown.items() if v not in (None, False, ""))


def _diff_latest(snapshot: SessionSnapshot, config: Config) -> str:
    from engine.checkpoints.diff import diff_checkpoints
    from engine.checkpoints.store import list_checkpoints, read_checkpoint

    refs = list_checkpoints(session_state_dir(snapshot.source, config), snapshot.key)
    if len(refs) < 2:
        return f"{len(refs)} checkpoint{'s' if len(refs) != 1 else ''} so far: a diff needs two. Press c to write one."
    diff = diff_checkpoints(read_checkpoint(refs[-2]), read_checkpoint(refs[-1]))
    changes = [f"{name} +{len(c.added)}/-{len(c.removed)}" for name, c in diff.lists if c.changed]
    return f"{diff.old_id} → {diff.new_id}: tokens {diff.token_delta:+,}; " + (
        ", ".join(changes) if changes else "no list changed"
    )


def default_controls() -> Controls:
    """The controls of this install: the audit pane and the checkpoint diff (the App wires the rest)."""
    controls = Controls()
    controls.wire_history("audit", _audit)
    if _module_exists("engine.checkpoints.diff"):
        controls.wire("diff", _diff_latest)
    return controls
