"""A Claude Code reply reaches capture as pi's blocks: its words, its reasoning and its tool calls apart, so a
checkpoint of a Claude Code session lists the files and tools the agent used and never takes its reasoning or a
tool's input for what it said (engine/agents/agent_entries.py, docs/claude-code.md Records)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from tests.engine._agent_files import SID, cc_reply, cc_tool_result, cc_user, cx, cx_count, cx_message, write_jsonl
from tui.cli.main import main


def _checkpoint(path: Path, state: Path) -> dict[str, Any]:
    """``ctxscope checkpoint`` of ``path``, as written."""
    assert main(["--state-dir", str(state), "checkpoint", str(path)]) == 0
    [written] = state.rglob("cp_001.yaml")
    return dict(yaml.safe_load(written.read_text()))


def test_a_claude_code_checkpoint_lists_the_files_and_tools_and_keeps_reasoning_out(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "p" / f"{SID}.jsonl", [
        cc_user("u1", None, "rename the config loader's env variable to APP_ENV in src/config.py"),
        cc_reply("r1", "u1", [
            {"type": "thinking", "thinking": "The user probably wants PROD_SECRET_MODE too; decided: drop the tests."},
            {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/w/src/config.py"}}]),
        cc_tool_result("t1", "r1", "toolu_1", "ENV = os.environ['ENV']"),
        cc_reply("r2", "t1", [
            {"type": "text", "text": "Renaming it now."},
            {"type": "tool_use", "id": "toolu_2", "name": "Edit",
             "input": {"file_path": "/w/src/config.py", "old_string": "'ENV'", "new_string": "'APP_ENV'"}}]),
        cc_tool_result("t2", "r2", "toolu_2", "The file /w/src/config.py has been updated."),
        cc_reply("r3", "t2", [{"type": "text", "text": "Renamed ENV to APP_ENV in src/config.py."}]),
    ])
    checkpoint = _checkpoint(path, tmp_path / "state")
    assert checkpoint["resources"] == {"files_read": ["/w/src/config.py"], "files_modified": ["/w/src/config.py"],
                                       "tools_used": ["Read", "Edit"]}
    assert checkpoint["working"]["last_tool_call"]["name"] == "Edit"
    # What the agent said: its words only, not its reasoning nor a tool's input (the last call's summary names those).
    said = yaml.safe_dump({k: checkpoint[k] for k in ("decisions", "open_items", "learnings", "thread")})
    assert "PROD_SECRET_MODE" not in said and "drop the tests" not in said
    assert "old_string" not in said and "Renamed ENV to APP_ENV" in said


def test_a_codex_checkpoint_lists_the_files_and_tools_of_its_call_items(tmp_path: Path) -> None:
    # Codex writes a call as its own response item (function_call, custom_tool_call), not inside the reply; shapes
    # as Codex 0.169 and Codex Desktop write them (shell_command and apply_patch: the corpus's d59, d60).
    patch = "*** Begin Patch\n*** Update File: src/config.py\n@@\n-ENV\n+APP_ENV\n*** End Patch\n"
    path = write_jsonl(tmp_path / "sessions" / "2026" / "11" / "27" / f"rollout-2026-11-27T10-00-00-{SID}.jsonl", [
        cx("session_meta", {"id": SID, "cwd": "/w", "cli_version": "0.169.0"}, 0),
        cx("turn_context", {"model": "gpt-5.2-codex"}, 1),
        cx("response_item", cx_message("user", "rename ENV to APP_ENV in src/config.py", "p1"), 2),
        cx("response_item", {"type": "function_call", "name": "shell_command", "call_id": "call_1",
                             "arguments": json.dumps({"command": "cat src/config.py", "workdir": "/w"})}, 3),
        cx("response_item", {"type": "function_call_output", "call_id": "call_1", "output": "ENV = 1"}, 4),
        cx("response_item", {"type": "custom_tool_call", "name": "apply_patch", "call_id": "call_2",
                             "status": "completed", "input": patch}, 5),
        cx("response_item", {"type": "custom_tool_call_output", "call_id": "call_2", "output": "Success."}, 6),
        cx("response_item", cx_message("assistant", "Renamed ENV to APP_ENV in src/config.py.", "m1"), 7),
        cx("event_msg", cx_count(300, 300), 8),
    ])
    checkpoint = _checkpoint(path, tmp_path / "state")
    assert checkpoint["resources"] == {"files_read": ["src/config.py"], "files_modified": ["src/config.py"],
                                       "tools_used": ["shell_command", "apply_patch"]}
    assert checkpoint["working"]["last_tool_call"]["name"] == "apply_patch"
