"""The codex controller: a ``compacted`` record Codex resumes from (docs/codex.md)."""

from __future__ import annotations

import fcntl
import json
from pathlib import Path

import pytest

from engine.agents.codex.compaction_record import SUMMARY_PREAMBLE, orphan_outputs
from engine.agents.codex.reader import CodexReader
from tests.engine._agent_files import SID, codex_session
from tui.cli.main import main


def test_the_compacted_record_is_appended_and_read_back_as_codex_resumes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = codex_session(tmp_path / ".codex", compacted=False, scale=200)
    before = path.read_bytes()
    state = ["--state-dir", str(tmp_path / "state")]
    assert main([*state, "compact", "--json", "--dry-run", "--keep-recent", "6", str(path)]) == 0
    plan = json.loads(capsys.readouterr().out)["plan"]
    assert plan["controller"] == "codex"
    assert main([*state, "compact", "--yes", "--keep-recent", "6", str(path)]) == 0
    assert f"codex resume {SID}" in capsys.readouterr().out
    data = path.read_bytes()
    assert data.startswith(before)
    record = json.loads(data[len(before):])
    assert record["type"] == "compacted" and record["ordinal"] == 13
    history = record["payload"]["replacement_history"]
    assert [(h["role"], h["content"][0]["text"]) for h in history] == [
        ("developer", "<permissions instructions>…"), ("user", "<environment_context>…</environment_context>"),
        ("user", SUMMARY_PREAMBLE + plan["summary"]),
        *[(h["role"], h["content"][0]["text"]) for h in history[3:]]]
    assert [h["id"] for h in history[3:]] == [k for k in plan["kept_ids"] if k not in ("d1", "e1")]
    reading = CodexReader(path, {}).read_new()
    assert [i.role for i in reading.context][:4] == ["harness", "harness", "harness", "summary"]
    assert reading.context_tokens.tokens is None  # known again at Codex's next turn


def test_refused_while_a_process_holds_the_thread_lock(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / ".codex"
    path = codex_session(home, compacted=False, scale=200)
    lock = home / "thread-writer-locks" / f"{SID}.lock"
    lock.parent.mkdir(parents=True)
    lock.write_bytes(b"")
    before = path.read_bytes()
    with lock.open("rb") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        assert main(["--state-dir", str(tmp_path / "state"), "compact", "--yes", "--keep-recent", "6",
                     str(path)]) == 4
    assert "is running this session" in capsys.readouterr().err
    assert path.read_bytes() == before


def test_a_tool_output_without_its_call_is_never_kept() -> None:
    call = {"type": "function_call", "call_id": "c1", "name": "shell", "arguments": "{}"}
    output = {"type": "function_call_output", "call_id": "c1", "output": "ok"}
    assert orphan_outputs([call, output]) == []
    assert orphan_outputs([output]) == ["c1"]
