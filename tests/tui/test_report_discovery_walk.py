"""A cold report walks its roots once: discovery takes the memo listing's walk (each directory's names, each
path's ``lstat``) instead of listing and stat'ing the same tree again, and a file whose place and name are Claude
Code's or Codex's is not opened to be told apart (docs/usage.md, Speed)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.agents import discovery as discovery_module
from engine.agents.discovery import discover_sessions
from sim.agent_corpus import write_claude_code, write_codex, write_openclaw, write_pi
from tui.cli.report_memo import Walk, take_listing


def _mixed(home: Path) -> list[Path]:
    """Every agent's files and the odd ones a sessions tree holds, under the roots returned."""
    list(write_pi(home / "pi", 2, session_bytes=5_000))
    list(write_openclaw(home / "oc", 2, session_bytes=5_000))
    claude = list(write_claude_code(home / ".claude", 3, turns=1))
    list(write_codex(home / ".codex", 3, turns=1))
    project = claude[0].parent
    (project / "00000000-0000-4000-8000-000000000000.jsonl").touch()  # empty: an agent creating it
    sub = project / claude[0].stem / "subagents"
    sub.mkdir(parents=True)
    (sub / "agent-a1.jsonl").write_bytes(claude[1].read_bytes())
    (project / "notes.jsonl").write_text('{"x": 1}\n')
    (project / "old.jsonl.bak").write_text("{}\n")
    (project / "s.jsonl.lock").write_text("{}\n")
    (project / "fifo.jsonl").parent.mkdir(exist_ok=True)
    os.mkfifo(project / "fifo.jsonl")
    (home / "pi" / ".hidden").mkdir()
    (home / "pi" / ".hidden" / "x.jsonl").write_text('{"type":"session","id":"h"}\n')
    (home / "oc" / "session-sqlite-import-archive").mkdir()
    (home / "oc" / "session-sqlite-import-archive" / "y.jsonl").write_text('{"type":"session","id":"y"}\n')
    return [home / "pi", home / "oc", home / ".claude" / "projects", home / ".codex" / "sessions"]


def _walk(roots: list[Path]) -> Walk:
    walk: Walk = ({}, {})
    assert take_listing([str(r) for r in roots], (), walk) is not None
    return walk


@pytest.mark.parametrize("relative", [False, True])
def test_discovery_over_the_listings_walk_finds_what_its_own_walk_finds(
    tmp_path: Path, relative: bool, monkeypatch: pytest.MonkeyPatch,
) -> None:
    roots = _mixed(tmp_path / "home")
    if relative:  # the report names its roots as typed: a relative root keeps its spelling in every path
        monkeypatch.chdir(tmp_path)
        roots = [r.relative_to(tmp_path) for r in roots]
    walked = discover_sessions(roots, walked=_walk(roots))
    assert walked == discover_sessions(roots)
    assert {s.format for s in walked.sessions} == {"pi-jsonl", "openclaw-jsonl", "claude-code-jsonl", "codex-jsonl"}
    assert any("fifo.jsonl: a FIFO" in p for p in walked.problems)


def test_discovery_over_the_walk_stats_no_walked_path_and_opens_no_agent_shaped_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    home = tmp_path / "home"
    claude = list(write_claude_code(home / ".claude", 3, turns=1))
    codex = list(write_codex(home / ".codex", 3, turns=1))
    roots = [home / ".claude" / "projects", home / ".codex" / "sessions"]
    walk = _walk(roots)
    looked: list[str] = []

    def counted(real):  # type: ignore[no-untyped-def]
        def look(path, *args, **kwargs):  # type: ignore[no-untyped-def]
            looked.append(os.fspath(path))
            return real(path, *args, **kwargs)
        return look

    for name in ("stat", "lstat", "open"):
        monkeypatch.setattr(os, name, counted(getattr(os, name)))
    monkeypatch.setattr(discovery_module, "read_head", counted(discovery_module.read_head))
    found = discover_sessions(roots, walked=walk)
    assert sorted(str(s.path) for s in found.sessions) == sorted(map(str, [*claude, *codex]))
    inside = [p for p in looked if any(p.startswith(str(r) + os.sep) for r in roots)]  # the roots: once each
    assert inside == [], inside[:5]
