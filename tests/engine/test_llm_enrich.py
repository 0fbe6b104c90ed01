"""``ctxscope checkpoint --enrich``: LLM decisions merged ahead of the heuristic ones, offline fallback, redaction."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from tests.conftest import V1_LEGACY
from tests.engine._transcripts import assistant, user, write
from tests.engine.test_llm import KEY, FakeLLM, Reply, _chat, configure_llm, fake_llm  # noqa: F401 - the fixture
from tui.cli.main import EXIT_OK, EXIT_USAGE, main

PLANTED = "sk-proj-PLANTEDsecret0123456789abcdefghijklmnop"


def _checkpoint(tmp_path: Path, session: Path, capsys: pytest.CaptureFixture[str]) -> tuple[dict[str, Any], str]:
    assert main(["--state-dir", str(tmp_path / "state"), "checkpoint", str(session), "--enrich", "--json"]) == EXIT_OK
    event = orjson.loads(capsys.readouterr().out)
    return yaml.safe_load(Path(event["path"]).read_text()), event["message"]


@pytest.fixture
def legacy(tmp_path: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> Path:  # noqa: F811
    """A copy of the v1 fixture (the heuristics find no decision in it), with the LLM configured."""
    configure_llm(tmp_path, fake_llm, monkeypatch)
    return Path(shutil.copy(V1_LEGACY, tmp_path / "s.jsonl"))


HEURISTIC = "Going with a Postgres-backed job queue, so queued jobs survive a broker restart together with the data."


@pytest.fixture
def decided(tmp_path: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> Path:  # noqa: F811
    """A session with one decision the heuristics find (``HEURISTIC``), with the LLM configured."""
    configure_llm(tmp_path, fake_llm, monkeypatch)
    return write(tmp_path / "d.jsonl", [
        user("u1", None, "The job queue keeps losing messages whenever the broker restarts."),
        assistant("a1", "u1", "I compared a durable RabbitMQ queue with moving the jobs into Postgres, which we "
                  "already back up and replicate.\n\n" + HEURISTIC + "\n\nThe worker changes stay in one module.",
                  900),
        user("u2", "a1", "yeah, do it"),
    ])


def test_llm_decisions_come_first_and_heuristic_paraphrases_are_dropped(
    tmp_path: Path, decided: Path, fake_llm: FakeLLM, capsys: pytest.CaptureFixture[str]  # noqa: F811
) -> None:
    # The heuristics find one decision here (HEURISTIC); the LLM restates it and adds one of its own.
    answer = '["Alert when the queue is older than five minutes", "Use a Postgres-backed job queue"]'
    fake_llm.replies.append(Reply(body=_chat(answer)))
    checkpoint, message = _checkpoint(tmp_path, decided, capsys)
    assert [d["what"] for d in checkpoint["decisions"]] == [
        "Alert when the queue is older than five minutes",
        "Use a Postgres-backed job queue",
    ]
    assert "enriched by qwen3-max" in message
    request = fake_llm.requests[0]["json"]["messages"]
    assert HEURISTIC in request[0]["content"]  # the heuristics are shown to it
    assert "[User]: yeah, do it" in request[-1]["content"]  # the latest turn is always sent


def test_the_v1_fixture_enriches_the_users_own_instructions_and_its_latest_turn_is_sent(
    tmp_path: Path, legacy: Path, fake_llm: FakeLLM, capsys: pytest.CaptureFixture[str]  # noqa: F811
) -> None:
    # The heuristics now read the user's instructions ("remove the nord.json"): the LLM works on those same items.
    fake_llm.replies.append(Reply(body=_chat('["Ship themes as JSON files loaded at start-up"]')))
    checkpoint, _ = _checkpoint(tmp_path, legacy, capsys)
    decisions = [d["what"] for d in checkpoint["decisions"]]
    assert decisions[0] == "Ship themes as JSON files loaded at start-up"
    assert any(d.startswith("remove the nord.json") for d in decisions[1:])
    request = fake_llm.requests[0]["json"]["messages"]
    assert "remove the nord.json" in request[0]["content"]  # the heuristic items are shown to it
    assert "[User]: yeah, do it all" in request[-1]["content"]


def test_enrichment_redacts_what_it_sends_and_keeps_heuristics_it_does_not_restate(
    tmp_path: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]  # noqa: F811
) -> None:
    configure_llm(tmp_path, fake_llm, monkeypatch)
    session = write(tmp_path / "s.jsonl", [
        user("u1", None, f"Deploy it. The token is {PLANTED}"),
        assistant("a1", "u1", "Pasting tokens into chat leaks them into logs and transcripts, so I won't use it.\n\n"
                  "The fix is to push over SSH with a deploy key instead of the token.\n\n"
                  "I'll add the key to the repository settings with write access only.", 900),
        user("u2", "a1", "yes, much better"),
    ])
    fake_llm.replies.append(Reply(body=_chat(f'["Rotate the leaked token {PLANTED}"]')))
    checkpoint, _ = _checkpoint(tmp_path, session, capsys)
    sent = fake_llm.requests[0]["json"]["messages"][-1]["content"]
    assert PLANTED not in sent and "[User]: Deploy it." in sent
    decisions = [d["what"] for d in checkpoint["decisions"]]
    assert decisions[0].startswith("Rotate the leaked token") and PLANTED not in decisions[0]
    assert any("push over SSH" in d for d in decisions[1:])
    assert PLANTED.encode() not in b"".join(p.read_bytes() for p in (tmp_path / "state").rglob("*") if p.is_file())


def test_a_failed_call_still_writes_the_heuristic_checkpoint(
    tmp_path: Path, decided: Path, fake_llm: FakeLLM, capsys: pytest.CaptureFixture[str]  # noqa: F811
) -> None:
    fake_llm.replies.append(Reply(status=500, body={"error": "overloaded"}))
    checkpoint, message = _checkpoint(tmp_path, decided, capsys)
    assert "LLM enrichment failed" in message and "heuristic decisions only" in message
    assert [d["what"] for d in checkpoint["decisions"]] == [HEURISTIC]
    assert KEY not in message


def test_enrich_without_an_llm_section_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "none"))
    argv = ["--state-dir", str(tmp_path / "state"), "checkpoint", str(V1_LEGACY), "--enrich"]
    assert main(argv) == EXIT_USAGE
    assert not (tmp_path / "state").exists()
