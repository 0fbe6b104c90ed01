"""Small Claude Code and Codex session files built record by record, shaped as the real binaries write them
(docs/claude-code.md, docs/codex.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SID = "11111111-2222-3333-4444-555555555555"


def cc_user(uuid: str, parent: str | None, text: str, **extra: Any) -> dict[str, Any]:
    return {"parentUuid": parent, "isSidechain": False, "type": "user", "message": {"role": "user", "content": text},
            "uuid": uuid, "timestamp": "2026-11-27T10:00:00.000Z", "sessionId": SID, "cwd": "/w", "version": "2.1.328",
            **extra}


def cc_assistant(uuid: str, parent: str, text: str, usage: tuple[int, int, int, int], msg_id: str,
                 model: str = "claude-opus-5-5") -> dict[str, Any]:
    fresh, write, read, out = usage
    return {"parentUuid": parent, "isSidechain": False, "type": "assistant", "uuid": uuid, "sessionId": SID,
            "timestamp": "2026-11-27T10:00:01.000Z",
            "message": {"id": msg_id, "role": "assistant", "model": model, "content": [{"type": "text", "text": text}],
                        "usage": {"input_tokens": fresh, "cache_creation_input_tokens": write,
                                  "cache_read_input_tokens": read, "output_tokens": out}}}


def cc_reply(uuid: str, parent: str, blocks: list[dict[str, Any]], msg_id: str | None = None) -> dict[str, Any]:
    """A reply whose content is ``blocks`` (text, thinking, tool_use), with a small usage."""
    record = cc_assistant(uuid, parent, "", (1, 10, 100, 20), msg_id or f"msg_{uuid}")
    record["message"]["content"] = blocks
    return record


def cc_tool_result(uuid: str, parent: str, tool_id: str, content: Any, result: Any = None) -> dict[str, Any]:
    """A ``user`` record carrying one ``tool_result`` for ``tool_id`` (``content``: a string or text blocks) and
    Claude Code's ``toolUseResult`` when given."""
    record = cc_user(uuid, parent, "")
    record["message"]["content"] = [{"tool_use_id": tool_id, "type": "tool_result", "content": content}]
    if result is not None:
        record["toolUseResult"] = result
    return record


def cc_attachment(uuid: str, parent: str) -> dict[str, Any]:
    return {"parentUuid": parent, "isSidechain": False, "type": "attachment", "uuid": uuid, "sessionId": SID,
            "attachment": {"type": "date", "date": "2026-11-27"}}


def cc_boundary(uuid: str, old_leaf: str, trigger: str, pre: int, post: int,
                segment: tuple[str, str, str] | None) -> dict[str, Any]:
    meta: dict[str, Any] = {"trigger": trigger, "preTokens": pre, "postTokens": post}
    if segment:
        meta["preservedSegment"] = {"headUuid": segment[0], "anchorUuid": segment[1], "tailUuid": segment[2]}
    return {"parentUuid": None, "logicalParentUuid": old_leaf, "isSidechain": False, "type": "system",
            "subtype": "compact_boundary", "content": "Conversation compacted", "uuid": uuid, "sessionId": SID,
            "timestamp": "2026-11-27T10:00:02.000Z", "compactMetadata": meta}


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in records))
    return path


def claude_session(path: Path) -> Path:
    """Two turns, a manual /compact keeping the last reply, a turn after it."""
    return write_jsonl(path, [
        {"type": "queue-operation", "operation": "enqueue", "sessionId": SID, "content": "hello"},
        cc_user("u1", None, "hello"),
        cc_attachment("a1", "u1"),
        cc_assistant("r1", "a1", "reply one", (10, 100, 200, 5), "msg_1"),
        {"type": "last-prompt", "lastPrompt": "hello", "leafUuid": "r1", "sessionId": SID},
        cc_user("u2", "r1", "second"),
        cc_assistant("r2", "u2", "reply two", (8, 50, 300, 4), "msg_2"),
        cc_boundary("b1", "r2", "manual", 362, 120, ("r2", "s1", "r2")),
        cc_user("s1", "b1", "This session is being continued … SUMMARY", isCompactSummary=True),
        cc_user("c1", "s1", "<local-command-caveat>Caveat: …</local-command-caveat>", isMeta=True),
        cc_user("c2", "c1", "<command-name>/compact</command-name>"),
        cc_user("u3", "c2", "after compact"),
        cc_assistant("r3", "u3", "reply three", (7, 40, 100, 3), "msg_3"),
        cc_assistant("r3b", "r3", "reply three, second block", (7, 40, 100, 3), "msg_3"),
    ])


