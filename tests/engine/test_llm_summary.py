"""``ctxscope compact --llm``: the configured LLM writes the summary; everything else stays the deterministic plan."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from tests.conftest import MAIN_SESSION
from tests.engine.test_llm import KEY, FakeLLM, Reply, _chat, configure_llm, fake_llm  # noqa: F401 - the fixture is used
from tui.cli.main import EXIT_FAILED, EXIT_OK, EXIT_USAGE, main

LLM_TEXT = "## Goal\nMove moltbot's config into git.\n\n## Key Decisions\n- Push over SSH with a deploy key."


def test_llm_summary_is_appended_and_the_key_goes_nowhere(
    tmp_path: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch  # noqa: F811 - the fixture
) -> None:
    configure_llm(tmp_path, fake_llm, monkeypatch)
    session = tmp_path / "s.jsonl"
    shutil.copy(MAIN_SESSION, session)
    before = session.read_bytes()
    fake_llm.replies.append(Reply(body=_chat(LLM_TEXT)))
    argv = ["--state-dir", str(tmp_path / "state"), "compact", str(session), "--llm", "--keep-recent", "2000",
            "--yes"]
    assert main(argv) == EXIT_OK
    request = fake_llm.requests[0]
    assert request["headers"]["authorization"] == f"Bearer {KEY}"
    sent = request["json"]["messages"][-1]["content"]
    assert "[User]:" in sent and "[Assistant" in sent
    after = session.read_bytes()
    assert after.startswith(before)
    compaction = next(orjson.loads(raw) for raw in after[len(before):].splitlines()
                      if orjson.loads(raw)["type"] == "compaction")
    assert compaction["summary"].startswith(LLM_TEXT)
    for written in (after, (tmp_path / "state" / "context" / "audit.jsonl").read_bytes()):
        assert KEY.encode() not in written


def test_llm_needs_config_and_a_failed_call_writes_nothing(
    tmp_path: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch  # noqa: F811 - the fixture
) -> None:
    session = tmp_path / "s.jsonl"
    shutil.copy(MAIN_SESSION, session)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "none"))
    argv = ["--state-dir", str(tmp_path / "state"), "compact", str(session), "--llm", "--keep-recent", "2000",
            "--yes"]
    assert main(argv) == EXIT_USAGE
    configure_llm(tmp_path, fake_llm, monkeypatch)
    fake_llm.replies.append(Reply(status=500, body={"error": "overloaded"}))
    assert main(argv) == EXIT_FAILED
    assert session.read_bytes() == MAIN_SESSION.read_bytes()
