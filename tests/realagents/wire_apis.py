"""The fake model speaking Anthropic's Messages API and OpenAI's Responses API, both streamed, on 127.0.0.1.

Claude Code posts ``/v1/messages?beta=true`` and reads Anthropic's server-sent events; Codex posts
``/v1/responses`` and reads the Responses API's events. Each body is recorded as sent (``server.requests``) and
turned into a chat-like ``{"messages": [...]}`` for the responder, so one responder serves every agent. Standard
library only; nothing listens beyond loopback.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from tests.realagents.fake_model import (
    REPLY_PREFIX,
    FakeModelServer,
    Reply,
    _Handler,
    estimate_prompt_tokens,
    summary_text,
)

# The last user message of a compaction request: Claude Code's "/compact" prompt and Codex's checkpoint prompt.
_SUMMARY_ASK = re.compile(r"Your task is to create a detailed summary|CONTEXT CHECKPOINT COMPACTION")


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts: list[str] = []
    if isinstance(content, list):
        for part in content:
            if not isinstance(part, dict):
                continue
            for key in ("text", "output"):
                if isinstance(part.get(key), str):
                    parts.append(part[key])
            if part.get("type") == "tool_result":
                parts.append(_text_of(part.get("content")))
    return "\n".join(parts)


def chat_view(body: dict[str, Any]) -> dict[str, Any]:
    """A chat-completions-like view of an Anthropic or Responses body: ``{"messages": [{role, content}]}``."""
    messages: list[dict[str, Any]] = []
    if "input" in body or "instructions" in body:  # Responses API
        if isinstance(body.get("instructions"), str):
            messages.append({"role": "system", "content": body["instructions"]})
        items = body.get("input")
        for item in items if isinstance(items, list) else []:
            if not isinstance(item, dict):
                continue
            kind = item.get("type", "message")
            if kind == "message":
                messages.append({"role": item.get("role"), "content": _text_of(item.get("content"))})
            elif kind == "function_call":
                messages.append({"role": "assistant", "content": f"call {item.get('name')}"})
            elif kind == "function_call_output":
                messages.append({"role": "tool", "content": _text_of([item])})
        return {"messages": messages, "model": body.get("model")}
    system = body.get("system")
    if system:
        messages.append({"role": "system", "content": _text_of(system)})
    for message in body.get("messages") or []:
        if isinstance(message, dict):
            messages.append({"role": message.get("role"), "content": _text_of(message.get("content"))})
    return {"messages": messages, "model": body.get("model")}


def is_summary_ask(view: dict[str, Any]) -> bool:
    """True when the last user message asks for a summary (the agents' compaction prompts)."""
    users = [m for m in view["messages"] if m.get("role") == "user"]
    return bool(users) and bool(_SUMMARY_ASK.search(str(users[-1].get("content") or "")))


def wire_responder(view: dict[str, Any], *, pad: int = 0) -> Reply:
    """A summary for compaction requests, else ``fake reply N`` (N counts the user messages).

    ``pad`` tokens are added to every reported prompt (not to a summary request's): the agents read their context
    from the reported usage, so a padded prompt drives them to their own compaction threshold.
    """
    prompt_tokens = estimate_prompt_tokens(view) + (0 if is_summary_ask(view) else pad)
    if is_summary_ask(view):
        text = summary_text(view)
    else:
        n_user = sum(1 for m in view["messages"] if m.get("role") == "user")
        text = f"{REPLY_PREFIX} {n_user}"
    return Reply(text=text, prompt_tokens=prompt_tokens, completion_tokens=max(1, len(text) // 4))


def anthropic_usage(reply: Reply) -> dict[str, int]:
    """Split the prompt into fresh input, cache writes and cache reads (all three non-zero for big prompts)."""
    total = reply.prompt_tokens
    fresh = min(total, 3 + total % 97)
    read = (total - fresh) // 2
    return {"input_tokens": fresh, "cache_creation_input_tokens": total - fresh - read,
            "cache_read_input_tokens": read, "output_tokens": reply.completion_tokens}


def anthropic_wire_usage(reply: Reply) -> dict[str, Any]:
    """:func:`anthropic_usage` as the API sends it: the cache writes also broken down by lifetime (all 5-minute)."""
    usage: dict[str, Any] = dict(anthropic_usage(reply))
    usage["cache_creation"] = {"ephemeral_5m_input_tokens": usage["cache_creation_input_tokens"],
                               "ephemeral_1h_input_tokens": 0}
    return usage


def responses_usage(reply: Reply) -> dict[str, Any]:
    """The Responses API usage of a reply: half the prompt counted as cached."""
    return {"input_tokens": reply.prompt_tokens, "input_tokens_details": {"cached_tokens": reply.prompt_tokens // 2},
            "output_tokens": reply.completion_tokens, "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": reply.prompt_tokens + reply.completion_tokens}


class _WireHandler(_Handler):
    server: Any

    def do_POST(self) -> None:
        route = self.path.split("?", 1)[0].rstrip("/")
        if route not in ("/v1/messages", "/v1/responses"):
            if route == "/v1/messages/count_tokens":
                self._body()
                self._send_json(200, {"input_tokens": 100})
                return
            super().do_POST()
            return
        body = self._body()
        if body is None:
            return
        owner = self.server.owner
        owner._record({**body, "_route": route})
        try:
            reply = owner.responder(chat_view(body))
        except Exception as exc:  # noqa: BLE001 - a broken responder must answer, not hang the agent
            self._send_json(500, {"error": {"message": f"responder failed: {exc!r}"}})
            return
        if reply.delay_s > 0:
            owner._closing.wait(min(reply.delay_s, 120.0))
        model = str(body.get("model") or "fake-model")
        if route == "/v1/messages":
            if body.get("stream"):
                self._events(_anthropic_events(model, reply))
            else:
                self._send_json(200, _anthropic_message(model, reply))
        else:
            self._events(_responses_events(model, reply))

    def _body(self) -> dict[str, Any] | None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send_json(400, {"error": {"message": "body is not JSON"}})
            return None
        if not isinstance(body, dict):
            self._send_json(400, {"error": {"message": "body is not an object"}})
            return None
        return body

    def _events(self, events: list[tuple[str, dict[str, Any]]]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        try:
            for name, data in events:
                self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            return


_counter = iter(range(1, 1 << 60))


def _content_blocks(reply: Reply) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": reply.text}] if reply.text else []
    for call in reply.tool_calls:
        blocks.append({"type": "tool_use", "id": call["id"], "name": call["name"],
                       "input": json.loads(call["arguments"] or "{}")})
    return blocks


def _anthropic_message(model: str, reply: Reply) -> dict[str, Any]:
    return {"id": f"msg_fake{next(_counter)}", "type": "message", "role": "assistant", "model": model,
            "content": _content_blocks(reply), "stop_reason": "tool_use" if reply.tool_calls else "end_turn",
            "stop_sequence": None, "usage": anthropic_wire_usage(reply)}


def _anthropic_events(model: str, reply: Reply) -> list[tuple[str, dict[str, Any]]]:
    usage = anthropic_wire_usage(reply)
    start = {**_anthropic_message(model, reply), "content": [], "stop_reason": None,
             "usage": {**usage, "output_tokens": 1}}
    events: list[tuple[str, dict[str, Any]]] = [("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(_content_blocks(reply)):
        if block["type"] == "text":
            events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                                   "content_block": {"type": "text", "text": ""}}))
            half = len(block["text"]) // 2
            for piece in (block["text"][:half], block["text"][half:]):
                if piece:
                    events.append(("content_block_delta", {"type": "content_block_delta", "index": index,
                                                           "delta": {"type": "text_delta", "text": piece}}))
        else:
            events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                                   "content_block": {**block, "input": {}}}))
            events.append(("content_block_delta", {"type": "content_block_delta", "index": index, "delta": {
                "type": "input_json_delta", "partial_json": json.dumps(block["input"])}}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(("message_delta", {"type": "message_delta", "delta": {
        "stop_reason": "tool_use" if reply.tool_calls else "end_turn", "stop_sequence": None},
        "usage": {"output_tokens": usage["output_tokens"]}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def _responses_events(model: str, reply: Reply) -> list[tuple[str, dict[str, Any]]]:
    n = next(_counter)
    response = {"id": f"resp_fake{n}", "object": "response", "created_at": int(time.time()), "model": model,
                "status": "in_progress", "output": []}
    events: list[tuple[str, dict[str, Any]]] = [("response.created", {"type": "response.created",
                                                                      "response": response})]
    output: list[dict[str, Any]] = []
    if reply.text:
        item = {"type": "message", "id": f"msg_fake{n}", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": reply.text, "annotations": []}]}
        events.append(("response.output_item.added", {"type": "response.output_item.added",
                                                      "output_index": len(output),
                                                      "item": {**item, "content": [], "status": "in_progress"}}))
        events.append(("response.output_text.delta", {"type": "response.output_text.delta", "item_id": item["id"],
                                                      "output_index": len(output), "content_index": 0,
                                                      "delta": reply.text}))
        events.append(("response.output_item.done", {"type": "response.output_item.done",
                                                     "output_index": len(output), "item": item}))
        output.append(item)
    for call in reply.tool_calls:
        item = {"type": "function_call", "id": f"fc_{call['id']}", "call_id": call["id"], "name": call["name"],
                "arguments": call["arguments"], "status": "completed"}
        events.append(("response.output_item.done", {"type": "response.output_item.done",
                                                     "output_index": len(output), "item": item}))
        output.append(item)
    done = {**response, "status": "completed", "output": output, "usage": responses_usage(reply)}
    events.append(("response.completed", {"type": "response.completed", "response": done}))
    return events


class WireModelServer(FakeModelServer):
    """:class:`FakeModelServer` that also answers ``/v1/messages`` (Anthropic) and ``/v1/responses`` (OpenAI).

    The responder receives :func:`chat_view` of each body; ``requests`` holds the bodies as sent, each with a
    ``_route`` key naming the endpoint.
    """

    handler = _WireHandler

    def __init__(self, responder: Any = None) -> None:
        super().__init__(responder or wire_responder)

    @property
    def origin(self) -> str:
        """``http://127.0.0.1:PORT`` (Claude Code appends ``/v1/messages`` itself)."""
        return f"http://127.0.0.1:{self.port}"
