"""Claude Code and Codex sessions through discovery, ``status`` and ``report`` (docs/agents.md)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from engine.agents.discovery import discover_sessions
from tests.conftest import FIXTURES
from tests.engine._agent_files import SID, claude_session, codex_session
from tui.cli.main import main


def test_default_discovery_finds_both_agents_under_their_homes(tmp_path: Path) -> None:
    claude_session(tmp_path / ".claude" / "projects" / "-w" / f"{SID}.jsonl")
    codex_session(tmp_path / "codex-home", compacted=False)
    found = discover_sessions(env={"HOME": str(tmp_path), "CODEX_HOME": str(tmp_path / "codex-home")})
    assert sorted((s.format, s.key) for s in found.sessions) == [("claude-code-jsonl", SID), ("codex-jsonl", SID)]
    assert not any(s.writable for s in found.sessions)


def test_status_shows_the_agents_own_figures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    claude = claude_session(tmp_path / "p" / f"{SID}.jsonl")
    assert main(["status", "--json", str(claude)]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert (row["agent"], row["context_tokens"], row["context_window"], row["compaction_threshold_tokens"]) == (
        "claude-code", 150, 1_000_000, 967_000)
    assert row["compactions"] == 1 and row["leaf_id"] == "r3b"


def test_report_reads_the_claude_code_fixtures_instead_of_counting_them_as_zero(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["report", "--json", str(FIXTURES / "claude-code")]) == 0
    total = json.loads(capsys.readouterr().out)["total"]
    assert total["calls"] == 11
    assert total["cost_usd"] > 0


def test_a_file_an_agent_claims_but_ctxscope_cannot_read_is_named_and_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    claude_session(tmp_path / f"{SID}.jsonl")
    bad = tmp_path / "junk.jsonl"
    bad.write_text('{"sessionId": 5}\n{"x": 1}\n')
    assert main(["report", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"{bad}: not a claude-code session ctxscope can read" in err


def test_inspect_shows_the_agents_context_with_harness_text_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    claude = claude_session(tmp_path / "p" / f"{SID}.jsonl")
    assert main(["inspect", "--json", str(claude)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [(r["entry_id"].removeprefix("compaction:"), r["role"]) for r in result["context"]] == [
        ("s1", "compactionSummary"), ("r2", "assistant"), ("c1", "harness"), ("c2", "harness"), ("u3", "user"),
        ("r3", "assistant"), ("r3b", "assistant")]
    assert result["context_tokens"] == 150 and result["context_tokens_source"] == "claude-code: last usage"


def test_inspect_speaks_of_the_agents_own_rules_not_pis(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A Codex rollout before its first token_count said "unknown after compaction" with 0 compactions, "(pi:
    # unknown)", that "the agent's own compaction keeps 20,000 tokens" (Codex keeps no such tail), and the TUI card
    # that it compacts at the window's size where its config names no line.
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "no-codex-config"))
    fresh = tmp_path / "rollout.jsonl"
    fresh.write_bytes((FIXTURES / "codex" / "simonw__claude-code-transcripts__sample_codex_session.jsonl").read_bytes())
    assert main(["inspect", str(fresh)]) == 0
    out = capsys.readouterr().out
    assert "[Context: unknown before the first usage | ?/272k tokens]" in out
    assert "after compaction" not in out and "pi: unknown" not in out and "agent's own compaction" not in out
    assert "ctxscope's compact keeps 20,000 tokens (ctxscope config): 4 messages protected" in out
    assert "compacts at unknown;" in out
    empty = tmp_path / "alpha.jsonl"
    empty.write_bytes((FIXTURES / "codex" / "ryoppippi__ccusage__codex-session-alpha.jsonl").read_bytes())
    assert main(["inspect", str(empty)]) == 0
    out = capsys.readouterr().out
    assert "no messages in the context yet" in out and "ends on a compaction" not in out
    claude = claude_session(tmp_path / "p" / f"{SID}.jsonl")
    assert main(["inspect", str(claude)]) == 0
    assert "ctxscope's compact keeps" in capsys.readouterr().out


def test_inject_refuses_and_leaves_the_file_as_it_was(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # inject writes pi entries: an agent's session takes its checkpoint through a compaction's summary instead.
    codex = codex_session(tmp_path / ".codex", compacted=True)
    claude = claude_session(tmp_path / "p" / f"{SID}.jsonl")
    before = codex.read_bytes(), claude.read_bytes()
    for path in (codex, claude):
        assert main(["--state-dir", str(tmp_path / "state"), "inject", "--yes", str(path)]) == 4
        assert "inject writes pi entries" in capsys.readouterr().err
    assert (codex.read_bytes(), claude.read_bytes()) == before


async def test_the_tui_lists_both_agents_sessions_with_their_own_figures(tmp_path: Path) -> None:
    from tests.tui.app_factory import make_app, settle

    # Keys come from the file names: the Claude Code session gets its own id here.
    claude_session(tmp_path / "s" / "claude" / "aaaaaaaa-2222-3333-4444-555555555555.jsonl")
    codex = codex_session(tmp_path / "s" / "codex-home", compacted=True)
    app, _ = make_app([tmp_path / "s"], tmp_path / "state")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        shown = {s.source.format: (s.tokens.tokens, s.window.tokens, s.gauge.compaction_line)
                 for s in app.session_list.snapshots}
    assert shown == {"claude-code-jsonl": (150, 1_000_000, 967_000), "codex-jsonl": (73, 258_400, 200_000)}
    assert codex.exists()


def test_the_tui_controls_say_why_an_agent_session_cannot_be_compacted_now(tmp_path: Path) -> None:
    from engine.config.loader import Config
    from engine.fs.lock_info import process_starttime
    from engine.session.snapshot import snapshot_session
    from tui.controls import ControlPolicy

    path = claude_session(tmp_path / ".claude" / "projects" / "-w" / f"{SID}.jsonl")
    [source] = discover_sessions([path]).sessions
    snapshot = snapshot_session(source)
    policy = ControlPolicy(Config())
    assert policy.unavailable("compact", snapshot, None, "this session") is None
    assert "compacted with a summary" in (policy.unavailable("prune", snapshot, None, "this session") or "")
    announced = tmp_path / ".claude" / "sessions" / f"{os.getpid()}.json"
    announced.parent.mkdir(parents=True)
    announced.write_text(json.dumps({"pid": os.getpid(), "sessionId": SID,
                                     "procStart": str(process_starttime(os.getpid()))}))
    reason = policy.unavailable("compact", snapshot, None, "this session") or ""
    assert f"Claude Code pid {os.getpid()} is running this session" in reason and f"claude --resume {SID}" in reason


def test_state_capture_never_takes_the_agents_harness_text_as_the_users(tmp_path: Path) -> None:
    from engine.capture.state import CapturedState, capture
    from engine.session.snapshot import SessionFollower
    from tests.engine._agent_files import cc_assistant, cc_user, write_jsonl

    path = write_jsonl(tmp_path / f"{SID}.jsonl", [
        cc_user("u0", None, "<system-reminder>Today's date is 2026-11-27. Please fix the build.</system-reminder>"),
        cc_user("c0", "u0", "<local-command-caveat>Caveat: run locally, answer as the user.</local-command-caveat>",
                isMeta=True),
        cc_user("u1", "c0", "please rename the billing module"),
        cc_assistant("r1", "u1", "Renamed.", (5, 10, 10, 5), "m1"),
    ])
    [source] = discover_sessions([path]).sessions
    follower = SessionFollower(source)
    snapshot = follower.refresh()
    state = capture(CapturedState(), (m.entry for m in snapshot.view.messages), follower.reader.read_object)
    assert state.real_user_messages == 1


def test_items_without_an_id_are_named_by_their_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # Codex's items carry no id: they were shown as "L1.-1" (line 1, "part -1" meaning the line itself).
    rollout = tmp_path / "rollout.jsonl"
    sample = FIXTURES / "codex" / "simonw__claude-code-transcripts__sample_codex_session.jsonl"
    rollout.write_bytes(sample.read_bytes())
    assert main(["inspect", "--json", str(rollout)]) == 0
    ids = [r["entry_id"] for r in json.loads(capsys.readouterr().out)["context"]]
    assert ids == ["L1", "L2", "L3", "L4"]


def test_nothing_to_compact_is_said_without_pis_name_for_claude_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    claude = claude_session(tmp_path / "p" / f"{SID}.jsonl")
    code = main(["--state-dir", str(tmp_path / "state"), "compact", "--dry-run", str(claude)])
    err = capsys.readouterr().err
    assert code == 4 and "nothing to compact" in err, err
    assert "(at 4 characters a token, the earlier summary aside)" in err and "pi's estimate" not in err


def test_a_cost_claude_code_recorded_is_the_cost_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    # Older Claude Code wrote costUSD on each reply, and ccusage's default (auto) mode prices with it: the report
    # said $0.01 from the price table for three replies that recorded $1.02.
    copy = tmp_path / "p" / "alpha.jsonl"
    copy.parent.mkdir()
    copy.write_bytes((FIXTURES / "claude-code" / "ryoppippi__ccusage__project-alpha__chat.jsonl").read_bytes())
    assert main(["--state-dir", str(tmp_path / "state"), "report", "--json", str(copy)]) == 0
    total = json.loads(capsys.readouterr().out)["total"]
    assert total["calls"] == 3 and total["cost_usd"] == pytest.approx(0.12 + 0.34 + 0.56)
    assert main(["inspect", "--json", str(copy)]) == 0
    spend = json.loads(capsys.readouterr().out)["spend"]
    assert spend["usd"] == pytest.approx(1.02) and spend["source"] == "usage.cost"


def test_a_checkpoint_of_a_claude_code_session_without_usage_names_no_pi(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    # ccusage's Claude Code fixture has no reply usage: the checkpoint records an estimate, said as Claude Code's
    # user can follow it ("pi's estimate" was printed before).
    chat = tmp_path / "chat.jsonl"
    chat.write_bytes((FIXTURES / "claude-code" / "ryoppippi__ccusage__project-alpha__chat.jsonl").read_bytes())
    assert main(["--state-dir", str(tmp_path / "state"), "checkpoint", str(chat)]) == 0
    out = capsys.readouterr().out
    assert "tokens (at 4 characters a token: the size is unknown until the agent's next reply)" in out
    assert "pi's" not in out


def test_a_checkpoint_of_a_codex_rollout_before_its_first_token_count_records_the_context_at_4_characters_a_token(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    # simonw's sample Codex rollout has harness messages and one user message and no token_count yet: the
    # checkpoint said "~0 tokens (at 4 characters a token …)" and recorded input_tokens 0.
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_bytes(
        (FIXTURES / "codex" / "simonw__claude-code-transcripts__sample_codex_session.jsonl").read_bytes())
    assert main(["inspect", "--json", str(rollout)]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["context_tokens"] is None and shown["agent_estimate_known"] is False
    chars_over_4 = shown["agent_estimate"]
    assert chars_over_4 > 0
    assert main(["--state-dir", str(tmp_path / "state"), "checkpoint", "--json", str(rollout)]) == 0
    written = json.loads(capsys.readouterr().out)
    assert f"~{chars_over_4:,} tokens (at 4 characters a token" in written["message"]
    assert f"input_tokens: {chars_over_4}\n" in Path(written["path"]).read_text(encoding="utf-8")
    assert main(["inspect", str(rollout)]) == 0
    assert f"agent's estimate {chars_over_4:,} at 4 characters a token" in capsys.readouterr().out
