"""A report redoes only what changed: Claude Code and Codex usage from the index cache while their files are
unchanged, and the last report's output while nothing under its roots changed (docs/usage.md, docs/index.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.agents.claude_code import reader as claude_reader
from engine.agents.codex import reader as codex_reader
from engine.agents.discovery import discover_sessions
from engine.index.cache import IndexCache
from engine.session import agent_glance
from engine.usage.collect import collect_usage
from sim.agent_corpus import write_claude_code, write_codex
from tui.cli.main import EXIT_OK, main
from tui.cli.report_memo import load_output, report_stamp, save_output


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every Claude Code or Codex file read in full, in order."""
    seen: list[Path] = []
    real, quick = agent_glance.read_agent_session, claude_reader.read_usage

    def counted(source, env=None):  # type: ignore[no-untyped-def]
        seen.append(source.path)
        return real(source, env)

    def counted_quick(path, since=None):  # type: ignore[no-untyped-def]
        found = quick(path, since)
        if found is not None:  # else the full reader reads it, and is counted there
            seen.append(path)
        return found

    class CountedCodex(codex_reader.CodexReader):
        def __init__(self, path, env=None, *, usage_only=False):  # type: ignore[no-untyped-def]
            seen.append(path)
            super().__init__(path, env, usage_only=usage_only)

    # In the readers' own modules: agent_usage imports each agent's reader when it reads a file of that agent.
    monkeypatch.setattr(codex_reader, "CodexReader", CountedCodex)
    monkeypatch.setattr(agent_glance, "read_agent_session", counted)
    monkeypatch.setattr(claude_reader, "read_usage", counted_quick)
    return seen


@pytest.mark.parametrize("write", [write_claude_code, write_codex])
def test_unchanged_agent_files_come_from_the_index(write, tmp_path: Path, reads: list[Path]) -> None:  # type: ignore[no-untyped-def]
    files = list(write(tmp_path / "home", 3, turns=2))
    root = files[0].parents[1] if write is write_claude_code else tmp_path / "home" / "sessions"
    cold, problems = collect_usage(discover_sessions([root]), IndexCache(tmp_path / "cache"))
    assert problems == () and len(reads) == 3
    warm, _ = collect_usage(discover_sessions([root]), IndexCache(tmp_path / "cache"))
    assert len(reads) == 3 and sorted(warm, key=lambda u: u.key) == sorted(cold, key=lambda u: u.key)
    with files[1].open("ab") as out:  # a grown file is read again, and only it
        out.write(files[1].read_bytes().splitlines(keepends=True)[-1])
    collect_usage(discover_sessions([root]), IndexCache(tmp_path / "cache"))
    assert reads[3:] == [files[1]]


def test_an_unreadable_agent_file_stays_unreadable_from_the_index(tmp_path: Path, reads: list[Path]) -> None:
    files = list(write_claude_code(tmp_path / "home", 1, turns=1))
    junk = files[0].with_name("junk.jsonl")
    junk.write_text('{"sessionId": 5}\n{"x": 1}\n')  # Claude Code's shape, no record its reader knows
    for _ in range(2):
        usages, problems = collect_usage(discover_sessions([files[0].parent]), IndexCache(tmp_path / "cache"))
        assert len(usages) == 1 and len(problems) == 1
        assert f"{junk}: not a claude-code session ctxscope can read" in problems[0]
    assert len(reads) == 2  # each file read once: the second report took both answers from the index


def test_the_memo_answers_only_while_nothing_under_the_roots_changed(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    files = list(write_codex(root.parent, 2, turns=1))
    stamp = report_stamp([str(root)], ["by=day"])
    assert stamp is not None and stamp == report_stamp([str(root)], ["by=day"])
    assert report_stamp([str(root)], ["by=model"]) != stamp
    save_output(tmp_path / "memo", ["by=day"], stamp, (0, b"out", b"err"))
    assert load_output(tmp_path / "memo", ["by=day"], stamp) == (0, b"out", b"err")
    with files[0].open("ab") as out:
        out.write(b"\n")
    assert report_stamp([str(root)], ["by=day"]) != stamp
    stamp = report_stamp([str(root)], ["by=day"])
    (files[0].parent / "new.jsonl").write_text("")
    assert report_stamp([str(root)], ["by=day"]) != stamp
    stamp = report_stamp([str(root)], ["by=day"])
    files[1].read_bytes()  # reading (a report's own reads) changes nothing stamped
    assert report_stamp([str(root)], ["by=day"]) == stamp
    (root / "link.jsonl").symlink_to(files[1])  # a link's target lies outside the stamp: no memo
    assert report_stamp([str(root)], ["by=day"]) is None
    assert report_stamp([str(files[1])], ["by=day"]) is None  # a file root: discovery reads beside it


def test_a_second_report_prints_the_memo_and_a_change_runs_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("CTXSCOPE_NO_INDEX", raising=False)
    files = list(write_claude_code(tmp_path / "claude", 2, turns=2))
    root = str(tmp_path / "claude" / "projects")
    runs: list[int] = []
    from tui.cli import report_command

    real = report_command._report
    monkeypatch.setattr(report_command, "_report", lambda *a: runs.append(1) or real(*a))
    assert main(["report", root, "--json", "--utc"]) == EXIT_OK
    first = capsys.readouterr().out
    assert main(["report", root, "--json", "--utc"]) == EXIT_OK
    assert capsys.readouterr().out == first and len(runs) == 1
    assert main(["report", root, "--json", "--utc", "--by", "model"]) == EXIT_OK
    assert len(runs) == 2
    capsys.readouterr()
    lines = files[0].read_bytes().splitlines(keepends=True)
    files[0].write_bytes(b"".join(lines[:-4]))  # the file shrank: the report runs again and counts fewer calls
    assert main(["report", root, "--json", "--utc"]) == EXIT_OK
    assert len(runs) == 3 and capsys.readouterr().out != first
