"""Measure: does confirming the compact dialog by keyboard, while the demo agent writes, apply the compaction?

Issue 28 asks for 10 of 10. Each try is a new ``ctxscope demo`` (pace 1, the installed command) in a private tmux
server at the given size: wait until the gauge passes the try's ``--at`` percent (the list is cycled, so the
dialog opens at different moments of the agent's run, up to its own compaction at 84%), press ``k``, wait until
the dry run is on screen, press ``ctrl+s`` once (and, only when the dialog asks for the explicit risk confirmation,
``ctrl+t`` then ``ctrl+s``), and read the outcome from the audit log the app writes (``ok`` = applied, ``refused``,
``failed``, ``cancelled``) — or, when nothing is audited within the deadline, the dialog's status line (the dialog
stayed open and says why). Nothing is retried; every try is reported with what the screen said. ``--same-demo``
runs every try in one demo, as a user compacting again and again would: the degradation risk rises with each
compaction (the agent's own and ours), so later tries meet the guard.

    .venv/bin/python bench/confirm_keys.py --tries 10 --size 120x36
    .venv/bin/python bench/confirm_keys.py --tries 10 --size 80x24
    .venv/bin/python bench/confirm_keys.py --tries 10 --size 120x36 --same-demo
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.fs.audit import read_audit

T = TypeVar("T")
GAUGE = re.compile(r"(\d+)%\s+[\d,]+ / [\d,]+ tokens")
STATUS = re.compile(r"(ready · \S+ via \S+|plan changed — review|tick the confirmation(?: \(\^t\))? to \w+"
                    r"|blocked: [^\n│]*?nothing will be written|not (?:compacted|pruned): [^\n│]*|no plan)")
EXITED = re.compile(r"CONFIRM-EXIT=(\d+)")


class Terminal:
    """A private tmux server with one window of the measured size."""

    def __init__(self, name: str, size: tuple[int, int]) -> None:
        self.base = ["tmux", "-L", name, "-f", os.devnull]
        self.size = size

    def run(self, *args: str) -> str:
        return subprocess.run([*self.base, *args], capture_output=True, text=True, check=True, timeout=30).stdout

    def start(self, command: str) -> None:
        width, height = self.size
        self.run("new-session", "-d", "-s", "m", "-x", str(width), "-y", str(height), command)

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-J", "-t", "m")

    def press(self, key: str) -> None:
        self.run("send-keys", "-t", "m", key)

    def close(self) -> None:
        subprocess.run([*self.base, "kill-server"], capture_output=True, timeout=30)


def _poll(probe: Callable[[], T | None], timeout: float) -> T | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = probe()
        if found is not None:
            return found
        time.sleep(0.2)
    return None


def _utilization(screen: str) -> int | None:
    found = GAUGE.findall(screen)
    return int(found[0]) if found else None


def _start_demo(ctxscope: Path, size: tuple[int, int], name: str) -> tuple[Terminal, Path, Path]:
    root = Path(tempfile.mkdtemp(prefix="ctxscope-confirm-"))
    state = root / "demo"
    command = shlex.join(["env", f"XDG_CONFIG_HOME={root / 'config'}", str(ctxscope), "demo", "--state-dir",
                          str(state)])
    terminal = Terminal(name, size)
    terminal.start(f"{command}; echo CONFIRM-EXIT=$?; sleep 300")
    return terminal, state, root


def _stop_demo(terminal: Terminal, root: Path, keep: Path | None, label: str) -> None:
    if keep is not None:
        (keep / f"{label}-screen.txt").write_text(terminal.screen(), encoding="utf-8")
    terminal.press("Escape")
    terminal.press("q")
    _poll(lambda: EXITED.search(terminal.screen()), 30)
    terminal.close()
    if keep is None:
        shutil.rmtree(root, ignore_errors=True)
    else:
        print(f"  kept {root}", flush=True)


def _audited(state: Path) -> list[str]:
    """The results of the compactions and prunes audited so far (dry runs aside)."""
    return [record.result + (f" ({record.error})" if record.error else "") for record in read_audit(state)
            if record.action in ("compact", "prune") and record.result != "dry-run"]


def confirm_once(terminal: Terminal, state: Path, at: int, *, rearm: bool = False) -> tuple[str, str]:
    """Wait for the gauge, press k, wait for the dry run, confirm with ctrl+s; tick the risk box (ctrl+t) and
    confirm again only when the dialog asks for it. (outcome, detail).

    ``rearm``: first wait for the gauge to read below ``at`` (the previous try's compaction on screen), so the same
    demo is not asked again before it has grown back.
    """
    before = len(_audited(state))
    if rearm:
        _poll(lambda: ((util := _utilization(terminal.screen())) is not None and util < at) or None, 60)

    def gauge_at() -> int | str | None:
        screen = terminal.screen()
        if EXITED.search(screen):
            return "exited"
        util = _utilization(screen)
        return util if util is not None and util >= at else None

    reached = _poll(gauge_at, 240)
    if reached == "exited":
        return "app-exited", "the demo exited:\n" + terminal.screen()
    if reached is None:
        return "no-gauge", f"the gauge did not reach {at}%"
    terminal.press("k")
    status = _poll(lambda: (m := STATUS.search(terminal.screen())) and m.group(1), 90)
    if status is None:
        return "no-dialog", "no dry run on screen within 90 s"
    terminal.press("C-s")
    ticked = ""
    if _poll(lambda: "(^t)" in terminal.screen() or None, 3) is not None:
        ticked = "; asked for the risk tick: ctrl+t, ctrl+s"
        terminal.press("C-t")
        time.sleep(0.5)
        terminal.press("C-s")
    result = _poll(lambda: found[0] if (found := _audited(state)[before:]) else None, 60)
    if result is None:
        last = STATUS.search(terminal.screen())
        terminal.press("Escape")
        return "dialog-open", f"before: {status}{ticked}; after: {last.group(1) if last else '(no status)'}"
    return result.split(" ")[0], f"before: {status}{ticked}; audit: {result}"


def one_try(ctxscope: Path, size: tuple[int, int], at: int, index: int, keep: Path | None) -> tuple[str, str]:
    """One try on a new demo: (outcome, detail)."""
    terminal, state, root = _start_demo(ctxscope, size, f"ctxscope-confirm-{os.getpid()}-{index}")
    try:
        return confirm_once(terminal, state, at)
    finally:
        _stop_demo(terminal, root, keep, f"try{index:02}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tries", type=int, default=10)
    parser.add_argument("--size", default="120x36")
    parser.add_argument("--at", default="40,50,60,70,80", metavar="PERCENTS",
                        help="press k once the gauge reads this percent, cycled over the tries (default: 40,50,…,80)")
    parser.add_argument("--same-demo", action="store_true",
                        help="every try in one demo run (the risk rises with each compaction) instead of a new one")
    parser.add_argument("--keep-screens", type=Path, metavar="DIR", help="save each try's last screen here")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        print("tmux is not installed", file=sys.stderr)
        return 2
    ctxscope = Path(sys.executable).with_name("ctxscope")
    width, height = (int(n) for n in args.size.split("x"))
    if args.keep_screens is not None:
        args.keep_screens.mkdir(parents=True, exist_ok=True)
    percents = [int(p) for p in args.at.split(",")]
    counts: Counter[str] = Counter()
    shared = _start_demo(ctxscope, (width, height), f"ctxscope-confirm-{os.getpid()}") if args.same_demo else None
    try:
        for index in range(1, args.tries + 1):
            started = time.monotonic()
            at = percents[(index - 1) % len(percents)]
            if shared is None:
                outcome, detail = one_try(ctxscope, (width, height), at, index, args.keep_screens)
            else:
                outcome, detail = confirm_once(shared[0], shared[1], at, rearm=index > 1)
            counts[outcome] += 1
            print(f"try {index:2} {args.size} k at {at}%: {outcome:<11} {time.monotonic() - started:4.0f} s  "
                  f"{detail}", flush=True)
    finally:
        if shared is not None:
            _stop_demo(shared[0], shared[2], args.keep_screens, "same-demo")
    applied = counts["ok"]
    tally = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    print(f"{args.size}: applied {applied} of {args.tries}; {tally}")
    return 0 if applied == args.tries else 1


if __name__ == "__main__":
    sys.exit(main())
