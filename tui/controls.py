"""What the control keys may do right now, and why not: a pure policy the App consults (no Textual).

:class:`ControlPolicy` answers "can ``action`` run on this session, and if not, why" from engine values only (the
snapshot, the lock as last read, the config), so the footer, the help screen, the palette and the key press all
give the same reason, and the rules are tested without an App. The runner of ``d`` lives here too: it reads engine
values and returns text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engine import (
    Config,
    LockInfo,
    SessionSnapshot,
    SessionSource,
    SessionTracker,
    agent_compaction_problem,
    diff_checkpoints,
    list_checkpoints,
    missing_extra,
    read_checkpoint,
    resolve_state_dir,
)
from engine.compaction.planner import choose_controller
from engine.config.llm_settings import NEEDS_LLM
from engine.live.insight import blocking_lock

__all__ = [
    "CONTROL_ACTIONS",
    "CONTROL_SPECS",
    "ControlPolicy",
    "ControlRunner",
    "ControlSpec",
    "checkpoint_runner",
    "compaction_refusal",
    "diff_latest",
    "session_state_dir",
]

ControlRunner = Callable[[SessionSnapshot, Config], str]
"""Runs one control on a snapshot in a worker thread; returns the line to show (raising reports a failure)."""


@dataclass(frozen=True, slots=True)
class ControlSpec:
    """A control action: its palette title, its help, and what it does (completing "Can't …")."""

    action: str
    title: str
    help: str
    doing: str


CONTROL_SPECS: tuple[ControlSpec, ...] = (
    ControlSpec("force_checkpoint", "Force checkpoint", "Write a checkpoint of the session now", "write a checkpoint"),
    ControlSpec("enriched_checkpoint", "Checkpoint with LLM decisions",
                "Write a checkpoint now, with decisions found by the LLM in the config's llm: section",
                "write an enriched checkpoint"),
    ControlSpec("compact", "Compact", "Preview a compaction (layer, focus, tokens before/after, cost) and apply it",
                "compact the session"),
    ControlSpec("prune", "Prune tool outputs", "Preview clearing old tool outputs and apply it", "prune the session"),
    ControlSpec("diff", "Diff checkpoints", "Compare the latest checkpoint with the previous one", "diff checkpoints"),
)
CONTROL_ACTIONS = frozenset(spec.action for spec in CONTROL_SPECS)


def compaction_refusal(
    snapshot: SessionSnapshot, action: str, lock: LockInfo | None, config: Config, label: str
) -> str | None:
    """Why ``snapshot`` cannot be compacted (``action`` ``compact``) or pruned (``prune``) now, or ``None``."""
    controller, refusal = choose_controller(snapshot.source, config.compaction.controller)
    if refusal is not None:
        return refusal
    agent_problem = agent_compaction_problem(snapshot.source, action)  # Claude Code, Codex (docs/agents.md)
    if agent_problem is not None:
        return agent_problem
    if action == "prune" and controller == "gateway":
        where = "lives in OpenClaw's SQLite store, which only the gateway writes" if (
            snapshot.source.in_database) else "is compacted through the gateway"
        return f"{label} {where}, and the gateway cannot prune; press k to ask it to compact"
    holder = blocking_lock(lock) if controller == "jsonl" else None
    if holder is not None and holder.problem is not None:
        return holder.problem
    if holder is not None:
        return (f"pid {holder.pid} holds {holder.path.name}: an agent is writing this session and ctxscope "
                "never breaks a live lock; retry when its run ends")
    return None


@dataclass(frozen=True, slots=True)
class ControlPolicy:
    """Which control actions may run on a session, and the one reason shown everywhere when one may not."""

    config: Config

    def spec(self, action: str) -> ControlSpec:
        """The spec of ``action`` (raises ``StopIteration`` for an action that is not a control)."""
        return next(s for s in CONTROL_SPECS if s.action == action)

    def unavailable(
        self, action: str, snapshot: SessionSnapshot | None, lock: LockInfo | None, label: str
    ) -> str | None:
        """Why ``action`` cannot run on ``snapshot`` now (``lock`` as last read), or ``None`` when it can."""
        if snapshot is None:
            return "select a session first"
        if action == "enriched_checkpoint" and self.config.llm is None:
            return f"it {NEEDS_LLM}"
        if action == "enriched_checkpoint" and (problem := missing_extra("llm")) is not None:
            return problem
        if action in ("compact", "prune"):
            return compaction_refusal(snapshot, action, lock, self.config, label)
        return None


def session_state_dir(source: SessionSource, config: Config) -> Path:
    """Where ctxscope keeps a session's checkpoints, state and audit log (``--state-dir``, docs/checkpoints.md)."""
    return resolve_state_dir(source.state_dir, config)


def diff_latest(snapshot: SessionSnapshot, config: Config) -> str:
    """``d``: the latest checkpoint against the previous one, in one line."""
    refs = list_checkpoints(session_state_dir(snapshot.source, config), snapshot.source.identity)
    if len(refs) < 2:
        return f"{len(refs)} checkpoint{'s' if len(refs) != 1 else ''} so far: a diff needs two. Press c to write one."
    diff = diff_checkpoints(read_checkpoint(refs[-2]), read_checkpoint(refs[-1]))
    changes = [f"{name} +{len(c.added)}/-{len(c.removed)}" for name, c in diff.lists if c.changed]
    return f"{diff.old_id} → {diff.new_id}: tokens {diff.token_delta:+,}; " + (
        ", ".join(changes) if changes else "no list changed"
    )


def checkpoint_runner(tracker: SessionTracker, *, enrich: bool = False) -> ControlRunner:
    """The runner of ``c`` (and of ``C`` with ``enrich``: the configured LLM's decisions merged in)."""

    def write(snapshot: SessionSnapshot, config: Config) -> str:
        event = tracker.write_checkpoint(snapshot.key, "manual", enrich=config.llm if enrich else None)
        if event.kind != "checkpoint":
            raise RuntimeError(event.message)
        return event.short_message

    return write
