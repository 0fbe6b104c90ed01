"""Compaction planning: layer choice, cut points, the four layers' summaries, pins, refusals, and no writes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.accounting.context import find_cut_point
from engine.agents.discovery import discover_sessions
from engine.compaction.archive import read_archive
from engine.compaction.planner import plan_compaction, select_compaction_layer, tool_output_tokens
from engine.compaction.summarizer import CLEARED, HEADER_PREFIX, SUMMARY_HEADINGS
from engine.config.compaction_settings import CompactionSettings, LayerSettings
from engine.config.loader import Config
from engine.session.snapshot import SessionFollower
from tests.conftest import ENDS_ON_COMPACTION, HEADERLESS, MAIN_SESSION, RESET_ARCHIVE, SUBAGENT, V1_LEGACY
from tests.engine._compaction import (
    DECISION,
    coding_session,
    copy_fixture,
    plan_for,
    snapshot_of,
    tree_hash,
)
from tests.engine._transcripts import HEADER, assistant, compaction, tool_result, user, write


@pytest.mark.parametrize(
    ("utilization", "tools", "layer"),
    [
        (None, 10**6, None),
        (0.79, 10**6, None),
        (0.80, 50_001, "prune"),
        (0.80, 50_000, None),  # the prune condition is "more than 50k"
        (0.87, 10_000, None),
        (0.88, 10_000, "summarize"),
        (0.90, 60_000, "prune"),  # large tool outputs: prune is the least lossy layer that frees them
        (0.949, 10_000, "summarize"),
        (0.95, 10_000, "full"),
        (0.95, 60_000, "full"),
        (1.20, 0, "full"),
    ],
)
def test_select_compaction_layer_uses_the_seed_003_triggers(utilization: float | None, tools: int,
                                                              layer: str | None) -> None:
    assert select_compaction_layer(utilization, tools) == layer


def test_select_compaction_layer_follows_configured_triggers() -> None:
    config = Config(compaction=CompactionSettings(summarize=LayerSettings(0.5, 25_000), full=LayerSettings(None, 1)))
    assert select_compaction_layer(0.6, 0, config) == "summarize"
    assert select_compaction_layer(0.99, 0, config) == "summarize"  # full is manual-only here


def test_plan_cuts_by_pi_rules_and_keeps_the_protected_tail(tmp_path: Path) -> None:
    session = coding_session(tmp_path / "s.jsonl", turns=8)
    follower, plan = plan_for(session, "summarize", tmp_path / "state", keep_recent=3000)
    view = follower.snapshot.view if follower.snapshot else None
    assert view is not None
    cut = find_cut_point(view.path, 3000)
    assert plan.first_kept_entry_id == view.path[cut.first_kept_index].id
    assert plan.keep_recent_tokens == 3000
    assert plan.kept_ids == tuple(m.entry_id for m in view.messages if m.path_index >= cut.first_kept_index)
    assert plan.messages_summarized + plan.messages_kept == len(view.messages)
    assert not plan.blocked and plan.applicable
    assert plan.tokens_after < plan.tokens_before
    assert plan.tokens_before == plan.tokens_summarized + plan.tokens_kept
    assert plan.compaction_entry()["firstKeptEntryId"] == plan.first_kept_entry_id
    assert plan.compaction_entry()["fromHook"] is False  # pi keeps its file lists (issue 11 #7)
    assert plan.compaction_entry()["tokensBefore"] == follower.snapshot.tokens.agent_estimate  # type: ignore[union-attr]
    # The summary's header states the same count as the plan's "summarized" line.
    assert f"{plan.messages_summarized} messages (~{plan.tokens_summarized:,} tokens) summarized" in plan.summary


def test_split_turn_is_marked_and_summarized_separately(tmp_path: Path) -> None:
    session = coding_session(tmp_path / "s.jsonl", turns=6)
    # Budget that lands the cut on an assistant message in the middle of a turn.
    for budget in range(500, 8000, 250):
        _, plan = plan_for(session, "summarize", tmp_path / "state", keep_recent=budget)
        if plan.split_turn:
            break
    else:
        pytest.fail("no budget split a turn")
    assert plan.turn_start_entry_id is not None and plan.turn_start_entry_id.startswith("u")
    assert "**Turn Context (split turn):**" in plan.summary
    assert "## Original Request" in plan.summary


def test_summarize_and_full_carry_the_openclaw_headings_decisions_and_files(tmp_path: Path) -> None:
    session = coding_session(tmp_path / "s.jsonl", turns=8)
    for layer in ("summarize", "full"):
        _, plan = plan_for(session, layer, tmp_path / "state", keep_recent=3000, focus="keep the retry design",
                           summary_format="openclaw")
        lines = plan.summary.splitlines()
        assert lines[0].startswith(f"{HEADER_PREFIX} | layer: {layer}")
        assert lines[1] == "Focus: keep the retry design"
        positions = [lines.index(f"## {heading}") for heading in SUMMARY_HEADINGS]
        assert positions == sorted(positions)
        assert all(sum(1 for x in lines if x == f"## {h}") == 1 for h in SUMMARY_HEADINGS)
        decisions = plan.summary.split("## Decisions")[1].split("## Open TODOs")[0]
        assert f"- {DECISION['expected'][0]}" in decisions.splitlines()  # whole, never cut
        todos = plan.summary.split("## Open TODOs")[1].split("## Constraints/Rules")[0]
        assert all(f"- add a regression test for app{t}." in todos for t in range(6))
        asks = plan.summary.split("## Pending user asks")[1].split("## Exact identifiers")[0].split("\n- ")[1:]
        assert asks[0].startswith("turn 6: please fix")  # the latest ask first
        for t in range(7):  # every URL of the span is in the summary, whole
            assert re.search(rf"https://tracker\.example\.com/T-{t}(?![\w/])", plan.summary)
        assert "<read-files>\nservices/app0.py" in plan.summary
        assert "<modified-files>\nservices/fix0.py" in plan.summary
        assert plan.read_files[0] == "services/app0.py" and plan.modified_files[0] == "services/fix0.py"
        assert list(plan.read_files) == sorted(plan.read_files)
        assert not set(plan.read_files) & set(plan.modified_files)
        assert plan.tokens_after < plan.tokens_before
        assert f"(~{plan.tokens_summarized:,} tokens) summarized" in lines[0]  # one figure: the plan's
    _, full = plan_for(session, "full", tmp_path / "state")
    assert any(w.startswith("full compaction:") for w in full.warnings)


def test_pi_sessions_get_pis_headings(tmp_path: Path) -> None:
    session = coding_session(tmp_path / "s.jsonl", turns=8)
    _, plan = plan_for(session, "summarize", tmp_path / "state", keep_recent=3000)
    assert plan.source.format == "pi-jsonl"
    lines = plan.summary.splitlines()
    headings = ["## Goal", "## Constraints & Preferences", "## Progress", "### Done", "### In Progress", "### Blocked",
                "## Key Decisions", "## Next Steps", "## Critical Context"]
    positions = [lines.index(h) for h in headings]
    assert positions == sorted(positions)
    assert "## Decisions" not in lines and "## Open TODOs" not in lines
    steps = plan.summary.split("## Next Steps")[1].split("## Critical Context")[0]
    assert "1. add a regression test for app0." in steps.splitlines()
    assert f"- {DECISION['expected'][0]}" in plan.summary.split("## Key Decisions")[1].splitlines()


def test_prune_clears_old_outputs_trims_recent_ones_and_keeps_text(tmp_path: Path) -> None:
    session = coding_session(tmp_path / "s.jsonl", turns=12, output_chars=9000)
    _, plan = plan_for(session, "prune", tmp_path / "state", keep_recent=3000)
    summary = plan.summary
    assert summary.startswith(f"{HEADER_PREFIX} | layer: prune")
    assert summary.count(CLEARED) >= 5
    assert "chars trimmed …]" in summary
    assert "[User]: turn 0: please fix services/app0.py" in summary
    assert "[Assistant]: Reading services/app0.py first." in summary
    assert '[Assistant tool calls]: read(path="services/app0.py")' in summary
    assert DECISION["agent_response"].split("\n")[0] in summary
    assert "<read-files>" in summary
    assert plan.tokens_after < plan.tokens_before


def test_drop_only_archives_verbatim_and_writes_a_one_line_placeholder(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    header = {**HEADER, "cwd": str(workspace)}
    session = coding_session(tmp_path / "s.jsonl", turns=6, header=header)
    config = Config(compaction=CompactionSettings(workspace_roots=(tmp_path,)))  # tmp_path is outside $HOME
    _, plan = plan_for(session, "drop-only", tmp_path / "state", keep_recent=3000, config=config)
    assert "\n" not in plan.summary
    assert plan.archive is not None
    assert plan.archive.path.parent == workspace / "memory"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d\.md", plan.archive.path.name)
    assert plan.archive.record_id in plan.summary and f"memory/{plan.archive.path.name}" in plan.summary
    assert not (workspace / "memory").exists()  # planning writes nothing
    record = plan.archive.record()
    path = plan.archive.path
    path.parent.mkdir(parents=True)
    path.write_bytes(record)
    scan = read_archive(path)
    assert len(scan.records) == 1 and not scan.incomplete
    body = scan.records[0].body
    assert scan.records[0].meta["entry_ids"] == [d.entry_id for d in plan.dropped]
    # Verbatim: every summarized text appears whole, tool output included.
    assert DECISION["agent_response"] in body
    assert 'read(path="services/app0.py")' in body
    assert "error_0" in body  # the first tool output, not trimmed
    assert plan.tokens_after < plan.tokens_before


def test_drop_only_uses_the_configured_workspace(tmp_path: Path) -> None:
    session = coding_session(tmp_path / "s.jsonl", turns=4)
    (tmp_path / "elsewhere").mkdir()
    config = Config(compaction=CompactionSettings(workspace=tmp_path / "elsewhere"))
    _, plan = plan_for(session, "drop-only", tmp_path / "state", keep_recent=2000, config=config)
    assert plan.archive is not None and plan.archive.path.parent == tmp_path / "elsewhere" / "memory"


def test_pinned_messages_before_the_cut_are_carried_verbatim(tmp_path: Path) -> None:
    session = coding_session(tmp_path / "s.jsonl", turns=6, labels=[("c0", "design"), ("d1", "tmp"), ("d1", "")])
    config = Config(compaction=CompactionSettings(pinned=("u2",)))
    for layer in ("summarize", "full", "drop-only", "prune"):
        _, plan = plan_for(session, layer, tmp_path / "state", keep_recent=2000, config=config)
        assert set(plan.pinned) == {"c0", "u2"}  # d1's label was cleared by the later empty label
        assert DECISION["agent_response"] in plan.summary
        assert "turn 2: please fix services/app2.py, see https://tracker.example.com/T-2" in plan.summary
        if layer != "prune":
            assert "## Pinned messages" in plan.summary and "label 'design'" in plan.summary


def test_previous_summary_items_are_merged_not_nested(tmp_path: Path) -> None:
    previous = ("## Decisions\n- Use Redis for the limiter\n## Open TODOs\nNone.\n## Constraints/Rules\n"
                "- Never log API keys\n## Pending user asks\n- None.\n## Exact identifiers\n- ~/src/limiter.lua\n"
                "## Goal\nShip the rate limiter\n\n## Deploy notes\n- canary first, then 10%\n\n"
                "<read-files>\nold/read.py\n</read-files>")
    entries = [user("u0", None, "start"), assistant("a0", "u0", "ok", 1000)]
    comp = compaction("k0", "a0", "u0", summary=previous)
    comp["details"] = {"readFiles": ["old/read.py"], "modifiedFiles": ["old/mod.py"]}
    entries.append(comp)
    parent = "k0"
    for t in range(6):
        entries += [user(f"u{t + 1}", parent, f"work item {t} " + "x" * 2000),
                    assistant(f"a{t + 1}", f"u{t + 1}", f"done {t} " + "y" * 2000, 3000 + t,
                              tool=("edit", {"path": f"new/f{t}.py"}))]
        parent = f"a{t + 1}"
    session = write(tmp_path / "s.jsonl", entries)
    _, plan = plan_for(session, "summarize", tmp_path / "state", keep_recent=1000, summary_format="openclaw")
    decisions = plan.summary.split("## Decisions")[1].split("## Open TODOs")[0]
    assert "- Use Redis for the limiter" in decisions
    assert "- Never log API keys" in plan.summary.split("## Constraints/Rules")[1]
    assert "~/src/limiter.lua" in plan.summary.split("## Exact identifiers")[1]
    assert plan.summary.count("## Decisions") == 1
    assert "Ship the rate limiter" in plan.summary.split("## Goal")[1]
    assert "- canary first, then 10%" in plan.summary.split("## Deploy notes")[1]  # an unknown section, whole
    assert "## Earlier summary" not in plan.summary
    # pi's accumulated file lists: the previous details merged with this span's tool calls.
    assert plan.read_files == ("old/read.py",)
    assert plan.modified_files == ("new/f0.py", "new/f1.py", "new/f2.py", "new/f3.py", "new/f4.py", "old/mod.py")


def test_secrets_never_reach_the_summary_or_the_archive(tmp_path: Path) -> None:
    key = "sk-ant-api03-" + "A1b2C3d4" * 5
    header = {**HEADER, "cwd": str(tmp_path / "ws")}
    entries = [user("u0", None, f"use ANTHROPIC_API_KEY={key} please"), assistant("a0", "u0", "ok " * 400, 1000)]
    parent = "a0"
    for t in range(4):
        entries += [user(f"u{t + 1}", parent, "more " * 300), assistant(f"a{t + 1}", f"u{t + 1}", "z " * 600, 2000)]
        parent = f"a{t + 1}"
    session = write(tmp_path / "s.jsonl", entries)
    session.write_bytes(session.read_bytes().replace(b'"cwd":"/w"', f'"cwd":"{header["cwd"]}"'.encode()))
    config = Config(compaction=CompactionSettings(pinned=("u0",)))
    for layer in ("prune", "summarize", "drop-only"):
        _, plan = plan_for(session, layer, tmp_path / "state", keep_recent=500, config=config)
        assert key not in plan.summary and "[REDACTED:" in plan.summary
        assert all(key not in d.first_line for d in plan.dropped)
        if plan.archive is not None:
            assert key.encode() not in plan.archive.record()


@pytest.mark.parametrize("fixture", [V1_LEGACY, HEADERLESS, RESET_ARCHIVE])
def test_v1_headerless_and_archived_transcripts_are_refused(fixture: Path, tmp_path: Path) -> None:
    copy = copy_fixture(fixture, tmp_path / "sessions")
    _, plan = plan_for(copy, "summarize", tmp_path / "state", keep_recent=500)
    assert not plan.applicable
    reason = " ".join(plan.blocked)
    assert {"v1": "version 1", "f5b63bc9": "no session header", "reset": "archived transcript"}[
        "v1" if fixture == V1_LEGACY else "f5b63bc9" if fixture == HEADERLESS else "reset"] in reason


def test_nothing_to_compact_is_a_clear_refusal(tmp_path: Path) -> None:
    copy = copy_fixture(ENDS_ON_COMPACTION, tmp_path / "sessions")
    _, plan = plan_for(copy, "summarize", tmp_path / "state", keep_recent=10)
    assert plan.blocked == ('nothing to compact: the session already ends on a compaction (pi: "Already compacted")',)
    small = copy_fixture(SUBAGENT, tmp_path / "sessions")
    _, plan = plan_for(small, "summarize", tmp_path / "state")
    assert len(plan.blocked) == 1 and plan.blocked[0].startswith("nothing to compact: the ")
    assert "--keep-recent" in plan.blocked[0]


def test_planning_reads_only(tmp_path: Path) -> None:
    copy = copy_fixture(MAIN_SESSION, tmp_path / "sessions")
    (tmp_path / "state").mkdir()
    before = tree_hash(tmp_path)
    for layer in ("prune", "summarize", "full", "drop-only"):
        plan_for(copy, layer, tmp_path / "state", keep_recent=2000)
    assert tree_hash(tmp_path) == before


def test_plan_is_deterministic(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    session = coding_session(tmp_path / "s.jsonl", turns=6)
    now = datetime(2026, 3, 1, 12, tzinfo=UTC)
    plans = [plan_for(session, "summarize", tmp_path / "state", keep_recent=2000, now=now)[1] for _ in range(2)]
    assert plans[0].to_dict() == plans[1].to_dict()


def test_gauge_and_degradation_warnings(tmp_path: Path) -> None:
    copy = copy_fixture(MAIN_SESSION, tmp_path / "sessions")
    _, plan = plan_for(copy, "summarize", tmp_path / "state", keep_recent=2000)
    assert plan.degradation is not None and plan.degradation.report.level == "high"
    assert plan.needs_confirmation and plan.guard is not None and plan.guard.allowed
    assert any("confirm" in w for w in plan.warnings)
    assert plan.cost is not None and plan.cost.tokens_saved_per_turn > 0


def test_automatic_compaction_is_refused_past_the_guard_limit(tmp_path: Path) -> None:
    session = coding_session(tmp_path / "s.jsonl", turns=6)
    _, plan = plan_for(session, "summarize", tmp_path / "state", keep_recent=2000, automatic=True,
                       auto_compactions=5)
    assert not plan.applicable and any("Automatic compaction refused" in b for b in plan.blocked)
    _, plan = plan_for(session, "summarize", tmp_path / "state", keep_recent=2000, automatic=True,
                       auto_compactions=4)
    assert plan.applicable and not plan.needs_confirmation


def test_tool_output_tokens_counts_tool_results(tmp_path: Path) -> None:
    session = coding_session(tmp_path / "s.jsonl", turns=3, output_chars=4000)
    _, snapshot = snapshot_of(session)
    assert 3 * 900 < tool_output_tokens(snapshot) < 3 * 1100


@st.composite
def generated_sessions(draw: st.DrawFn) -> list[dict[str, object]]:
    """Random linear sessions: users, assistants with tool calls, tool results of random sizes."""
    entries: list[dict[str, object]] = []
    parent: str | None = None
    total = 1000
    for i in range(draw(st.integers(2, 25))):
        entries.append(user(f"u{i}", parent, draw(st.text(min_size=1, max_size=300))))
        parent = f"u{i}"
        for j in range(draw(st.integers(0, 3))):
            total += draw(st.integers(0, 3000))
            entries.append(assistant(f"a{i}-{j}", parent, draw(st.text(max_size=400)), total,
                                     tool=("read", {"path": f"f{j}.py"})))
            entries.append(tool_result(f"r{i}-{j}", f"a{i}-{j}", "out " * draw(st.integers(0, 800))))
            parent = f"r{i}-{j}"
        entries.append(assistant(f"e{i}", parent, draw(st.text(max_size=600)), total))
        parent = f"e{i}"
    return entries


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=generated_sessions(), layer=st.sampled_from(["prune", "summarize", "full", "drop-only"]),
       keep=st.integers(0, 4000))
def test_an_applicable_plan_never_increases_tokens(
    tmp_path_factory: pytest.TempPathFactory, entries: list[dict[str, object]], layer: str, keep: int
) -> None:
    root = tmp_path_factory.mktemp("gen")
    session = write(root / "s.jsonl", entries)  # type: ignore[arg-type]
    session.write_bytes(session.read_bytes().replace(b'"cwd":"/w"', f'"cwd":"{root / "ws"}"'.encode()))
    _, plan = plan_for(session, layer, root / "state", keep_recent=keep)
    assert plan.tokens_before == plan.tokens_summarized + plan.tokens_kept
    if plan.applicable:
        assert plan.tokens_after < plan.tokens_before
    else:
        assert plan.blocked


def test_compaction_settings_load_from_the_config_file(tmp_path: Path) -> None:
    from engine.config.loader import ConfigError, load_config

    path = tmp_path / "config.yaml"
    path.write_text(
        "compaction:\n"
        "  layers: {prune: {trigger: 0.7, protect_recent: 30000}, drop-only: {protect_recent: 9000}, bogus: {}}\n"
        "  max_auto_compactions: 2\n  controller: gateway\n  workspace: ~/ws\n  pinned: [abc12345]\n"
        "  prune_output: {keep_last: 2}\n  nonsense: 1\n"
        "auto_compact: {enabled: true, threshold: 0.9, layer: drop-only}\n"
    )
    config = load_config(path, env={"HOME": str(tmp_path)})
    settings = config.compaction
    assert settings.prune == LayerSettings(0.7, 30_000, 50_000)
    assert settings.layer("drop-only").protect_recent == 9000
    assert settings.summarize == CompactionSettings().summarize
    assert (settings.max_auto_compactions, settings.controller, settings.pinned) == (2, "gateway", ("abc12345",))
    assert settings.workspace is not None and settings.workspace.name == "ws"
    assert settings.prune_output.keep_last == 2 and settings.prune_output.max_chars == 4000
    assert (settings.auto.enabled, settings.auto.threshold, settings.auto.layer) == (True, 0.9, "drop-only")
    assert any("compaction.nonsense" in w for w in config.warnings)
    assert any("compaction.layers.bogus" in w for w in config.warnings)
    assert Config().compaction.auto.enabled is False
    path.write_text("auto_compact: {threshold: 90}\n")
    with pytest.raises(ConfigError, match=r"auto_compact\.threshold"):
        load_config(path, env={})


def test_drop_only_refuses_a_workspace_from_another_os() -> None:
    # SUBAGENT's header says cwd "C:\\Users\\91733\\.openclaw\\workspace": not a path on this OS.
    source = discover_sessions([SUBAGENT]).sessions[0]
    follower = SessionFollower(source)
    plan = plan_compaction(follower.refresh(), "drop-only", keep_recent=500, load=follower.reader.read_object,
                           state_dir=Path("/nonexistent-state"))
    assert any("workspace" in reason for reason in plan.blocked)
