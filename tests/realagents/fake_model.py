"""A fake OpenAI-compatible model server on 127.0.0.1 for driving real agents in tests.

Standard library only. It serves ``GET /v1/models`` and ``POST /v1/chat/completions`` (streaming SSE and
non-streaming), records every request body, and answers through a pluggable responder. The default responder
gives ordinary turns a short deterministic reply and summarization requests a markdown summary carrying both
pi's checkpoint headings and OpenClaw's required sections, so either agent accepts it.

Usage::

    with FakeModelServer() as server:
        run_agent(base_url=server.base_url)
        assert server.requests[-1]["messages"]
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL_ID = "fake-model"
SUMMARY_MARKER = "FAKE-SUMMARY"
REPLY_PREFIX = "fake reply"

# Every wait in this module is bounded by these.
_START_TIMEOUT_S = 10.0
_CLOSE_TIMEOUT_S = 10.0
_MAX_DELAY_S = 120.0

_SUMMARY_WORDS = re.compile(r"summar(?:y|ies|ize|ise|izing|ising|ization|isation)|compaction|checkpoint", re.IGNORECASE)


@dataclass(frozen=True)
class Reply:
    """What the fake model answers to one request.

    Attributes:
        text: the assistant text.
        prompt_tokens: reported ``usage.prompt_tokens``.
        completion_tokens: reported ``usage.completion_tokens``.
        delay_s: seconds to wait before answering (bounded; a closing server cuts it short).
        tool_calls: optional OpenAI-style tool calls (``[{"id", "name", "arguments"}]``, arguments a JSON string).
        finish_reason: the finish reason; ``"tool_calls"`` is used automatically when tool_calls are given.
    """

    text: str
    prompt_tokens: int
    completion_tokens: int
    delay_s: float = 0.0
    tool_calls: tuple[dict[str, str], ...] = field(default=())
    finish_reason: str | None = None


Responder = Callable[[dict[str, Any]], Reply]


def message_text(message: dict[str, Any]) -> str:
    """The plain text of one chat message, whether its content is a string or a list of parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "\n".join(parts)
    return ""


def is_summary_request(body: dict[str, Any]) -> bool:
    """True when the request asks the model for a summary (pi's and OpenClaw's compaction prompts).

    Looks at the system prompt and the last user message only, so an ordinary turn that quotes an earlier
    summary is not mistaken for a compaction.
    """
    messages = body.get("messages")
    if not isinstance(messages, list):
        return False
    texts = [message_text(m) for m in messages if isinstance(m, dict) and m.get("role") in ("system", "developer")]
    users = [m for m in messages if isinstance(m, dict) and m.get("role") == "user"]
    if users:
        texts.append(message_text(users[-1]))
    return any(_SUMMARY_WORDS.search(t) for t in texts)


