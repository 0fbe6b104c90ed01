"""Fixtures of the pi oracle suite: the installed pi, and an environment that keeps user config out."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.realagents import npm_cache
from tests.realagents.pi.compare import TALLY
from tests.realagents.pi.corpora import FIXTURES, Sample, edge_cases, generate
from tests.realagents.pi.pi_agent import PI_VERSION, PiInstall, install_pi


@pytest.fixture(scope="session")
def pi() -> PiInstall:
    """pi-coding-agent ``$CTXSCOPE_PI_VERSION`` (default 0.73.1), installed with npm into the test cache."""
    try:
        return install_pi(PI_VERSION)
    except npm_cache.NpmUnavailableError as exc:
        pytest.skip(f"pi {PI_VERSION} cannot be installed: {exc}")


@pytest.fixture(scope="session", autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """ctxscope and pi read no user config: empty XDG config/state dirs and an empty pi agent dir."""
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as mp:
        for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME"):
            (home / name).mkdir()
            mp.setenv(name, str(home / name))
        (home / "pi-agent").mkdir()
        mp.setenv("PI_CODING_AGENT_DIR", str(home / "pi-agent"))
        for name in list(os.environ):
            if name.startswith("CTXSCOPE_") and name != "CTXSCOPE_PI_VERSION":
                mp.delenv(name)
        yield home


@pytest.fixture(scope="session")
def samples(pi: PiInstall, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Sample]]:
    """Every compared session with pi's reading, by corpus: ``fixtures``, ``generated``, ``edge``."""
    root = tmp_path_factory.mktemp("pi-corpora")
    named: dict[str, dict[str, Path]] = {
        "fixtures": {p.name: p for p in FIXTURES},
        "generated": {p.name: p for p in generate(root / "generated")},
        "edge": edge_cases(root / "edge"),
    }
    out: dict[str, list[Sample]] = {}
    for corpus, files in named.items():
        reports = pi.oracle(list(files.values()))
        out[corpus] = [Sample(corpus, name, path, reports[str(path)]) for name, path in files.items()]
    return out


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if TALLY.compared:
        terminalreporter.write_line("")
        for line in TALLY.lines():
            terminalreporter.write_line(line)
