"""By hand, automated: the TUI in a real terminal (tmux with ``set-clipboard on``) on a session whose key, model,
project and tool names hold click markup, OSC 52, OSC 0, CSI, C1 and bidi controls (issue 25, classes 1 and 2;
docs/hostile-input.md). tmux turns an OSC 52 into a paste buffer and an OSC 0 into the pane's title, so both are
checked where a user would notice them, after the list is drawn and after a click on every cell of the screen.

Waits poll the screen, never sleep a fixed time: the app handles input in order, so the help screen opened after
the clicks shows only once every click was handled.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.adversarial._harness import ROOT, cli_env, write_config
from tests.adversarial._hostile import ACTION, BIDI, C1, CSI, OSC0, OSC52, OSC52_ST, hostile_conversation, hostile_store

pytestmark = [pytest.mark.e2e, pytest.mark.reliability]

WIDTH, HEIGHT = 120, 36


class Tmux:
    """A private tmux server whose clipboard takes OSC 52, with one window."""

    def __init__(self, name: str) -> None:
        self.base = ["tmux", "-L", name, "-f", os.devnull]

    def run(self, *args: str, check: bool = True) -> str:
        return subprocess.run([*self.base, *args], capture_output=True, text=True, check=check, timeout=30).stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "t")

    def buffers(self) -> str:
        return self.run("list-buffers", check=False)

    def title(self) -> str:
        return self.run("display-message", "-p", "-t", "t", "#{pane_title}").strip()


@pytest.fixture
def tmux() -> Iterator[Tmux]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed: this test runs the TUI in a real terminal")
    term = Tmux(f"ctxscope-hostile-{os.getpid()}")
    term.run("new-session", "-d", "-s", "t", "-x", str(WIDTH), "-y", str(HEIGHT), "sh")
    term.run("set-option", "-g", "set-clipboard", "on")
    try:
        yield term
    finally:
        subprocess.run([*term.base, "kill-server"], capture_output=True, timeout=30)


def _poll(probe: Callable[[], object], what: str, tmux: Tmux, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while not probe():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}; screen:\n{tmux.screen()}")
        time.sleep(0.2)


def _thread_dump(tmux: Tmux, dump: Path) -> str:
    """Every thread's Python stack of the app in the pane (its ``SIGUSR1`` handler writes them to ``dump``), for
    a failure message that says where the app is stuck."""
    shell = tmux.run("display-message", "-p", "-t", "t", "#{pane_pid}").strip()
    children = subprocess.run(["pgrep", "-P", shell], capture_output=True, text=True, check=False).stdout.split()
    if not children:
        return f"(no process under the pane's shell {shell}: the app has exited)"
    for pid in children:
        os.kill(int(pid), signal.SIGUSR1)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not (dump.exists() and dump.stat().st_size):
        time.sleep(0.2)
    if not dump.exists():
        return "(no thread dump written)"
    # Idle pool threads say nothing; the main thread, Textual's input thread and busy workers do.
    blocks = dump.read_text(errors="replace").split("\n\n")
    return "\n\n".join(b for b in blocks if "concurrent/futures/thread.py\", line 81 in _worker" not in b)


_DUMP_ON_SIGNAL = """\
import faulthandler, os, signal
if os.environ.get("TEST_THREAD_DUMP"):
    _DUMP = open(os.environ["TEST_THREAD_DUMP"], "w")
    faulthandler.register(signal.SIGUSR1, file=_DUMP, all_threads=True)