def estimate_prompt_tokens(body: dict[str, Any]) -> int:
    """A deterministic stand-in for a tokenizer: about four characters of the message JSON per token."""
    messages = body.get("messages", [])
    return max(1, len(json.dumps(messages, separators=(",", ":"))) // 4)


def summary_text(body: dict[str, Any]) -> str:
    """The fixed markdown summary: pi's checkpoint headings followed by OpenClaw's required sections."""
    n = len(body.get("messages", []))
    return (
        f"{SUMMARY_MARKER} of {n} messages\n\n"
        "## Goal\nKeep the test session going.\n\n"
        "## Constraints & Preferences\n- Deterministic answers.\n\n"
        "## Progress\n### Done\n- [x] Earlier turns answered.\n### In Progress\n- [ ] Next turn.\n"
        "### Blocked\n- (none)\n\n"
        "## Key Decisions\n- **Fake model**: used for tests.\n\n"
        "## Next Steps\n1. Continue.\n\n"
        "## Critical Context\n- Nothing secret.\n\n"
        "## Decisions\n- Use the fake model.\n\n"
        "## Open TODOs\n- Continue the session.\n\n"
        "## Constraints/Rules\n- Answer deterministically.\n\n"
        "## Pending user asks\n- (none)\n\n"
        "## Exact identifiers\n- fake-model\n"
    )


def default_responder(body: dict[str, Any]) -> Reply:
    """Summary for summarization requests, otherwise ``fake reply N`` where N counts the user messages."""
    prompt_tokens = estimate_prompt_tokens(body)
    if is_summary_request(body):
        text = summary_text(body)
    else:
        n_user = sum(1 for m in body.get("messages", []) if isinstance(m, dict) and m.get("role") == "user")
        text = f"{REPLY_PREFIX} {n_user}"
    return Reply(text=text, prompt_tokens=prompt_tokens, completion_tokens=max(1, len(text) // 4))


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: FakeModelServer


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _send_json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            self._send_json(200, {"object": "list", "data": [{"id": MODEL_ID, "object": "model", "owned_by": "fake"}]})
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        owner = self.server.owner
        if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send_json(400, {"error": {"message": "body is not JSON"}})
            return
        if not isinstance(body, dict):
            self._send_json(400, {"error": {"message": "body is not an object"}})
            return
        owner._record(body)
        try:
            reply = owner.responder(body)
        except Exception as exc:  # noqa: BLE001 - a broken responder must answer, not hang the agent
            self._send_json(500, {"error": {"message": f"responder failed: {exc!r}"}})
            return
        if reply.delay_s > 0:
            owner._closing.wait(min(reply.delay_s, _MAX_DELAY_S))
        model = str(body.get("model") or MODEL_ID)
        if body.get("stream"):
            self._stream(model, reply)
        else:
            self._send_json(200, _completion(model, reply))

    def _stream(self, model: str, reply: Reply) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        created = int(time.time())
        base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": created, "model": model}
        chunks: list[dict[str, Any]] = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant"}}]}]
        # Two pieces so clients exercise their delta joining.
        half = len(reply.text) // 2
        for piece in (reply.text[:half], reply.text[half:]):
            if piece:
                chunks.append({**base, "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]})
        for i, call in enumerate(reply.tool_calls):
            delta = {
                "tool_calls": [
                    {
                        "index": i,
                        "id": call["id"],
                        "type": "function",
                        "function": {"name": call["name"], "arguments": call["arguments"]},
                    }
                ]
            }
            chunks.append({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
        chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": _finish(reply)}]})
        chunks.append({**base, "choices": [], "usage": _usage(reply)})
        try:
            for chunk in chunks:
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.flush()
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            return


def _finish(reply: Reply) -> str:
    if reply.finish_reason:
        return reply.finish_reason
    return "tool_calls" if reply.tool_calls else "stop"


def _usage(reply: Reply) -> dict[str, int]:
    return {
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
        "total_tokens": reply.prompt_tokens + reply.completion_tokens,
    }


def _completion(model: str, reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
            for c in reply.tool_calls
        ]
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": _finish(reply)}],
        "usage": _usage(reply),
    }


class FakeModelServer:
    """An OpenAI-compatible chat server on 127.0.0.1 (ephemeral port), run in a daemon thread.

    Args:
        responder: turns a request body into a :class:`Reply`; defaults to :func:`default_responder`.
            It may be replaced while the server runs (``server.responder = ...``).

    Attributes:
        base_url: ``http://127.0.0.1:PORT/v1``.
        port: the bound port.
    """

    handler: type[BaseHTTPRequestHandler] = _Handler
    """The request handler class (a subclass may add routes: tests/realagents/wire_apis.py)."""

    def __init__(self, responder: Responder | None = None) -> None:
        self.responder: Responder = responder or default_responder
        self._lock = threading.Lock()
        self._requests: list[dict[str, Any]] = []
        self._arrived = threading.Condition(self._lock)
        self._closing = threading.Event()
        self._httpd = _Server(("127.0.0.1", 0), self.handler)
        self._httpd.owner = self
        self.port: int = self._httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.1}, name="fake-model", daemon=True
        )
        self._thread.start()
        if not self._thread.is_alive():  # pragma: no cover - start() raising is the usual failure
            raise RuntimeError("fake model server thread did not start")

    def _record(self, body: dict[str, Any]) -> None:
        with self._arrived:
            self._requests.append(body)
            self._arrived.notify_all()

    @property
    def requests(self) -> list[dict[str, Any]]:
        """A snapshot of the request bodies received so far, oldest first."""
        with self._lock:
            return list(self._requests)

    def clear(self) -> None:
        """Forget the requests received so far."""
        with self._lock:
            self._requests.clear()

    def wait_for_requests(self, count: int, timeout_s: float = _START_TIMEOUT_S) -> bool:
        """Wait until at least ``count`` requests have arrived; False when ``timeout_s`` passes first."""
        deadline = time.monotonic() + timeout_s
        with self._arrived:
            while len(self._requests) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._arrived.wait(left)
            return True

    def close(self) -> None:
        """Stop serving and join the server thread (bounded); safe to call twice."""
        if self._closing.is_set():
            return
        self._closing.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(_CLOSE_TIMEOUT_S)

    def __enter__(self) -> FakeModelServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
