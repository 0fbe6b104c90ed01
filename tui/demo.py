"""``ctxscope demo``: a simulated OpenClaw agent in its own process, and the TUI watching it.

The simulator (``python -m sim.simulate``) writes a pi-format session into an OpenClaw-like state dir under
the session lock, as a gateway would; the TUI follows it through the filesystem like any other session, and
checkpoints and the audit log go to the same state dir. The simulator never outlives the demo: it is terminated
on exit and, on Linux, the kernel sends it SIGTERM if the demo itself is killed.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from textual import on

from engine import Config
from sim import simulate
from tui.app import CtxscopeApp
from tui.cli.exit_codes import ExitCode
from tui.messages import SessionUpdated
from tui.screens.session_list import SessionChosen

__all__ = [
    "DEMO_KEY",
    "FAST_PACE",
    "DemoApp",
    "DemoDir",
    "prepare_demo_dir",
    "run_demo",
    "simulator_command",
    "start_simulator",
    "stop_simulator",
]

DEMO_KEY = "agent:main:main"
"""The session key the simulated agent writes under (its store row in ``sessions.json``)."""
FAST_PACE = 4.0
"""``--fast``: every feature within ~30 s instead of ~2 minutes."""
_START_TIMEOUT = 20.0
"""Seconds to wait for the simulator's first line before opening the TUI anyway (a loaded machine is slow)."""
_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True, slots=True)
class DemoDir:
    """The OpenClaw-like state dir the demo runs in."""

    root: Path
    temporary: bool
    """Created by the demo (removed on exit unless ``--keep``), as opposed to given with ``--state-dir``."""

    @property
    def sessions(self) -> Path:
        """Where the simulated agent's transcript and ``sessions.json`` are."""
        return self.root / "agents" / "main" / "sessions"

    @property
    def log(self) -> Path:
        """The simulator's stderr: kept so a crash can be explained after the TUI closes."""
        return self.root / "simulator.log"


def prepare_demo_dir(given: Path | None) -> DemoDir:
    """Lay out the state dir: ``given`` (kept afterwards), or a new temporary one."""
    if given is not None:
        return DemoDir(simulate.create_state_dir(given.expanduser().resolve()), temporary=False)
    root = Path(tempfile.mkdtemp(prefix="ctxscope-demo-"))
    return DemoDir(simulate.create_state_dir(root), temporary=True)


def simulator_command(root: Path, *, pace: float, seed: int, window: int) -> list[str]:
    """The simulator's command line: the installed ``engine`` package, run by this interpreter."""
    return [sys.executable, "-m", "sim.simulate", str(root), "--pace", repr(pace), "--seed", str(seed),
            "--window", str(window)]


