"""The control policy, without an App: what may run on a session now and the one reason when not."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from engine.config.llm_settings import LLMConfig
from engine.config.loader import Config
from engine.fs.session_lock import LockInfo
from engine.session.snapshot import SessionSnapshot, snapshot_session
from engine.stores.source import SessionSource
from tests.conftest import RESET_ARCHIVE, SUBAGENT
from tui.controls import CONTROL_ACTIONS, ControlPolicy

LLM = LLMConfig(kind="openai", base_url="http://127.0.0.1:1/v1", model="m", api_key_env="K")


def _snapshot(path: Path, kind: str = "live") -> SessionSnapshot:
    return snapshot_session(SessionSource(key=path.name, path=path, format="openclaw-jsonl", kind=kind))  # type: ignore[arg-type]


def _held_by_another_process(path: Path) -> LockInfo:
    return LockInfo(path=path.with_name(path.name + ".lock"), pid=os.getpid() + 1, created_at=None, starttime=None,
                    alive=True, stale=False, reason="held")


def test_nothing_runs_without_a_session() -> None:
    policy = ControlPolicy(Config())
    for action in CONTROL_ACTIONS:
        assert policy.unavailable(action, None, None, "") == "select a session first"


def test_a_live_session_allows_every_control_but_the_llm_checkpoint_until_an_llm_is_configured() -> None:
    snapshot = _snapshot(SUBAGENT)
    plain = ControlPolicy(Config())
    assert {a for a in CONTROL_ACTIONS if plain.unavailable(a, snapshot, None, "s") is None} == (
        CONTROL_ACTIONS - {"enriched_checkpoint"})
    assert "llm:" in (plain.unavailable("enriched_checkpoint", snapshot, None, "s") or "")
    with_llm = ControlPolicy(replace(Config(), llm=LLM))
    assert with_llm.unavailable("enriched_checkpoint", snapshot, None, "s") is None


def test_an_archive_cannot_be_compacted_or_pruned_but_can_be_checkpointed() -> None:
    snapshot = _snapshot(RESET_ARCHIVE, kind="archive")
    policy = ControlPolicy(Config())
    assert "archive" in (policy.unavailable("compact", snapshot, None, "s") or "")
    assert policy.unavailable("prune", snapshot, None, "s") is not None
    assert policy.unavailable("force_checkpoint", snapshot, None, "s") is None


def test_a_lock_held_by_a_live_process_blocks_compaction_and_names_the_pid() -> None:
    snapshot = _snapshot(SUBAGENT)
    policy = ControlPolicy(Config())
    lock = _held_by_another_process(SUBAGENT)
    reason = policy.unavailable("compact", snapshot, lock, "s") or ""
    assert f"pid {lock.pid}" in reason and "never breaks a live lock" in reason
    assert policy.unavailable("diff", snapshot, lock, "s") is None  # reading checkpoints needs no lock


def test_a_stale_lock_or_our_own_does_not_block() -> None:
    snapshot = _snapshot(SUBAGENT)
    policy = ControlPolicy(Config())
    stale = replace(_held_by_another_process(SUBAGENT), stale=True, alive=False, reason="dead-pid")
    ours = replace(_held_by_another_process(SUBAGENT), pid=os.getpid())
    assert policy.unavailable("compact", snapshot, stale, "s") is None
    assert policy.unavailable("compact", snapshot, ours, "s") is None


def test_every_control_action_has_a_spec_with_a_title() -> None:
    policy = ControlPolicy(Config())
    assert all(policy.spec(a).title for a in CONTROL_ACTIONS)
