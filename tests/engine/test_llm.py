"""The optional LLM summarizer/enricher against a local HTTP server started by the test."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import orjson
import pytest

from engine.config.llm_settings import LLMConfig
from engine.llm.client import LLMError, enrich_decisions, merge_enriched, summarize_with_llm

KEY = "sk-ant-api03-TESTKEY0123456789abcdefghijklmnopqrstuvwxyz"
ENV = {"CTXSCOPE_TEST_LLM_KEY": KEY}


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    wait: threading.Event | None = None
    """The handler blocks on this before answering (to force a client timeout)."""


@dataclass
class FakeLLM:
    """Records every request and answers with the queued replies, in order."""

    port: int = 0
    requests: list[dict[str, Any]] = field(default_factory=list)
    replies: list[Reply] = field(default_factory=list)

    def url(self, suffix: str = "") -> str:
        return f"http://127.0.0.1:{self.port}{suffix}"


@pytest.fixture
def fake_llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    state = FakeLLM()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length", "0")))
            state.requests.append(
                {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "raw": raw,
                 "json": orjson.loads(raw)}
            )
            reply = state.replies.pop(0) if state.replies else Reply(500, {"error": "no reply queued"})
            if reply.wait is not None:
                reply.wait.wait(5)
            payload = reply.body if isinstance(reply.body, bytes) else orjson.dumps(reply.body)
            try:
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except OSError:
                pass  # the client gave up (timeout test)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def configure_llm(tmp_path: Path, fake: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    """A config file whose ``llm:`` section points at ``fake``, and the key in the environment."""
    config_dir = tmp_path / "xdg" / "ctxscope"
    config_dir.mkdir(parents=True)
    config_dir.joinpath("config.yaml").write_text(
        f"llm:\n  kind: openai\n  base_url: {fake.url('/v1')}\n  model: qwen3-max\n"
        "  api_key_env: CTXSCOPE_TEST_LLM_KEY\n"
    )
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("CTXSCOPE_TEST_LLM_KEY", ENV["CTXSCOPE_TEST_LLM_KEY"])


def _openai(fake: FakeLLM, **changes: Any) -> LLMConfig:
    return LLMConfig(kind="openai", base_url=fake.url("/v1"), model="qwen3-max", api_key_env="CTXSCOPE_TEST_LLM_KEY",
                     **changes)


def _anthropic(fake: FakeLLM, **changes: Any) -> LLMConfig:
    return LLMConfig(kind="anthropic", base_url=fake.url(), model="claude-haiku-4-5",
                     api_key_env="CTXSCOPE_TEST_LLM_KEY", **changes)


def _chat(text: str) -> dict[str, Any]:
    return {"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant",
            "content": text}, "finish_reason": "stop"}]}


def _messages(*texts: str) -> dict[str, Any]:
    return {"id": "msg_1", "type": "message", "role": "assistant",
            "content": [{"type": "text", "text": t} for t in texts], "stop_reason": "end_turn"}


# --- request shapes ----------------------------------------------------------------------------------------------


def test_openai_compatible_request_shape(fake_llm: FakeLLM) -> None:
    fake_llm.replies.append(Reply(body=_chat("## Decisions\n- Use SQLite\n")))
    summary = summarize_with_llm(
        _openai(fake_llm), "user: let's use sqlite\nassistant: ok", focus="the database choice",
        previous_summary="## Decisions\n- Python 3.11", env=ENV,
    )
    assert summary == "## Decisions\n- Use SQLite"
    [request] = fake_llm.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["authorization"] == f"Bearer {KEY}"
    assert "x-api-key" not in request["headers"]
    body = request["json"]
    assert body["model"] == "qwen3-max" and body["max_tokens"] == 2048 and body["temperature"] == 0
    system, message = body["messages"]
    assert system["role"] == "system" and message["role"] == "user"
    assert "the database choice" in system["content"]
    for heading in ("## Decisions", "## Open TODOs", "## Constraints/Rules", "## Pending user asks",
                    "## Exact identifiers"):
        assert heading in system["content"]
    assert "<previous-summary>\n## Decisions\n- Python 3.11" in message["content"]
    assert "let's use sqlite" in message["content"]
    assert KEY.encode() not in request["raw"]


def test_anthropic_messages_request_shape(fake_llm: FakeLLM) -> None:
    fake_llm.replies.append(Reply(body=_messages("## Decisions\n", "- Keep the lock protocol")))
    summary = summarize_with_llm(_anthropic(fake_llm), "conversation", focus=None, previous_summary=None, env=ENV)
    assert summary == "## Decisions\n- Keep the lock protocol"
    [request] = fake_llm.requests
    assert request["path"] == "/v1/messages"
    headers = request["headers"]
    assert headers["x-api-key"] == KEY and headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in headers
    body = request["json"]
    assert body["model"] == "claude-haiku-4-5" and body["max_tokens"] == 2048
    assert isinstance(body["system"], str) and "Focus" not in body["system"]
    assert body["messages"] == [{"role": "user", "content": "<conversation>\nconversation\n</conversation>"}]
    assert KEY.encode() not in request["raw"]


def test_reasoning_model_options(fake_llm: FakeLLM) -> None:
    fake_llm.replies.append(Reply(body=_chat("ok")))
    config = _openai(fake_llm, temperature=None, max_tokens_field="max_completion_tokens")
    summarize_with_llm(config, "text", env=ENV)
    body = fake_llm.requests[0]["json"]
    assert "temperature" not in body and "max_tokens" not in body and body["max_completion_tokens"] == 2048


def test_secrets_in_the_conversation_are_redacted_before_sending(fake_llm: FakeLLM) -> None:
    fake_llm.replies.append(Reply(body=_chat("summary mentions sk-proj-abcdefghij0123456789ABCDEFGHIJ")))
    leaked = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
    summary = summarize_with_llm(_openai(fake_llm), f"export GITHUB_TOKEN={leaked}", env=ENV)
    assert leaked.encode() not in fake_llm.requests[0]["raw"]
    assert "sk-proj-abcdefghij0123456789ABCDEFGHIJ" not in summary and "[REDACTED:" in summary


# --- errors never carry the key ---------------------------------------------------------------------------------


def test_missing_key_is_a_clear_error_and_sends_nothing(fake_llm: FakeLLM) -> None:
    with pytest.raises(LLMError, match="CTXSCOPE_TEST_LLM_KEY is not set"):
        summarize_with_llm(_openai(fake_llm), "text", env={})
    assert fake_llm.requests == []


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_http_error_message_is_scrubbed_of_the_key(
    fake_llm: FakeLLM, kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    # A gateway that echoes the credential it rejected must not leak it through ctxscope's error.
    fake_llm.replies.append(Reply(401, {"error": {"message": f"invalid api key: {KEY}"}}))
    config = _openai(fake_llm) if kind == "openai" else _anthropic(fake_llm)
    caplog.set_level(logging.DEBUG)
    with pytest.raises(LLMError) as info:
        summarize_with_llm(config, "text", env=ENV)
    message = str(info.value)
    assert "HTTP 401" in message and "invalid api key" in message
    assert KEY not in message and KEY[:20] not in message
    assert info.value.__cause__ is None and info.value.__suppress_context__
    assert all(KEY not in record.getMessage() for record in caplog.records)
    assert KEY not in caplog.text


def test_key_without_a_known_secret_shape_is_scrubbed_too(fake_llm: FakeLLM) -> None:
    plain = "zq7-local-gateway-credential"  # no sk-/ghp_ prefix: only the explicit scrub can catch it
    fake_llm.replies.append(Reply(403, {"detail": f"credential {plain} is not allowed"}))
    with pytest.raises(LLMError) as info:
        summarize_with_llm(_openai(fake_llm), "text", env={"CTXSCOPE_TEST_LLM_KEY": plain})
    assert "HTTP 403" in str(info.value) and plain not in str(info.value)
    assert fake_llm.requests[0]["headers"]["authorization"] == f"Bearer {plain}"


def test_timeout_is_a_clear_error(fake_llm: FakeLLM) -> None:
    release = threading.Event()
    fake_llm.replies.append(Reply(body=_chat("late"), wait=release))
    try:
        with pytest.raises(LLMError, match=r"did not answer within 0\.2 s") as info:
            summarize_with_llm(_openai(fake_llm, timeout=0.2), "text", env=ENV)
    finally:
        release.set()
    assert KEY not in str(info.value)


def test_unreachable_endpoint_and_bad_answers(fake_llm: FakeLLM) -> None:
    with pytest.raises(LLMError, match=r"request to .* failed") as info:
        summarize_with_llm(
            LLMConfig("openai", "http://127.0.0.1:9/v1", "m", "CTXSCOPE_TEST_LLM_KEY", timeout=2), "t", env=ENV
        )
    assert KEY not in str(info.value)
    fake_llm.replies += [Reply(body=b"<html>bad gateway</html>"), Reply(body={"choices": []}), Reply(body=_chat(" "))]
    with pytest.raises(LLMError, match="not JSON"):
        summarize_with_llm(_openai(fake_llm), "t", env=ENV)
    with pytest.raises(LLMError, match="has no text"):
        summarize_with_llm(_openai(fake_llm), "t", env=ENV)
    with pytest.raises(LLMError, match="empty summary"):
        summarize_with_llm(_openai(fake_llm), "t", env=ENV)


# --- enrichment and the merge ------------------------------------------------------------------------------------


def test_enrichment_prompt_and_parsing(fake_llm: FakeLLM) -> None:
    answer = '```json\n["Send Grigorije a plan", "Use atomicWriteFile for checkpoint re-write", ' \
             '"Send Grigorije the plan"]\n```'
    fake_llm.replies.append(Reply(body=_messages(answer)))
    got = enrich_decisions(_anthropic(fake_llm), "user: ok do it", existing=("You're right, I overcomplicated it",),
                           env=ENV)
    assert got == ("Send Grigorije a plan", "Use atomicWriteFile for checkpoint re-write")
    body = fake_llm.requests[0]["json"]
    assert body["max_tokens"] == 500
    system = body["system"]
    assert "An entry is a DECISION if it records: a choice made" in system
    assert "GOOD decisions:" in system and "BAD (not decisions):" in system
    assert "- You're right, I overcomplicated it" in system
    assert body["messages"][0]["content"].endswith("user: ok do it")


def test_enrichment_accepts_a_bullet_list(fake_llm: FakeLLM) -> None:
    fake_llm.replies.append(Reply(body=_chat("Here they are:\n- Keep the lock protocol\n2. Cap decisions at 50\n")))
    assert enrich_decisions(_openai(fake_llm), "t", env=ENV) == ("Keep the lock protocol", "Cap decisions at 50")


def test_merge_keeps_llm_first_and_only_new_heuristics() -> None:
    enriched = ("Send Grigorije a plan", "Use atomicWriteFile for checkpoint re-write to bypass dedup")
    heuristic = ("- I need to send Grigorije a plan", "**Use atomicWriteFile** for checkpoint re-write to bypass dedup",
                 "Cap decisions at 50 per session")
    merged = merge_enriched(enriched, heuristic)
    assert merged == (*enriched, "Cap decisions at 50 per session")