def _die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` asking Linux to SIGTERM the child when the demo dies, even by ``kill -9``."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up before the fork: the child only calls it
    except (OSError, AttributeError):
        return None
    return lambda: prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def start_simulator(demo: DemoDir, *, pace: float, seed: int, window: int) -> subprocess.Popen[bytes]:
    """Start the simulated agent in its own process and session (terminal signals are the demo's to handle)."""
    with demo.log.open("wb") as log:
        return subprocess.Popen(
            simulator_command(demo.root, pace=pace, seed=seed, window=window),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log,
            cwd=demo.root,  # not the caller's cwd: a local ``engine/`` directory must not shadow the package
            start_new_session=True, preexec_fn=_die_with_parent(),
        )


def stop_simulator(process: subprocess.Popen[bytes], *, timeout: float = 5.0) -> int:
    """Terminate the simulator (it stops between writes on SIGTERM), kill it if it lingers; its exit code."""
    if process.poll() is None:
        process.terminate()
        try:
            return process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
    return process.wait()


def _wait_for_first_line(demo: DemoDir, before: set[Path], process: subprocess.Popen[bytes]) -> None:
    # Opening the TUI before the transcript exists would flash "no sessions found" at a new user.
    deadline = time.monotonic() + _START_TIMEOUT
    while time.monotonic() < deadline and process.poll() is None:
        if any(p.stat().st_size for p in demo.sessions.glob("*.jsonl") if p not in before):
            return
        time.sleep(0.05)


def _log_tail(demo: DemoDir, lines: int = 12) -> str:
    try:
        text = demo.log.read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.rstrip().splitlines()[-lines:])


class DemoApp(CtxscopeApp):
    """The app on the demo's sessions: opens the simulated session as soon as it appears, reports the simulator."""

    TITLE = "ctxscope demo"

    def __init__(
        self, paths: Sequence[Path], config: Config, *, simulator: subprocess.Popen[bytes], demo: DemoDir,
        **options: Any,
    ) -> None:
        super().__init__(paths, config, **options)  # force_polling, and for tests changes and clock
        self.simulator = simulator
        self.demo = demo
        self._opened = False
        self._reported = False

    @on(SessionUpdated)
    def _open_demo_session(self, message: SessionUpdated) -> None:
        # CtxscopeApp's own handler stores the snapshot first, so the SessionChosen posted here finds it.
        if not self._opened and message.key == DEMO_KEY and len(self.screen_stack) == 1:
            self._opened = True
            self.post_message(SessionChosen(message.key))

    def on_ready(self) -> None:
        self.set_interval(1.0, self._check_simulator)

    def _check_simulator(self) -> None:
        code = self.simulator.poll()
        if code is None or self._reported:
            return
        self._reported = True
        tail = _log_tail(self.demo, 1)
        self.tell(f"The simulated agent stopped (exit code {code}). {tail}".strip(),
                  title="Demo agent stopped", severity="error" if code else "information", timeout=30)


def _pace(args: argparse.Namespace) -> float:
    return FAST_PACE if args.fast else args.pace


def _window(args: argparse.Namespace) -> int:
    return args.window or simulate.DEMO_WINDOW


def _announce(demo: DemoDir, process: subprocess.Popen[bytes] | None, pace: float, *, tui: bool, keep: bool) -> None:
    fate = "kept" if keep or not demo.temporary else "removed on exit; --keep keeps them"
    who = f"simulated agent (pid {process.pid}, pace {pace:g}×)" if process else f"simulated agent (pace {pace:g}×)"
    tail = "" if tui else f"; watch it with: ctxscope --state-dir {demo.root} tui {demo.sessions}; Ctrl+C stops"
    print(f"ctxscope demo: {who} writing {demo.sessions}; checkpoints and audit in {demo.root / 'context'} "
          f"({fate}){tail}", flush=True)


def _clean_up(demo: DemoDir, keep: bool, process: subprocess.Popen[bytes] | None) -> None:
    if process is not None:
        stop_simulator(process)
    if demo.temporary and not keep:
        shutil.rmtree(demo.root, ignore_errors=True)


@contextmanager
def _cleaned_up_on_hangup(clean_up: Callable[[], None]) -> Iterator[None]:
    """On SIGHUP (terminal closed) or SIGTERM: clean up, then die of the signal as the process would have.

    Textual cannot shut down once its terminal is gone (it waits on its writer), so this does not ask the app
    to exit; it stops the simulator and removes the temporary dir itself.
    """

    def handler(signum: int, _frame: object) -> None:
        clean_up()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    previous = {signum: signal.signal(signum, handler) for signum in (signal.SIGHUP, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)


def _run_foreground(demo: DemoDir, args: argparse.Namespace) -> int:
    _announce(demo, None, _pace(args), tui=False, keep=args.keep)
    argv = [str(demo.root), "--pace", repr(_pace(args)), "--seed", str(args.seed), "--window", str(_window(args))]
    with _cleaned_up_on_hangup(lambda: _clean_up(demo, args.keep, None)):
        return simulate.main(argv)  # it handles SIGTERM itself: stops between writes and returns


def _run_with_tui(demo: DemoDir, args: argparse.Namespace, config: Config) -> int:
    before = set(demo.sessions.glob("*.jsonl"))
    process = start_simulator(demo, pace=_pace(args), seed=args.seed, window=_window(args))
    try:
        with _cleaned_up_on_hangup(lambda: _clean_up(demo, args.keep, process)):
            _announce(demo, process, _pace(args), tui=True, keep=args.keep)
            _wait_for_first_line(demo, before, process)
            DemoApp([demo.sessions], config, simulator=process, demo=demo, force_polling=args.force_polling).run()
    finally:
        crashed = process.poll()  # the story never ends: exiting before we stop it is a failure
        stop_simulator(process)
    if crashed is not None:
        print(f"ctxscope demo: the simulated agent stopped early (exit code {crashed}):\n{_log_tail(demo)}",
              file=sys.stderr)
        return ExitCode.FAILED
    return ExitCode.OK


def run_demo(args: argparse.Namespace, config: Config) -> int:
    """``ctxscope demo``: simulate an agent in a state dir and watch it (or, with ``--no-tui``, only simulate)."""
    demo = prepare_demo_dir(getattr(args, "state_dir", None))
    config = replace(config, state_dir=demo.root)  # checkpoints land beside the demo's sessions, never elsewhere
    try:
        if args.no_tui:
            return _run_foreground(demo, args)
        return _run_with_tui(demo, args, config)
    finally:
        _clean_up(demo, args.keep, None)
        if demo.temporary and args.keep:
            print(f"ctxscope demo: kept {demo.root}", flush=True)
