"""The claude-code controller: a boundary and a summary Claude Code resumes from (docs/claude-code.md)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from engine.agents.claude_code.reader import ClaudeCodeReader
from engine.fs.lock_info import process_starttime
from tests.engine._agent_files import SID, cc_assistant, cc_user, write_jsonl
from tui.cli.main import main


def _session(tmp_path: Path) -> Path:
    records = [cc_user("u1", None, "first question " * 40)]
    parent = "u1"
    for n in range(2, 6):
        records.append(cc_assistant(f"r{n - 1}", parent, f"answer {n - 1} " * 40, (5, 100, 100 * n, 20), f"m{n}"))
        records.append(cc_user(f"u{n}", f"r{n - 1}", f"question {n} " * 40))
        parent = f"u{n}"
    records.append(cc_assistant("r5", parent, "last answer", (5, 100, 900, 20), "m9"))
    return write_jsonl(tmp_path / ".claude" / "projects" / "-w" / f"{SID}.jsonl", records)


def _plan(path: Path, state: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["--state-dir", str(state), "compact", "--json", "--dry-run", "--keep-recent", "150",
                 str(path)]) == 0
    plan: dict[str, object] = json.loads(capsys.readouterr().out)["plan"]
    return plan


def test_the_compaction_is_appended_and_read_back_as_claude_code_resumes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _session(tmp_path)
    before = path.read_bytes()
    plan = _plan(path, tmp_path / "state", capsys)
    assert plan["controller"] == "claude-code"
    assert main(["--state-dir", str(tmp_path / "state"), "compact", "--yes", "--keep-recent", "150", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"claude --resume {SID}" in out
    data = path.read_bytes()
    assert data.startswith(before) and data.endswith(b"\n")
    boundary, summary = (json.loads(line) for line in data[len(before):].splitlines())
    assert boundary["subtype"] == "compact_boundary" and boundary["parentUuid"] is None
    assert boundary["logicalParentUuid"] == "r5" and summary["parentUuid"] == boundary["uuid"]
    segment = boundary["compactMetadata"]["preservedSegment"]
    assert (segment["headUuid"], segment["anchorUuid"], segment["tailUuid"]) == (
        plan["cut_point"]["first_kept_entry_id"], summary["uuid"], "r5")  # type: ignore[index]
    reading = ClaudeCodeReader(path).read_new()
    assert reading.context[0].role == "summary"
    assert [i.id for i in reading.context[1:]] == list(plan["kept_ids"])  # type: ignore[call-overload]
    audit = (tmp_path / "state" / "context" / "audit.jsonl").read_text()
    assert '"controller":"claude-code"' in audit.replace(" ", "") and '"result":"ok"' in audit.replace(" ", "")


def test_refused_while_a_live_claude_runs_the_session(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _session(tmp_path)
    announced = tmp_path / ".claude" / "sessions" / f"{os.getpid()}.json"
    announced.parent.mkdir(parents=True)
    announced.write_text(json.dumps({"pid": os.getpid(), "sessionId": SID,
                                     "procStart": str(process_starttime(os.getpid())), "status": "busy"}))
    before = path.read_bytes()
    assert main(["--state-dir", str(tmp_path / "state"), "compact", "--yes", "--keep-recent", "150", str(path)]) == 4
    assert "is running this session" in capsys.readouterr().err
    assert path.read_bytes() == before


def test_refused_when_the_session_moved_on_since_the_plan(tmp_path: Path) -> None:
    from engine.agents.discovery import discover_sessions
    from engine.compaction.claude_code_controller import write_claude_code_compaction
    from engine.compaction.planner import plan_compaction
    from engine.session.snapshot import SessionFollower

    path = _session(tmp_path)
    [source] = discover_sessions([path]).sessions
    follower = SessionFollower(source)
    snapshot = follower.refresh()
    plan = plan_compaction(snapshot, "summarize", None, keep_recent=150, load=follower.reader.read_object)
    with path.open("ab") as handle:
        handle.write(json.dumps(cc_user("u9", "r5", "one more")).encode() + b"\n")
    before = path.read_bytes()
    with pytest.raises(ValueError, match="moved on"):
        write_claude_code_compaction(plan)
    assert path.read_bytes() == before