def cx(kind: str, payload: dict[str, Any], n: int) -> dict[str, Any]:
    return {"timestamp": f"2026-11-27T10:00:{n:02d}.000Z", "ordinal": n, "type": kind, "payload": payload}


def cx_message(role: str, text: str, ident: str) -> dict[str, Any]:
    part = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "id": ident, "role": role, "content": [{"type": part, "text": text}]}


def cx_count(last_total: int, total_total: int, window: int = 258_400) -> dict[str, Any]:
    return {"type": "token_count", "info": {
        "last_token_usage": {"input_tokens": last_total - 3, "cached_input_tokens": 10, "output_tokens": 3,
                             "total_tokens": last_total},
        "total_token_usage": {"input_tokens": total_total - 3, "cached_input_tokens": 10, "output_tokens": 3,
                              "total_tokens": total_total},
        "model_context_window": window}}


def codex_session(home: Path, *, compacted: bool, scale: int = 1) -> Path:
    """A rollout under ``home/sessions/2026/11/27``: two turns, optionally a compaction and a third turn.

    ``scale`` repeats the words of the first turn (a turn worth summarizing)."""
    records = [
        cx("session_meta", {"id": SID, "cwd": "/w", "cli_version": "0.169.0",
                            "base_instructions": {"text": "You are Codex."}}, 0),
        cx("event_msg", {"type": "task_started", "model_context_window": 258_400}, 1),
        cx("response_item", cx_message("developer", "<permissions instructions>…", "d1"), 2),
        cx("response_item", cx_message("user", "<environment_context>…</environment_context>", "e1"), 3),
        cx("turn_context", {"model": "gpt-5.2-codex"}, 4),
        cx("response_item", cx_message("user", " ".join(["first prompt"] * scale), "p1"), 5),
        cx("response_item", cx_message("assistant", " ".join(["first reply"] * scale), "m1"), 6),
        cx("token_usage_record", {"response_id": "resp_1", "usage": {"input_tokens": 100, "cached_input_tokens": 40,
                                                                     "output_tokens": 3}}, 7),
        cx("event_msg", cx_count(103, 103), 8),
        cx("response_item", cx_message("user", "second prompt", "p2"), 9),
        cx("response_item", cx_message("assistant", "second reply", "m2"), 10),
        cx("token_usage_record", {"response_id": "resp_2", "usage": {"input_tokens": 120, "cached_input_tokens": 60,
                                                                     "output_tokens": 3}}, 11),
        cx("event_msg", cx_count(123, 226), 12),
    ]
    if compacted:
        summary = "Another language model started to solve this problem … SUMMARY"
        records += [
            cx("compacted", {"message": summary, "replacement_history": [
                cx_message("user", "first prompt", "p1"), cx_message("user", "second prompt", "p2"),
                cx_message("user", summary, "s1")]}, 13),
            cx("event_msg", cx_count(60, 226), 14),
            cx("response_item", cx_message("user", "third prompt", "p3"), 15),
            cx("response_item", cx_message("assistant", "third reply", "m3"), 16),
            cx("token_usage_record", {"response_id": "resp_3", "usage": {"input_tokens": 70, "cached_input_tokens": 0,
                                                                         "output_tokens": 3}}, 17),
            cx("event_msg", cx_count(73, 299), 18),
        ]
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text("model_auto_compact_token_limit = 200000\n")
    return write_jsonl(home / "sessions" / "2026" / "11" / "27" / f"rollout-2026-11-27T10-00-00-{SID}.jsonl",
                       records)
