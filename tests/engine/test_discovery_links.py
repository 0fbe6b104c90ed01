"""Discovery resolves each directory once, from its parent's resolution when it is no link itself: a file reached
through a linked directory, or a linked ancestor, is still the file it names, counted once (docs/usage.md)."""

from __future__ import annotations

from pathlib import Path

from engine.agents.discovery import discover_sessions
from sim.agent_corpus import write_codex


def test_a_rollout_named_through_a_linked_directory_is_one_session(tmp_path: Path) -> None:
    rollout = next(iter(write_codex(tmp_path / "home", 1, turns=1)))
    day = rollout.parent
    (tmp_path / "linked-day").symlink_to(day, target_is_directory=True)
    (tmp_path / "linked-home").symlink_to(tmp_path / "home", target_is_directory=True)
    through_ancestor = tmp_path / "linked-home" / rollout.relative_to(tmp_path / "home")
    found = discover_sessions([rollout, tmp_path / "linked-day" / rollout.name, through_ancestor])
    assert len(found.sessions) == 1 and found.problems == ()
