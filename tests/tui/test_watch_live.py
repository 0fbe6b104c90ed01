"""``ctxscope watch`` as a user runs it: a real process, real file events, the same follow rule as the TUI."""

from __future__ import annotations

import queue
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.conftest import SUBAGENT
from tests.tui.transcript_lines import append, reply

LEAF = "562b10c7"
WAIT = 60.0  # seconds per expected line: generous, the machine may be busy


def _lines(process: subprocess.Popen[str]) -> queue.Queue[str]:
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line.rstrip("\n"))

    threading.Thread(target=pump, daemon=True).start()
    return lines


def _expect(lines: queue.Queue[str], fragment: str) -> str:
    seen: list[str] = []
    while True:
        try:
            line = lines.get(timeout=WAIT)
        except queue.Empty:
            raise AssertionError(f"no line with {fragment!r} within {WAIT:.0f} s; saw {seen}") from None
        seen.append(line)
        if fragment in line:
            return line


@pytest.mark.e2e
def test_watch_prints_a_checkpoint_on_a_threshold_and_handles_the_session_end_on_archive(tmp_path: Path) -> None:
    ctxscope = shutil.which("ctxscope", path=str(Path(sys.executable).parent))
    assert ctxscope is not None, "the package is installed with its command"
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    transcript = sessions / SUBAGENT.name
    shutil.copy(SUBAGENT, transcript)
    with subprocess.Popen(
        [ctxscope, "--state-dir", str(tmp_path / "state"), "watch", str(sessions), "--force-polling"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    ) as process:
        try:
            lines = _lines(process)
            _expect(lines, "watching 1 session")
            append(transcript, reply("r1", LEAF, 220_000))  # 84% of the 262k window: past the checkpoint line
            assert "checkpoint" in _expect(lines, "auto-80pct")
            archive = transcript.with_name(transcript.name + ".reset.2026-11-23T10-00-00.000Z")
            transcript.rename(archive)
            # The archive holds what cp_001 already captured: the session-end checkpoint obeys the 5% rule.
            assert "tokens moved < 5%" in _expect(lines, "session-end")
            process.send_signal(signal.SIGINT)
            assert process.wait(timeout=WAIT) == 0
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=WAIT)
    assert len(list((tmp_path / "state").rglob("cp_*.yaml"))) == 1
