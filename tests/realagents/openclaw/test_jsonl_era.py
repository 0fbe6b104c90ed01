"""OpenClaw 2026.7.35, the last JSONL-era release: a ``jsonl``-controller compaction is what its next request
begins with."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.realagents.fake_model import FakeModelServer, message_text
from tests.realagents.openclaw import ctxscope_side as cs
from tests.realagents.openclaw.harness import OpenClawHome
from tests.realagents.openclaw.install import OpenClawInstall
from tests.realagents.openclaw.responder import is_main_turn

pytestmark = pytest.mark.realagents

KEY = "agent:main:jsonl"


@pytest.fixture(scope="module")
def oc7(openclaw_jsonl_install: OpenClawInstall, fake_model: FakeModelServer,
        tmp_path_factory: pytest.TempPathFactory) -> Iterator[OpenClawHome]:
    """An onboarded 2026.7.35 home; its turns run embedded (``--local``), so no gateway is needed."""
    home = OpenClawHome(openclaw_jsonl_install, tmp_path_factory.mktemp("openclaw7"), fake_model.base_url)
    home.onboard()
    yield home


def test_a_jsonl_compaction_is_what_the_next_request_begins_with(
    oc7: OpenClawHome, fake_model: FakeModelServer
) -> None:
    texts = [f"jsonl turn {i}: remember the colour number {i}" for i in range(3)]
    for text in texts:
        oc7.agent(KEY, text, local=True)
    transcripts = [p for p in oc7.sessions_dir.glob("*.jsonl") if not p.name.endswith(".trajectory.jsonl")]
    assert len(transcripts) == 1, transcripts
    out = cs.compact(oc7.env, KEY, "--controller", "jsonl", "--keep-recent", "1500")
    assert out.returncode == 0, out.describe()
    plan = out.json()["plan"]
    assert plan["controller"] == "jsonl" and plan["messages"]["summarized"] > 0
    previews = [d["first_line"] for d in plan["dropped"] if d["role"] == "user"]
    dropped = [t for t in texts if any(t[:24] in p for p in previews)]
    assert dropped, plan["dropped"]

    fake_model.clear()
    oc7.agent(KEY, "jsonl turn 3: what do you remember?", local=True)
    requests = [r for r in fake_model.requests if is_main_turn(r)]
    assert requests, "OpenClaw sent no main-agent request"
    messages = [m for m in requests[0]["messages"] if m.get("role") not in ("system", "developer")]
    first = message_text(messages[0])
    summary_head = plan["summary"].strip().splitlines()[0]
    assert summary_head and summary_head in first, (summary_head, first[:2000])
    later = [message_text(m) for m in messages[1:]]
    for text in dropped:
        assert not any(text in sent for sent in later), f"{text!r} was summarized but still sent verbatim"
    assert any("jsonl turn 3" in text for text in later)
