"""End to end: the installed ``ctxscope demo`` in a real terminal (tmux), driven by keys, checked on disk.

Everything waits by polling the screen, the files or the process table, never by fixed sleeps, with generous
deadlines for a loaded 2-core CI machine; on failure the message includes the last screen.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from engine.checkpoints.yaml_io import load_checkpoint
from engine.fs.layout import session_checkpoint_dir
from tui.demo import DEMO_KEY

pytestmark = pytest.mark.e2e

T = TypeVar("T")
GAUGE = re.compile(r"(\d+)%\s+([\d,]+) / ([\d,]+) tokens")
EXIT = re.compile(r"E2E-EXIT=(\d+)")


def _installed_ctxscope() -> Path | None:
    beside = Path(sys.executable).with_name("ctxscope")  # the console script of the venv running the tests
    if beside.is_file():
        return beside
    found = shutil.which("ctxscope")
    return Path(found) if found else None


class Terminal:
    """One tmux server on a private socket, with one 100×32 window."""

    def __init__(self, name: str) -> None:
        self.base = ["tmux", "-L", name, "-f", os.devnull]

    def run(self, *args: str) -> str:
        return subprocess.run([*self.base, *args], capture_output=True, text=True, check=True, timeout=30).stdout

    def start(self, command: str) -> None:
        self.run("new-session", "-d", "-s", "e2e", "-x", "100", "-y", "32", command)

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-J", "-t", "e2e")

    def press(self, key: str) -> None:
        self.run("send-keys", "-t", "e2e", key)

    def close(self) -> None:
        subprocess.run([*self.base, "kill-server"], capture_output=True, timeout=30)


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed: this test drives the installed ctxscope in a real terminal")
    term = Terminal(f"ctxscope-e2e-{os.getpid()}")
    try:
        yield term
    finally:
        term.close()


def _poll(probe: Callable[[], T | None], *, timeout: float, what: str, terminal: Terminal) -> T:
    deadline = time.monotonic() + timeout
    while True:
        found = probe()
        if found is not None:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}; screen:\n{terminal.screen()}")
        time.sleep(0.2)


def _simulator_pids(state_dir: Path) -> set[int]:
    out = subprocess.run(["ps", "-ww", "-eo", "pid=,args="], capture_output=True, text=True, check=True).stdout
    return {int(line.split(None, 1)[0]) for line in out.splitlines()
            if "sim.simulate" in line and str(state_dir) in line}


def _readings(screen: str) -> tuple[str, ...]:
    return tuple(match.group(0) for match in GAUGE.finditer(screen))


def test_demo_gauge_moves_c_writes_a_manual_checkpoint_q_stops_the_simulator(
    terminal: Terminal, tmp_path: Path
) -> None:
    ctxscope = _installed_ctxscope()
    if ctxscope is None:
        pytest.skip("the ctxscope command is not installed (pip install -e . or the wheel)")
    state = tmp_path / "demo"
    command = shlex.join(["env", f"XDG_CONFIG_HOME={tmp_path / 'config'}",
                          str(ctxscope), "demo", "--fast", "--state-dir", str(state)])
    terminal.start(f"{command}; echo E2E-EXIT=$?; sleep 600")  # the pane stays to show how it ended

    first = _poll(lambda: _readings(terminal.screen()) or None, timeout=60, what="the gauge", terminal=terminal)
    def moved() -> tuple[str, ...] | None:
        now = _readings(terminal.screen())
        return now if now and now != first else None

    _poll(moved, timeout=60, what=f"the gauge to move from {first}", terminal=terminal)
    simulators = _simulator_pids(state)
    assert len(simulators) == 1, f"expected one simulator process for {state}, found {simulators}"

    directory = session_checkpoint_dir(state, DEMO_KEY)
    before = set(directory.glob("cp_*.yaml"))  # the sidecar may write its own (80%, pre-compaction) meanwhile

    def manual_checkpoint() -> Path | None:
        for path in sorted(set(directory.glob("cp_*.yaml")) - before):
            if load_checkpoint(path.read_text(encoding="utf-8")).meta.trigger == "manual":
                return path
        return None

    terminal.press("c")
    written = _poll(manual_checkpoint, timeout=45, what="a manual checkpoint on disk", terminal=terminal)
    checkpoint = load_checkpoint(written.read_text(encoding="utf-8"))
    assert checkpoint.meta.session_key == DEMO_KEY
    assert checkpoint.meta.token_usage.input_tokens > 0

    terminal.press("q")
    exited = _poll(lambda: EXIT.search(terminal.screen()), timeout=45, what="ctxscope to exit", terminal=terminal)
    assert exited.group(1) == "0", terminal.screen()
    _poll(lambda: not (simulators & _simulator_pids(state)) or None, timeout=15,
          what=f"the simulator {simulators} to stop", terminal=terminal)
    screen = terminal.screen()
    assert f"writing {state / 'agents' / 'main' / 'sessions'}" in screen  # the line printed before the TUI
    assert (state / "agents" / "main" / "sessions" / "sessions.json").is_file()  # a given --state-dir is kept
