"""The count of fields compared against the real Claude Code and Codex, printed once at the end of the run."""

from __future__ import annotations

import pytest

from tests.realagents.agent_tally import TALLY


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for line in TALLY.lines():
        terminalreporter.write_line(line)
