"""``ctxscope`` and ``ctxscope tui``: launch the app, or print the demo hint when there is nothing to show."""

from __future__ import annotations

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


def test_tui_on_a_missing_path_explains_and_exits_zero(
    no_home: Path, launched: list[CtxscopeApp], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["tui", str(no_home / "missing")]) == 0
    captured = capsys.readouterr()
    assert "no such file or directory" in captured.err
    assert "No sessions found" in captured.out and launched == []


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
