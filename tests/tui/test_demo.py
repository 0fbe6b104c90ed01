"""``ctxscope demo``: its flags, its directory's lifetime, the simulator process, and the app it opens.

The full run in a real terminal is ``test_e2e_demo.py``; here each part is checked on its own.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pytest
from textual.notifications import Notify

from engine.config.loader import Config
from sim.simulate import DEMO_WINDOW, run_simulation
from tests.tui.app_factory import FIXED_NOW, wait_until
from tui import demo
from tui.cli import main as cli
from tui.follow import ChangeQueue
from tui.screens.session_view import SessionScreen


def _parse(*argv: str) -> argparse.Namespace:
    return cli.build_parser().parse_args(["demo", *argv])


class TestFlags:
    def test_defaults_pace_one_and_the_simulators_window(self) -> None:
        args = _parse()
        assert (args.pace, args.fast, args.seed, args.keep, args.no_tui) == (1.0, False, 7, False, False)
        assert demo._window(args) == DEMO_WINDOW
        assert demo._pace(args) == 1.0

    def test_fast_is_pace_four(self) -> None:
        assert demo._pace(_parse("--fast")) == demo.FAST_PACE == 4.0

    def test_pace_and_fast_exclude_each_other(self, capsys: pytest.CaptureFixture[str]) -> None:
        with pytest.raises(SystemExit):
            _parse("--fast", "--pace", "2")
        assert "not allowed with" in capsys.readouterr().err

    def test_state_dir_works_before_or_after_the_subcommand(self, tmp_path: Path) -> None:
        after = cli.build_parser().parse_args(["demo", "--state-dir", str(tmp_path)])
        before = cli.build_parser().parse_args(["--state-dir", str(tmp_path), "demo"])
        assert after.state_dir == before.state_dir == tmp_path
        assert cli.build_parser().parse_args(["demo"]).state_dir is None

    def test_the_simulator_runs_under_this_interpreter_as_a_module(self, tmp_path: Path) -> None:
        command = demo.simulator_command(tmp_path, pace=4.0, seed=3, window=64_000)
        assert command[:3] == [sys.executable, "-m", "sim.simulate"]
        assert command[3:] == [str(tmp_path), "--pace", "4.0", "--seed", "3", "--window", "64000"]


class TestDirectory:
    def test_a_temporary_dir_is_laid_out_like_openclaw(self) -> None:
        made = demo.prepare_demo_dir(None)
        try:
            assert made.temporary
            assert (made.sessions / "sessions.json").read_text() == "{}"
            assert made.sessions == made.root / "agents" / "main" / "sessions"
        finally:
            demo._clean_up(made, False, None)
        assert not made.root.exists()

    def test_a_given_dir_is_used_and_kept(self, tmp_path: Path) -> None:
        made = demo.prepare_demo_dir(tmp_path / "mine")
        demo._clean_up(made, False, None)
        assert not made.temporary
        assert made.sessions.is_dir()

    @pytest.mark.parametrize("keep", [False, True])
    def test_run_demo_removes_its_temporary_dir_unless_keep(
        self, keep: bool, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        seen: list[tuple[Path, Path | None]] = []
        monkeypatch.setattr(demo, "_run_with_tui", lambda d, args, config: seen.append((d.root, config.state_dir)) or 0)
        args = _parse(*(["--keep"] if keep else []))
        assert demo.run_demo(args, Config()) == 0
        root, state_dir = seen[0]
        assert state_dir == root  # checkpoints land in the demo's own state dir
        assert root.exists() == keep
        assert ("kept" in capsys.readouterr().out) == keep
        if keep:
            demo._clean_up(demo.DemoDir(root, temporary=True), False, None)


def test_the_simulator_writes_a_session_and_stops_on_request(tmp_path: Path) -> None:
    made = demo.prepare_demo_dir(tmp_path / "state")
    process = demo.start_simulator(made, pace=4.0, seed=7, window=DEMO_WINDOW)
    try:
        demo._wait_for_first_line(made, set(), process)
        transcripts = list(made.sessions.glob("*.jsonl"))
        assert process.poll() is None, made.log.read_text()
        assert len(transcripts) == 1 and transcripts[0].stat().st_size > 0
    finally:
        code = demo.stop_simulator(process)
    assert code in (0, -15)  # 0 once its SIGTERM handler is installed; -15 if it was still importing


class _FakeSimulator:
    """Stands in for the simulator's Popen: ``poll`` says whether (and how) it exited."""

    def __init__(self, code: int | None = None) -> None:
        self.code = code
        self.pid = 4242

    def poll(self) -> int | None:
        return self.code


async def test_the_app_opens_the_simulated_session_as_soon_as_it_appears(tmp_path: Path) -> None:
    made = demo.prepare_demo_dir(tmp_path / "state")
    run_simulation(made.root, pace=0, max_turns=2)
    app = demo.DemoApp([made.sessions], Config(state_dir=made.root), simulator=_FakeSimulator(),  # type: ignore[arg-type]
                       demo=made, changes=ChangeQueue(), clock=lambda: FIXED_NOW)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, SessionScreen))
        assert app.screen.key == demo.DEMO_KEY  # type: ignore[attr-defined]
        assert app.title == "ctxscope demo"


async def test_the_app_says_when_the_simulator_stopped_and_why(tmp_path: Path) -> None:
    made = demo.prepare_demo_dir(tmp_path / "state")
    made.log.write_text("Traceback (most recent call last):\nValueError: the story ran out\n")
    notes: list[str] = []
    app = demo.DemoApp([made.sessions], Config(state_dir=made.root), simulator=_FakeSimulator(1),  # type: ignore[arg-type]
                       demo=made, changes=ChangeQueue(), clock=lambda: FIXED_NOW)

    def hook(message: object) -> None:
        if isinstance(message, Notify):
            notes.append(message.notification.message)

    async with app.run_test(size=(100, 30), message_hook=hook) as pilot:
        deadline = time.monotonic() + 30
        while not notes and time.monotonic() < deadline:  # the check runs on a 1 s interval
            await pilot.pause(0.1)
    assert notes == ["The simulated agent stopped (exit code 1). ValueError: the story ran out"]


def test_the_demo_subcommand_is_listed_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["demo", "--help"])
    out = capsys.readouterr().out
    assert "--no-tui" in out and "--keep" in out and f"{DEMO_WINDOW // 1000}k" in out
