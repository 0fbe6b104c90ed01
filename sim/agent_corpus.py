"""Corpora of many sessions of each agent, laid out where each agent (and ccusage) looks for them.

Claude Code and Codex files are shaped record by record as the real binaries write them (docs/claude-code.md,
docs/codex.md): Claude Code's ``user``/``attachment``/``assistant`` chain with ``queue-operation``,
``last-prompt`` and ``cost-state`` bookkeeping, a reply split over two ``assistant`` records that repeat its
``message.id`` and usage, tool use; Codex's ``session_meta``, ``turn_context``, ``response_item``s, one
``token_usage_record`` and one ``token_count`` per response (``input_tokens`` with the cached ones included,
reasoning tokens inside ``output_tokens``). pi and OpenClaw sessions are :mod:`sim.session_generator`'s, one
template re-dated and re-named per copy so that every copy's requests are its own.

Each session is dated on a day of its own (``START`` + its number), so per-day totals cover every session.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from sim.session_generator import generate_session_file

__all__ = ["START", "write_claude_code", "write_codex", "write_openclaw", "write_pi"]

START = datetime(2024, 1, 1, 9, 0, tzinfo=UTC)
_WORDS = ("the", "index", "reads", "only", "what", "changed", "since", "last", "run", "and", "keeps", "each",
          "request", "once", "per", "file", "with", "its", "tokens", "cost")


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words))


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _lines(records: list[dict[str, Any]]) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


def _claude_session(rng: random.Random, sid: str, day: datetime, cwd: str, turns: int) -> bytes:
    records: list[dict[str, Any]] = []
    leaf: str | None = None
    moment = day
    context = 9_000 + rng.randrange(3_000)
    spent = {"input": 0, "output": 0, "read": 0, "write": 0}
    base = {"isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": sid, "version": "2.1.328",
            "gitBranch": "main"}
    model = rng.choice(("claude-sonnet-4-5", "claude-opus-4-5", "claude-haiku-4-5"))
    for turn in range(turns):
        prompt = _text(rng, 12)
        moment += timedelta(seconds=20 + rng.randrange(40))
        records.append({"type": "queue-operation", "operation": "enqueue", "timestamp": _stamp(moment),
                        "sessionId": sid, "content": prompt})
        records.append({"type": "queue-operation", "operation": "dequeue", "timestamp": _stamp(moment),
                        "sessionId": sid})
        user = str(uuid.UUID(int=rng.getrandbits(128)))
        prompt_id = str(uuid.UUID(int=rng.getrandbits(128)))
        records.append({"parentUuid": leaf, **base, "type": "user", "message": {"role": "user", "content": prompt},
                        "uuid": user, "timestamp": _stamp(moment), "promptId": prompt_id})
        attachment = str(uuid.UUID(int=rng.getrandbits(128)))
        records.append({"parentUuid": user, **base, "type": "attachment", "uuid": attachment,
                        "timestamp": _stamp(moment),
                        "attachment": {"type": "date", "date": moment.date().isoformat(),
                                       "rendered": "<system-reminder>date</system-reminder>"}})
        leaf = attachment
        for step in range(1 + (turn % 3 == 1)):  # every third turn runs a tool first
            moment += timedelta(seconds=2 + rng.randrange(8))
            write = 200 + rng.randrange(2_000)
            usage: dict[str, Any] = {"input_tokens": 3 + rng.randrange(20), "cache_creation_input_tokens": write,
                                     "cache_read_input_tokens": context, "output_tokens": 20 + rng.randrange(600),
                                     "service_tier": "standard"}
            context += write
            spent["input"] += usage["input_tokens"]
            spent["output"] += usage["output_tokens"]
            spent["read"] += usage["cache_read_input_tokens"]
            spent["write"] += write
            mid = f"msg_{rng.getrandbits(96):024x}"
            rid = f"req_{rng.getrandbits(96):024x}"
            tool = step == 0 and turn % 3 == 1
            blocks: list[dict[str, Any]] = [{"type": "text", "text": _text(rng, 30)}]
            if tool:
                blocks.append({"type": "tool_use", "id": f"toolu_{rng.getrandbits(64):016x}", "name": "Bash",
                               "input": {"command": "ls"}})
            for part, block in enumerate(blocks):  # one record per content block, each repeating id and usage
                node = str(uuid.UUID(int=rng.getrandbits(128)))
                message = {"id": mid, "type": "message", "role": "assistant", "model": model, "content": [block],
                           "stop_reason": ("tool_use" if tool else "end_turn") if part == len(blocks) - 1 else None,
                           "usage": usage}
                records.append({"parentUuid": leaf, **base, "type": "assistant", "uuid": node, "requestId": rid,
                                "timestamp": _stamp(moment), "message": message})
                leaf = node
            if tool:
                result = str(uuid.UUID(int=rng.getrandbits(128)))
                records.append({"parentUuid": leaf, **base, "type": "user", "uuid": result,
                                "timestamp": _stamp(moment),
                                "message": {"role": "user", "content": [{"type": "tool_result",
                                                                          "tool_use_id": blocks[1]["id"],
                                                                          "content": _text(rng, 40)}]}})
                leaf = result
        records.append({"type": "last-prompt", "lastPrompt": prompt, "leafUuid": leaf, "sessionId": sid})
        records.append({"type": "cost-state", "sessionId": sid, "totalCostUSD": 0.0, "modelUsage": {model: {
            "inputTokens": spent["input"], "outputTokens": spent["output"], "cacheReadInputTokens": spent["read"],
            "cacheCreationInputTokens": spent["write"]}}})
    return _lines(records)


def write_claude_code(config_dir: Path, count: int, *, turns: int = 12, seed: int = 1) -> Iterator[Path]:
    """``count`` sessions under ``config_dir/projects/<project>/<session>.jsonl`` (ten projects)."""
    rng = random.Random(seed)
    for i in range(count):
        sid = str(uuid.UUID(int=rng.getrandbits(128)))
        cwd = f"/home/dev/project-{i % 10}"
        path = config_dir / "projects" / cwd.replace("/", "-") / f"{sid}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(_claude_session(rng, sid, START + timedelta(days=i), cwd, turns))
        yield path


def _codex_session(rng: random.Random, sid: str, day: datetime, turns: int) -> bytes:
    n = 0
    moment = day

    def rec(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        nonlocal n
        n += 1
        return {"timestamp": _stamp(moment), "ordinal": n - 1, "type": kind, "payload": payload}

    model = rng.choice(("gpt-5.2-codex", "gpt-5.1-codex-mini", "gpt-5"))
    records = [
        rec("session_meta", {"id": sid, "timestamp": _stamp(moment), "cwd": "/home/dev/api", "originator": "codex_exec",
                             "cli_version": "0.169.0", "model_provider": "openai",
                             "base_instructions": {"text": "You are Codex, a coding agent."}}),
        rec("event_msg", {"type": "task_started", "model_context_window": 258_400}),
        rec("response_item", {"type": "message", "role": "developer",
                              "content": [{"type": "input_text", "text": "<permissions instructions>"}]}),
        rec("turn_context", {"cwd": "/home/dev/api", "model": model, "approval_policy": "never"}),
    ]
    context = 6_000 + rng.randrange(2_000)
    totals = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0, "reasoning_output_tokens": 0,
              "total_tokens": 0}
    for turn in range(turns):
        moment += timedelta(seconds=20 + rng.randrange(40))
        records.append(rec("response_item", {"type": "message", "role": "user",
                                             "content": [{"type": "input_text", "text": _text(rng, 12)}]}))
        for step in range(1 + (turn % 3 == 1)):
            moment += timedelta(seconds=1 + rng.randrange(6))
            fresh = 100 + rng.randrange(1_500)
            reasoning = rng.randrange(200) if turn % 2 else 0
            output = reasoning + 20 + rng.randrange(400)  # the Responses API counts reasoning inside output
            usage = {"input_tokens": context + fresh, "cached_input_tokens": context, "output_tokens": output,
                     "reasoning_output_tokens": reasoning, "total_tokens": context + fresh + output}
            context += fresh + output
            for name in totals:
                totals[name] += usage[name]
            if step == 0 and turn % 3 == 1:
                call_id = f"call_{rng.getrandbits(64):016x}"
                records.append(rec("response_item", {"type": "function_call", "name": "shell", "call_id": call_id,
                                                     "arguments": '{"command":["ls"]}'}))
                records.append(rec("response_item", {"type": "function_call_output", "call_id": call_id,
                                                     "output": _text(rng, 40)}))
            else:
                records.append(rec("response_item", {"type": "message", "role": "assistant", "id": f"msg_{n}",
                                                     "content": [{"type": "output_text", "text": _text(rng, 30)}]}))
            records.append(rec("token_usage_record", {"response_id": f"resp_{rng.getrandbits(96):024x}",
                                                      "usage": usage, "turn_token_usage": usage}))
            records.append(rec("event_msg", {"type": "token_count", "info": {
                "total_token_usage": dict(totals), "last_token_usage": usage, "model_context_window": 258_400}}))
        records.append(rec("event_msg", {"type": "task_complete"}))
    return _lines(records)


def write_codex(codex_home: Path, count: int, *, turns: int = 12, seed: int = 2) -> Iterator[Path]:
    """``count`` rollouts under ``codex_home/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl``."""
    rng = random.Random(seed)
    for i in range(count):
        sid = str(uuid.UUID(int=rng.getrandbits(128)))
        day = START + timedelta(days=i)
        path = (codex_home / "sessions" / f"{day:%Y}" / f"{day:%m}" / f"{day:%d}"
                / f"rollout-{day:%Y-%m-%dT%H-%M-%S}-{sid}.jsonl")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(_codex_session(rng, sid, day, turns))
        yield path


_TEMPLATE_DAY = b'"2026-03-02T'
"""The day :func:`sim.session_generator.generate_session_file` dates every line of a session on."""


def _copies(directory: Path, count: int, session_bytes: int, name: str) -> Iterator[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    template = directory / ".template.jsonl"
    generate_session_file(template, target_bytes=session_bytes, seed=11)
    data = template.read_bytes()
    template.unlink()
    header, rest = data.split(b"\n", 1)
    old_id = orjson.loads(header)["id"].encode()
    for i in range(count):
        day = START + timedelta(days=i)
        sid = str(uuid.UUID(int=random.Random(i).getrandbits(128))).encode()
        text = (header.replace(old_id, sid) + b"\n" + rest).replace(_TEMPLATE_DAY, f'"{day:%Y-%m-%d}T'.encode())
        path = directory / name.format(day=day, sid=sid.decode())
        path.write_bytes(text)
        yield path


def write_pi(agent_dir: Path, count: int, *, session_bytes: int = 200_000) -> Iterator[Path]:
    """``count`` pi sessions under ``agent_dir/sessions/--home-dev-acme-payments--/<time>_<id>.jsonl``."""
    return _copies(agent_dir / "sessions" / "--home-dev-acme-payments--", count, session_bytes,
                   "{day:%Y-%m-%dT%H-%M-%S-000Z}_{sid}.jsonl")


def write_openclaw(state_dir: Path, count: int, *, session_bytes: int = 200_000) -> Iterator[Path]:
    """``count`` OpenClaw sessions under ``state_dir/agents/main/sessions/<id>.jsonl``."""
    return _copies(state_dir / "agents" / "main" / "sessions", count, session_bytes, "{sid}.jsonl")
