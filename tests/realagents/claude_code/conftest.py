"""Fixtures of the Claude Code oracle suite: the installed binary."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.realagents import npm_cache
from tests.realagents.claude_code.agent import VERSION, install_claude_code


@pytest.fixture(scope="session")
def claude_binary() -> Path:
    """Claude Code ``$CTXSCOPE_CLAUDE_CODE_VERSION`` (default 2.1.328), installed with npm into the test cache."""
    try:
        return install_claude_code(VERSION)
    except npm_cache.NpmUnavailableError as exc:
        pytest.skip(f"Claude Code {VERSION} cannot be installed: {exc}")
