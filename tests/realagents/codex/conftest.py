"""Fixtures of the Codex oracle suite: the installed binary."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.realagents import npm_cache
from tests.realagents.codex.agent import VERSION, install_codex


@pytest.fixture(scope="session")
def codex_binary() -> Path:
    """Codex ``$CTXSCOPE_CODEX_VERSION`` (default 0.169.0), installed with npm into the test cache."""
    try:
        return install_codex(VERSION)
    except npm_cache.NpmUnavailableError as exc:
        pytest.skip(f"Codex {VERSION} cannot be installed: {exc}")
