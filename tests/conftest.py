"""Shared test fixtures: paths to the real session files in tests/fixtures (see tests/fixtures/PROVENANCE.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
DATA = Path(__file__).parent / "data"
OPENCLAW = FIXTURES / "openclaw"

MAIN_SESSION = OPENCLAW / "42naodia__moltbot-config__76cc5ab5-0425-4038-b41f-0af9f313d594.jsonl"
ENDS_ON_COMPACTION = OPENCLAW / "42naodia__moltbot-config__f8c3e7a8-7dc1-43cc-8ce0-a9d268c29be1.jsonl"
SESSIONS_JSON = OPENCLAW / "42naodia__moltbot-config__sessions.json"
V1_LEGACY = OPENCLAW / "badlogic__pi-mono__large-session.v1-legacy.jsonl"
RESET_ARCHIVE = OPENCLAW / (
    "bhagya554__AITesterBlueprint_OpenClawMasterClass__2db7f8ba-f951-4f31-b133-aece0caaf3aa"
    ".jsonl.reset.2026-05-04T14-58-56.795Z"
)
_BHAGYA = "bhagya554__AITesterBlueprint_OpenClawMasterClass__"
SUBAGENT = OPENCLAW / f"{_BHAGYA}3003a4e2-a8c1-417d-9ebc-76480d47d0c0.jsonl"
HEADERLESS = OPENCLAW / f"{_BHAGYA}f5b63bc9-4cf5-4b11-a03d-3027989737f7.jsonl"
PI_BEFORE_COMPACTION = OPENCLAW / "badlogic__pi-mono__before-compaction.jsonl"
"""pi's own fixture with two LLM-written summaries, for the summary tests (test_summary_fixtures.py)."""
LISTED_FIXTURES = tuple(sorted(p for p in OPENCLAW.iterdir() if p != PI_BEFORE_COMPACTION))
"""The fixtures the session-list, sidecar and snapshot tests copy as one scene (the summaries' fixture stays out)."""


DEFAULT_MARKS = "not realagents and not slow"
"""pyproject's default ``-m``: the default suite leaves out the tests against the real agents (they install pi and
OpenClaw with npm) and the long fault-injection trials; CI runs both after it (``.ci/run``)."""


def pytest_configure(config: pytest.Config) -> None:
    """Naming only paths under tests/realagents runs them: the default marks keep them out of the default suite,
    not out of a run that asks for them by path."""
    real = (Path(__file__).parent / "realagents").resolve()
    paths = [Path(arg.split("::")[0]).resolve() for arg in config.args]
    if config.option.markexpr == DEFAULT_MARKS and paths and all(p == real or real in p.parents for p in paths):
        config.option.markexpr = ""


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test (and every ``ctxscope`` it starts) gets its own index cache, never the user's."""
    cache = tmp_path_factory.mktemp("xdg-cache")
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    return cache
