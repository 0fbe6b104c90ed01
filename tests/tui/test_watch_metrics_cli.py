"""``ctxscope watch --metrics``: bad addresses and combinations, a taken port, and a host with no session yet."""

from __future__ import annotations

import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import SUBAGENT
from tui.cli import main as cli

WAIT = 60.0


def test_a_bad_address_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(SUBAGENT, tmp_path / SUBAGENT.name)
    assert cli.main(["--state-dir", str(tmp_path / "state"), "watch", str(tmp_path), "--metrics", "nowhere"]) == 2
    assert "expected PORT or HOST:PORT" in capsys.readouterr().err


def test_metrics_and_once_do_not_go_together(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(SUBAGENT, tmp_path / SUBAGENT.name)
    assert cli.main(["watch", str(tmp_path), "--once", "--metrics", "0"]) == 2
    assert "--once" in capsys.readouterr().err


def test_a_taken_port_fails_and_says_where(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(SUBAGENT, tmp_path / SUBAGENT.name)
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        code = cli.main(["--state-dir", str(tmp_path / "state"), "watch", str(tmp_path), "--metrics", str(port)])
    assert code == 1
    assert f"--metrics {port}: cannot listen there" in capsys.readouterr().err


@pytest.mark.e2e
def test_an_exporter_waits_for_the_first_session_instead_of_exiting(tmp_path: Path) -> None:
    ctxscope = shutil.which("ctxscope", path=str(Path(sys.executable).parent))
    assert ctxscope is not None, "the package is installed with its command"
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    (tmp_path / "config").mkdir()
    process = subprocess.Popen(
        [ctxscope, "--state-dir", str(tmp_path / "state"), "watch", str(sessions), "--metrics", "127.0.0.1:0"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True,
        env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")},
    )
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line.strip())

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        assert lines.get(timeout=WAIT) == "watching 0 session(s); Ctrl-C to stop"
        url = lines.get(timeout=WAIT).removeprefix("metrics at ")
        with urllib.request.urlopen(url, timeout=WAIT) as response:
            assert b'ctxscope_sessions_followed{host="' in response.read()
        assert process.poll() is None  # still running, waiting for an agent
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=WAIT)
        reader.join(timeout=WAIT)
        if process.stdout is not None:
            process.stdout.close()
    assert process.returncode == 0


def test_without_metrics_an_empty_directory_still_means_nothing_to_watch(tmp_path: Path) -> None:
    assert cli.main(["watch", str(tmp_path)]) == 3


_TERM_WHILE_STARTING = """
import asyncio, os, signal, sys
import tui.cli.watch_command as watch

real_run = asyncio.run

def late_start(main):
    # The loop starts late (a busy machine): the supervisor's SIGTERM comes before its handler is installed.
    os.kill(os.getpid(), signal.SIGTERM)
    return real_run(main)

watch.asyncio.run = late_start
from tui.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_sigterm_before_the_watch_loop_starts_stops_it_cleanly(tmp_path: Path) -> None:
    # Under load the test above failed now and then: "metrics at" is printed before the loop installs its SIGTERM
    # handler, and a SIGTERM in between killed the process (exit -15) without closing the metrics server.
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", _TERM_WHILE_STARTING, "--state-dir", str(tmp_path / "state"), "watch", str(sessions),
         "--metrics", "127.0.0.1:0"],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=WAIT,
        env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}, cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)
    assert done.stdout.splitlines()[0] == "watching 0 session(s); Ctrl-C to stop"
