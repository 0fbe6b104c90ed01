"""The live loop: the real pi talks to a fake model, ctxscope compacts between its turns, pi carries on.

pi runs non-interactively (``pi -p``, ``--continue``, ``--offline``) with ``PI_CODING_AGENT_DIR`` pointing at a
temporary agent dir whose models.json declares an OpenAI-compatible provider served by
:class:`~tests.realagents.fake_model.FakeModelServer`. After ``ctxscope compact --yes`` the request pi sends must
hold ctxscope's summary and only the kept messages; then pi compacts on its own and ctxscope must read that.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.realagents.fake_model import (
    SUMMARY_MARKER,
    FakeModelServer,
    Reply,
    default_responder,
    is_summary_request,
    message_text,
)
from tests.realagents.pi import ctxscope_side
from tests.realagents.pi.compare import TALLY, compare
from tests.realagents.pi.pi_agent import KEEPS, PiInstall, run_pi

pytestmark = pytest.mark.realagents

CONTEXT_WINDOW = 40_000
RESERVE = 8_000
KEEP_RECENT = 4_000
CTX_KEEP = 1_000
NOTES = "notes.txt"
_MARKER = re.compile(r"marker-T\d+")


def _prompt(n: int) -> str:
    # ~600 pi tokens, with a marker that identifies the turn wherever its text ends up.
    return f"marker-T{n}: " + " ".join(f"line {n}.{i} of the task description" for i in range(70))


class Responder:
    """Reads a file when asked (``READ:<path>``), reports an inflated prompt size when told, else the default."""

    def __init__(self) -> None:
        self.inflate_to: int | None = None
        self.calls = 0

    def __call__(self, body: dict[str, Any]) -> Reply:
        reply = default_responder(body)
        messages = body.get("messages", [])
        last = messages[-1] if messages else {}
        if SUMMARY_MARKER in reply.text:
            return reply
        if last.get("role") == "user" and "READ:" in message_text(last):
            path = message_text(last).split("READ:", 1)[1].split()[0]
            self.calls += 1
            call = {"id": f"call_{self.calls}", "name": "read", "arguments": json.dumps({"path": path})}
            return Reply(text="", prompt_tokens=reply.prompt_tokens, completion_tokens=5, tool_calls=(call,))
        if self.inflate_to is not None:
            return Reply(text=reply.text, prompt_tokens=self.inflate_to, completion_tokens=reply.completion_tokens)
        return reply


def _session_file(sessions: Path) -> Path:
    files = sorted(sessions.glob("*.jsonl"))
    assert len(files) == 1, f"expected one pi session file, found {files}"
    return files[0]


def _entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def live(pi: PiInstall, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    root = tmp_path_factory.mktemp("pi-live")
    agent, sessions, work = root / "agent", root / "sessions", root / "work"
    for d in (agent, sessions, work):
        d.mkdir()
    (work / NOTES).write_text("The deploy key lives in vault path ops/deploy.\n")
    responder = Responder()
    out: dict[str, Any] = {"agent_dir": agent, "work": work}
    with FakeModelServer(responder) as server:
        provider = {
            "baseUrl": server.base_url,
            "api": "openai-completions",
            "apiKey": "fake-key",
            "models": [{"id": "fake-model", "contextWindow": CONTEXT_WINDOW, "maxTokens": 2000}],
        }
        (agent / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
        settings = {
            "defaultProvider": "fake",
            "defaultModel": "fake-model",
            "compaction": {"enabled": True, "reserveTokens": RESERVE, "keepRecentTokens": KEEP_RECENT},
        }
        (agent / "settings.json").write_text(json.dumps(settings))
        env = {
            **os.environ,
            "PI_CODING_AGENT_DIR": str(agent),
            "HOME": str(root),
            "PI_SKIP_VERSION_CHECK": "1",
            "PI_OFFLINE": "1",
        }
        base = ["--offline", "--no-extensions", "--no-skills", "--no-context-files", "--session-dir", str(sessions)]

        def turn(text: str, *, first: bool = False) -> None:
            run = run_pi(pi, [*base, *([] if first else ["--continue"]), "-p", text], cwd=work, env=env)
            assert run.returncode == 0, f"pi failed: {run.stderr[-2000:]}"

        turn(f"{_prompt(1)} READ:{NOTES}", first=True)
        for n in (2, 3, 4):
            turn(_prompt(n))
        path = _session_file(sessions)
        out["path"] = path
        proc = ctxscope_side.run(
            ["compact", str(path), "--yes", "--json", "--keep-recent", str(CTX_KEEP)],
            env={"PI_CODING_AGENT_DIR": str(agent)},
        )
        assert proc.returncode == 0, proc.stderr
        out["compact"] = json.loads(proc.stdout[: proc.stdout.rindex("}") + 1])
        out["entries_after_ctx"] = _entries(path)
        server.clear()
        turn(_prompt(5))
        out["request_after_ctx"] = next(r for r in server.requests if not is_summary_request(r))
        # Now make pi see a context above its line (window − reserve) and let it compact on its own.
        responder.inflate_to = CONTEXT_WINDOW - RESERVE + 2_000
        turn(_prompt(6))
        responder.inflate_to = None
        for n in (7, 8, 9):
            if any(e["type"] == "compaction" and SUMMARY_MARKER in e["summary"] for e in _entries(path)):
                break
            turn(_prompt(n))
        out["entries_final"] = _entries(path)
        out["requests_final"] = server.requests
    yield out


def _kept_markers(entries: list[dict[str, Any]], ids: list[str]) -> list[str]:
    by_id = {e.get("id"): e for e in entries}
    found = []
    for i in ids:
        e = by_id[i]
        if e["type"] == "message" and e["message"]["role"] == "user":
            text = " ".join(b.get("text", "") for b in e["message"]["content"] if isinstance(b, dict))
            found += _MARKER.findall(text)
    return found


def test_request_after_ctxscope_compaction_holds_summary_and_kept_only(live: dict[str, Any]) -> None:
    plan = live["compact"]["plan"]
    assert plan["kept_ids"] and plan["messages"]["summarized"] > 0
    request = live["request_after_ctx"]
    messages = [m for m in request["messages"] if m["role"] not in ("system", "developer")]
    first = message_text(messages[0])
    assert messages[0]["role"] == "user"
    assert plan["summary"] in first, "pi's first message is not ctxscope's summary"
    sent = [mk for m in messages[1:] for mk in _MARKER.findall(message_text(m))]
    expected = [*_kept_markers(live["entries_after_ctx"], plan["kept_ids"]), "marker-T5"]
    TALLY.add("live.request_holds_summary", plan["summary"] in first)
    TALLY.add("live.request_kept_only", sent == expected)
    assert sent == expected
    assert "marker-T1" not in json.dumps(messages[1:]), "a summarized turn reached the model"


def test_ctxscope_reads_pis_own_compaction(live: dict[str, Any], pi: PiInstall) -> None:
    entries = live["entries_final"]
    mine = [e for e in entries if e["type"] == "compaction" and SUMMARY_MARKER in e["summary"]]
    assert mine, "pi did not compact on its own"
    path: Path = live["path"]
    oracle = pi.oracle([path])[str(path)]
    ours = ctxscope_side.pi_view(path, KEEPS)
    for name in ("leaf_id", "context", "context_tokens", "estimate", "unknown"):
        theirs, got = compare(oracle, ours, name)
        TALLY.add(f"live.{name}", theirs == got)
        assert theirs == got, name
    view = ctxscope_side.inspect(path, 20_000)
    assert view["context"][0]["entry_id"] == f"compaction:{mine[-1]['id']}"
    assert view["compactions_in_file"] == sum(1 for e in entries if e["type"] == "compaction")


def test_pi_keeps_ctxscope_file_lists(live: dict[str, Any]) -> None:
    plan = live["compact"]["plan"]
    assert NOTES in plan["read_files"]
    pis = [e for e in live["entries_final"] if e["type"] == "compaction" and SUMMARY_MARKER in e["summary"]]
    assert pis
    assert NOTES in pis[-1]["details"]["readFiles"]


def test_window_and_line_come_from_pi_config(live: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(live["agent_dir"]))
    view = ctxscope_side.inspect(live["path"], 20_000)
    assert view["context_window"] == CONTEXT_WINDOW
    assert view["compaction_threshold_tokens"] == CONTEXT_WINDOW - RESERVE
