"""The fake model server speaks enough of the OpenAI chat API for pi and OpenClaw (runs in every suite, fast)."""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from typing import Any

import pytest

from tests.realagents.fake_model import (
    REPLY_PREFIX,
    SUMMARY_MARKER,
    FakeModelServer,
    Reply,
    is_summary_request,
)

OPENCLAW_SECTIONS = (
    "## Decisions",
    "## Open TODOs",
    "## Constraints/Rules",
    "## Pending user asks",
    "## Exact identifiers",
)
PI_HEADINGS = ("## Goal", "## Constraints & Preferences", "## Progress", "## Key Decisions", "## Next Steps")


def _post(url: str, body: dict[str, Any]) -> tuple[str, bytes]:
    req = urllib.request.Request(
        url + "/chat/completions", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.headers.get("Content-Type", ""), resp.read()


def _sse_events(raw: bytes) -> list[str]:
    return [line[len("data: ") :] for line in raw.decode().splitlines() if line.startswith("data: ")]


@pytest.fixture
def server() -> Any:
    with FakeModelServer() as s:
        yield s


def test_models_lists_the_fake_model(server: FakeModelServer) -> None:
    assert server.base_url.startswith("http://127.0.0.1:") and server.base_url.endswith("/v1")
    with urllib.request.urlopen(server.base_url + "/models", timeout=10) as resp:
        data = json.loads(resp.read())
    assert [m["id"] for m in data["data"]] == ["fake-model"]


def test_non_streaming_reply_has_text_and_usage(server: FakeModelServer) -> None:
    body = {"model": "fake-model", "messages": [{"role": "user", "content": "hello"}]}
    ctype, raw = _post(server.base_url, body)
    data = json.loads(raw)
    assert ctype.startswith("application/json")
    assert data["choices"][0]["message"]["content"] == f"{REPLY_PREFIX} 1"
    usage = data["usage"]
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"] > 0
    assert server.requests == [body]


def test_streaming_sends_deltas_then_usage_then_done(server: FakeModelServer) -> None:
    body = {
        "model": "fake-model",
        "stream": True,
        "messages": [
            {"role": "user", "content": "a"},
            {"role": "assistant", "content": "b"},
            {"role": "user", "content": [{"type": "text", "text": "c"}]},
        ],
    }
    server.responder = lambda b: Reply(text="hello world", prompt_tokens=123, completion_tokens=4)
    ctype, raw = _post(server.base_url, body)
    events = _sse_events(raw)
    assert ctype.startswith("text/event-stream")
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"])
    assert text == "hello world"
    assert chunks[-1]["usage"] == {"prompt_tokens": 123, "completion_tokens": 4, "total_tokens": 127}
    finishes = [c["choices"][0].get("finish_reason") for c in chunks if c["choices"]]
    assert finishes[-1] == "stop"


def test_summary_request_gets_both_agents_headings(server: FakeModelServer) -> None:
    body = {
        "model": "fake-model",
        "messages": [
            {"role": "system", "content": "You are a context summarization assistant."},
            {"role": "user", "content": "<conversation>...</conversation> Create a structured checkpoint."},
        ],
    }
    assert is_summary_request(body)
    _, raw = _post(server.base_url, body)
    text = json.loads(raw)["choices"][0]["message"]["content"]
    assert text.startswith(SUMMARY_MARKER)
    for heading in OPENCLAW_SECTIONS + PI_HEADINGS:
        assert heading in text


def test_ordinary_turn_quoting_a_summary_is_not_a_summary_request() -> None:
    body = {
        "messages": [
            {
                "role": "user",
                "content": "The conversation history before this point was compacted into the following summary",
            },
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "what next?"},
        ]
    }
    assert not is_summary_request(body)


def test_delay_is_applied_and_cut_short_by_close() -> None:
    server = FakeModelServer(responder=lambda b: Reply(text="slow", prompt_tokens=1, completion_tokens=1, delay_s=0.3))
    try:
        start = time.monotonic()
        _post(server.base_url, {"messages": []})
        assert time.monotonic() - start >= 0.3
        # A long delay does not hold close() up: the closing event ends the wait.
        server.responder = lambda b: Reply(text="x", prompt_tokens=1, completion_tokens=1, delay_s=60)
        errors: list[BaseException] = []

        def slow() -> None:
            try:
                _post(server.base_url, {"messages": []})
            except Exception as exc:  # noqa: BLE001 - any outcome is fine; we only time close()
                errors.append(exc)

        t = threading.Thread(target=slow, daemon=True)
        t.start()
        assert server.wait_for_requests(2, timeout_s=10)
    finally:
        start = time.monotonic()
        server.close()
        assert time.monotonic() - start < 10
    t.join(10)
    assert not t.is_alive()


def test_requests_are_recorded_from_many_threads(server: FakeModelServer) -> None:
    threads = [
        threading.Thread(target=_post, args=(server.base_url, {"messages": [{"role": "user", "content": str(i)}]}))
        for i in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert server.wait_for_requests(8, timeout_s=10)
    assert sorted(r["messages"][0]["content"] for r in server.requests) == [str(i) for i in range(8)]