"""


def _click_everywhere(tmux: Tmux, rows: range) -> None:
    """A left click (SGR mouse press and release) on every cell of ``rows`` (1-based)."""
    for y in rows:
        clicks = "".join(f"\x1b[<0;{x};{y}M\x1b[<0;{x};{y}m" for x in range(1, WIDTH + 1))
        tmux.run("send-keys", "-t", "t", "-l", clicks)


def test_class_01_02_no_clipboard_write_no_title_change_no_action_in_a_real_terminal(tmux: Tmux,
                                                                                   tmp_path: Path) -> None:
    # The control: this tmux does take a clipboard write and a title from a program's output.
    tmux.run("send-keys", "-t", "t", "printf '\\033]52;c;Q09OVFJPTA==\\007\\033]0;control\\007'; clear", "Enter")
    _poll(lambda: "CONTROL" in tmux.buffers() and tmux.title() == "control", "the control sequences", tmux)
    tmux.run("delete-buffer")
    value = f"{ACTION}click me {OSC52}{OSC52_ST}{OSC0}{CSI}{C1}{BIDI}"
    store = hostile_store(tmp_path / "openclaw", {
        f"a:[@click=app.screenshot('pwned')]{OSC52}{OSC0}": (hostile_conversation(value, tokens=120_000),
                                                              f"/work/proj {value}")})
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    cwd.mkdir()
    write_config(home, "auto_checkpoint_idle: 100000d\n")
    env = {k: v for k, v in cli_env(home).items() if k not in os.environ or os.environ[k] != v}
    # Textual reads input 4 KiB at a time, which splits one of these thousands of click sequences at every read; if
    # its input thread then waits over ESCDELAY (100 ms) to look again, as on a busy CI machine, the half sequence is
    # taken for an Escape and typed keys. A terminal sends each real click whole, so the harness gives it 5 s.
    env["ESCDELAY"] = "5000"
    # A failure should say where the app is: a sitecustomize (imported at start-up, before the app) dumps its threads
    # on SIGUSR1; it changes nothing else.
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(_DUMP_ON_SIGNAL)
    env["PYTHONPATH"] = f"{tmp_path / 'site'}{os.pathsep}{ROOT}"
    env["TEST_THREAD_DUMP"] = str(tmp_path / "threads.txt")
    assignments = [f"{k}={v}" for k, v in env.items()]
    command = shlex.join(["env", "-u", "COLUMNS", "-u", "LINES", *assignments, sys.executable, "-m", "tui.cli.main",
                          "tui", str(store), "--state-dir", str(tmp_path / "state")])
    tmux.run("send-keys", "-t", "t", f"cd {shlex.quote(str(cwd))} && {command}", "Enter")
    # The list, or what the old code did first: write the clipboard (and clear the screen with the CSI).
    _poll(lambda: tmux.buffers() or ("q Quit" in tmux.screen() and "1 session" in tmux.screen()), "the list", tmux)
    assert (tmux.buffers(), tmux.title()) == ("", "control")
    screen = tmux.screen()
    assert "␛]0;pwned-title␇" in screen and "␛]52;c;SGVsbG" in screen  # shown, not obeyed
    # First the preview's title (the key, project and model, where a click ran the action), before a click on the
    # table opens the session; then every row but the footer, whose q quits.
    title = next(n for n, line in enumerate(screen.splitlines(), start=1) if line.startswith("╭─ a:"))
    _click_everywhere(tmux, range(title, title + 1))
    _click_everywhere(tmux, range(1, HEIGHT))
    # The notices (`n`, answered on every screen and in every dialog, which a click may have left open: the risk
    # detail, a message) are only a marker that every click was handled. A CI run once never answered `?`; if the
    # app stops answering, the failure ends with where each of its threads is.
    tmux.run("send-keys", "-t", "t", "n")
    try:
        _poll(lambda: "Notices (" in tmux.screen(), "the notices after the clicks", tmux, timeout=90)
    except AssertionError as exc:
        raise AssertionError(f"{exc}\nthe app's threads:\n{_thread_dump(tmux, tmp_path / 'threads.txt')}") from None
    assert (tmux.buffers(), tmux.title()) == ("", "control")
    # Every click on the list's row once pushed another session screen (~110 stacked). Now at most three Escapes (the
    # notices, a dialog a click opened, the session) go back to the list.
    for _ in range(3):
        tmux.run("send-keys", "-t", "t", "Escape")
        try:
            _poll(lambda: "1 session" in tmux.screen() and "Overview" not in tmux.screen(), "the list", tmux,
                  timeout=20)
            break
        except AssertionError:
            continue
    else:
        raise AssertionError(f"three Escapes did not go back to the list; screen:\n{tmux.screen()}")
    assert (tmux.buffers(), tmux.title()) == ("", "control")
    assert not [p for p in [*tmp_path.rglob("pwned*"), *Path.home().glob("Downloads/pwned*")]]
