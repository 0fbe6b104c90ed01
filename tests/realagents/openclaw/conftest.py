"""Fixtures of the OpenClaw oracle suite: installs, the fake model, and one onboarded home with its gateway.

One home and one gateway serve every 2026.9.6 test (onboarding and a gateway start cost about a minute); each
test works on its own session key so the tests stay independent of their order.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.realagents import npm_cache
from tests.realagents.fake_model import FakeModelServer
from tests.realagents.openclaw.harness import OpenClawHome
from tests.realagents.openclaw.install import (
    OPENCLAW_JSONL_VERSION,
    OPENCLAW_VERSION,
    OpenClawInstall,
    install_openclaw,
)
from tests.realagents.openclaw.responder import OpenClawResponder

MODEL_COST = {"input": 3.0, "output": 15.0, "cacheRead": 0.3, "cacheWrite": 3.75}
"""USD per million tokens for the fake model, written into openclaw.json before the gateway starts."""


def _install(version: str) -> OpenClawInstall:
    try:
        return install_openclaw(version)
    except npm_cache.NpmUnavailableError as exc:
        pytest.skip(f"OpenClaw {version} cannot be installed: {exc}")


@pytest.fixture(scope="session")
def openclaw_install() -> OpenClawInstall:
    """OpenClaw ``$CTXSCOPE_OPENCLAW_VERSION`` (default 2026.9.6) and node 24, from the test cache."""
    return _install(OPENCLAW_VERSION)


@pytest.fixture(scope="session")
def openclaw_jsonl_install() -> OpenClawInstall:
    """OpenClaw ``$CTXSCOPE_OPENCLAW_JSONL_VERSION`` (default 2026.7.35), the last JSONL-era release."""
    return _install(OPENCLAW_JSONL_VERSION)


@pytest.fixture(scope="session")
def responder() -> OpenClawResponder:
    return OpenClawResponder()


@pytest.fixture(scope="session")
def fake_model(responder: OpenClawResponder) -> Iterator[FakeModelServer]:
    with FakeModelServer(responder) as server:
        yield server


@pytest.fixture
def fresh_responder(responder: OpenClawResponder) -> Iterator[OpenClawResponder]:
    """The shared responder with its defaults restored after the test."""
    reply_words, delay = responder.reply_words, responder.summary_delay_s
    yield responder
    responder.reply_words, responder.summary_delay_s = reply_words, delay


@pytest.fixture(scope="session")
def oc(openclaw_install: OpenClawInstall, fake_model: FakeModelServer,
       tmp_path_factory: pytest.TempPathFactory) -> Iterator[OpenClawHome]:
    """An onboarded 2026.9.6 home with its gateway running on loopback (stopped by PID at the end)."""
    home = OpenClawHome(openclaw_install, tmp_path_factory.mktemp("openclaw"), fake_model.base_url)
    home.onboard()
    # Priced like a mid-range model so that OpenClaw records a cost for every call (issue 12 #11).
    config = home.config()
    for model in config["models"]["providers"]["fake"]["models"]:
        model["cost"] = dict(MODEL_COST)
    home.config_path.write_text(json.dumps(config, indent=2) + "\n")
    try:
        home.start_gateway()
        yield home
    finally:
        home.stop_gateway()
