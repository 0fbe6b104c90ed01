"""``ctxscope`` and ``ctxscope tui``: launch the app, or print the demo hint when there is nothing to show."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SUBAGENT
from tests.tui.app_factory import copy_fixtures
from tui.app import CtxscopeApp
from tui.cli import main as cli


@pytest.fixture
def no_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A machine with no agent sessions and no ctxscope config."""
    for name in ("OPENCLAW_STATE_DIR", "PI_CODING_AGENT_DIR", "CTXSCOPE_STATE_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path


@pytest.fixture
def launched(monkeypatch: pytest.MonkeyPatch) -> list[CtxscopeApp]:
    apps: list[CtxscopeApp] = []
    monkeypatch.setattr(CtxscopeApp, "run", lambda self, *a, **k: apps.append(self))
    monkeypatch.setattr(cli, "terminal_missing", lambda: None, raising=False)  # as if in a terminal
    return apps


def test_bare_ctxscope_without_sessions_suggests_the_demo(
    no_home: Path, launched: list[CtxscopeApp], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main([]) == 0
    assert "Try `ctxscope demo`" in capsys.readouterr().out
    assert launched == []


def test_bare_ctxscope_with_sessions_launches_the_tui(no_home: Path, launched: list[CtxscopeApp]) -> None:
    copy_fixtures([SUBAGENT], no_home / "home" / ".pi" / "agent" / "sessions" / "--work--")
    assert cli.main([]) == 0
    assert len(launched) == 1 and launched[0].tracker.paths == ()


def test_tui_on_a_directory_launches_even_before_sessions_appear(
    no_home: Path, launched: list[CtxscopeApp]
) -> None:
    (no_home / "empty").mkdir()
    assert cli.main(["tui", str(no_home / "empty"), "--force-polling"]) == 0
    assert launched[0].tracker.paths == (no_home / "empty",)
    assert launched[0].force_polling is True


def test_tui_runs_the_sidecar_with_auto_checkpoints_unless_told_not_to(
    no_home: Path, launched: list[CtxscopeApp]
) -> None:
    (no_home / "empty").mkdir()
    assert cli.main(["tui", str(no_home / "empty")]) == 0
    assert cli.main(["tui", "--no-auto-checkpoints", str(no_home / "empty")]) == 0
    (no_home / "config" / "ctxscope").mkdir(parents=True)
    (no_home / "config" / "ctxscope" / "config.yaml").write_text("auto_checkpoints: false\n")
    assert cli.main(["tui", str(no_home / "empty")]) == 0
    assert [app.manager.auto_checkpoints for app in launched] == [True, False, False]
    assert all(app.tracker.manager is app.manager for app in launched)


@pytest.mark.parametrize("command", ["status", "tui", "watch"])
def test_a_missing_path_exits_3_and_names_it(
    no_home: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = no_home / "no" / "such" / "dir"
    assert cli.main([command, str(missing)]) == 3
    assert f"{missing}: no such file or directory" in capsys.readouterr().err


def test_global_options_work_after_the_subcommand_too(no_home: Path, tmp_path: Path) -> None:
    sessions = copy_fixtures([SUBAGENT], tmp_path / "sessions")
    state = tmp_path / "state-after"
    assert cli.main(["checkpoint", str(sessions / SUBAGENT.name), "--state-dir", str(state)]) == 0
    assert list(state.rglob("cp_001.yaml"))
    before = tmp_path / "state-before"
    assert cli.main(["--state-dir", str(before), "checkpoint", str(sessions / SUBAGENT.name)]) == 0
    assert list(before.rglob("cp_001.yaml"))


def test_a_config_file_that_does_not_exist_is_a_usage_error(no_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["status", "--config", str(no_home / "nope.yaml")]) == 2
    assert "does not exist" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["report", "--since", "2026-13-01"], ["report", "--by", "fortnight"], ["compact"],
                                  ["bogus"]])
def test_a_usage_error_is_one_line_that_points_at_the_help(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    # argparse printed its usage block first (five lines for report), so the error itself scrolled out of view.
    with pytest.raises(SystemExit) as exit_info:
        cli.main(argv)
    assert exit_info.value.code == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "usage:" not in err
    assert "error: " in err and err.rstrip().endswith("--help`)")


def test_diff_with_fewer_than_two_checkpoints_fails_with_a_sentence(
    no_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sessions = copy_fixtures([SUBAGENT], tmp_path / "sessions")
    transcript = str(sessions / SUBAGENT.name)
    assert cli.main(["--state-dir", str(tmp_path / "st"), "checkpoint", transcript]) == 0
    assert cli.main(["--state-dir", str(tmp_path / "st"), "diff", transcript]) == 1
    assert "has 1 checkpoint; a diff needs two" in capsys.readouterr().err


def test_bare_ctxscope_opens_before_the_agent_wrote_a_session_when_its_directory_exists(
    no_home: Path, launched: list[CtxscopeApp]
) -> None:
    (no_home / "home" / ".openclaw").mkdir(parents=True)  # OpenClaw installed, no session yet
    assert cli.main([]) == 0
    assert len(launched) == 1


def test_tui_without_a_terminal_refuses_at_once_instead_of_running_blind(tmp_path: Path) -> None:
    # Issue 28 item 13: stdin on /dev/null and output to a file ran the TUI for ten minutes at 81% CPU.
    sessions = copy_fixtures([SUBAGENT], tmp_path / "sessions")
    out = tmp_path / "out.txt"
    with out.open("wb") as sink:
        try:
            done = subprocess.run([sys.executable, "-m", "tui.cli.main", "--state-dir", str(tmp_path / "state"), "tui",
                                   str(sessions)], stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.PIPE,
                                  timeout=120, cwd=Path(__file__).resolve().parents[2], check=False)
        except subprocess.TimeoutExpired:
            pytest.fail("the TUI ran without a terminal")
    assert done.returncode == cli.EXIT_USAGE
    assert b"needs a terminal" in done.stderr


@pytest.mark.parametrize("content", ["meeting notes, not a session\n", '{"type": "note"}\n'])
def test_tui_refuses_a_file_that_is_no_session_like_status(
    no_home: Path, launched: list[CtxscopeApp], capsys: pytest.CaptureFixture[str], content: str
) -> None:
    for name in ("notes.txt", "notes.jsonl"):
        notes = no_home / name
        notes.write_text(content)
        assert cli.main(["status", str(notes)]) == cli.EXIT_FAILED
        status_err = capsys.readouterr().err
        assert cli.main(["tui", str(notes)]) == cli.EXIT_FAILED
        said = capsys.readouterr().err
        assert said and said.splitlines()[0] == status_err.splitlines()[0]  # the same reason, in the same words
    assert launched == []
