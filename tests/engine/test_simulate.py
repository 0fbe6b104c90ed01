"""The simulated agent and the bulk session generator, read back by the engine's own readers."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson
import pytest

from engine.accounting.context import build_context, find_cut_point
from engine.accounting.measure import measure_context
from engine.agents.discovery import discover_sessions
from engine.fs.jsonl_append import append_entries
from engine.session.snapshot import SessionFollower
from engine.stores.entries import Entry
from engine.stores.transcript import TranscriptReader, read_transcript
from sim.session_generator import generate_session_file
from sim.simulate import SimulatedAgent, SimulationResult, run_simulation

ROOT = Path(__file__).resolve().parents[2]
WINDOW = 64_000
KEEP = WINDOW // 8  # the simulator's keepRecentTokens for windows under 160k
HEX8 = re.compile(r"[0-9a-f]{8}")


def simulate(state: Path, turns: int = 40, **kwargs: Any) -> SimulationResult:
    return run_simulation(state, pace=0, seed=7, window=WINDOW, max_turns=turns, **kwargs)


def compactions_on_path(reader: TranscriptReader) -> list[tuple[int, Entry]]:
    path = build_context(reader.entries, reader.by_id, reader.leaf).path
    return [(i, e) for i, e in enumerate(path) if e.type == "compaction"]


def objects(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> tuple[SimulationResult, list[tuple[str, Any, str]]]:
    """One 40-turn run at pace 0, with a follower snapshot after every entry: (result, [(type, tokens, source)])."""
    state = tmp_path_factory.mktemp("state")
    seen: list[tuple[str, Any, str]] = []
    followers: list[SessionFollower] = []

    def on_entry(entry: Mapping[str, Any]) -> None:
        if not followers:
            followers.append(SessionFollower(discover_sessions([state]).sessions[0]))
        snapshot = followers[0].refresh()
        seen.append((str(entry["type"]), snapshot.tokens.tokens, snapshot.tokens.source))

    return simulate(state, on_entry=on_entry), seen


def test_simulated_session_reads_back_with_no_malformed_line(session: tuple[SimulationResult, Any]) -> None:
    result, _ = session
    reader = read_transcript(result.transcript)
    assert reader.bad_lines == []
    assert reader.header is not None and reader.header["version"] == 3
    entries = [e for e in reader.entries if e.type != "session"]
    assert len(entries) == result.entries - 1  # the header is counted as written
    assert all(e.id is not None and HEX8.fullmatch(e.id) for e in entries)
    # One writer, so every entry is chained to the one before it (the leaf when it was appended).
    assert [e.parent_id for e in entries] == [None] + [e.id for e in entries[:-1]]
    kinds = {e.type for e in entries}
    assert {"message", "model_change", "thinking_level_change", "custom", "compaction"} <= kinds


def test_compactions_keep_an_entry_on_the_path_chosen_like_pi(session: tuple[SimulationResult, Any]) -> None:
    result, _ = session
    reader = read_transcript(result.transcript)
    path = build_context(reader.entries, reader.by_id, reader.leaf).path
    found = compactions_on_path(reader)
    assert len(found) == result.compactions >= 2
    for index, compaction in found:
        before = path[:index]
        assert compaction.first_kept_entry_id in {e.id for e in before}
        assert compaction.first_kept_entry_id == before[find_cut_point(before, KEEP).first_kept_index].id
        assert compaction.from_hook is True
        obj = reader.read_object(compaction)
        assert obj["summary"].startswith("## Goal\n")
        assert "## Key Decisions" in obj["summary"] and "## Next Steps" in obj["summary"]
        assert set(obj["details"]) == {"readFiles", "modifiedFiles"}


def test_model_switch_writes_model_change_and_model_snapshot(session: tuple[SimulationResult, Any]) -> None:
    result, _ = session
    lines = objects(result.transcript)
    changes = [o for o in lines if o["type"] == "model_change"]
    snapshots = [o for o in lines if o["type"] == "custom" and o["customType"] == "model-snapshot"]
    assert [c["modelId"] for c in changes][:2] == ["claude-sonnet-4-5", "claude-opus-4-5"]
    assert {s["data"]["modelId"] for s in snapshots} == {c["modelId"] for c in changes}
    assert list(snapshots[0]) == ["type", "customType", "data", "id", "parentId", "timestamp"]
    opus = [o for o in lines if o["type"] == "message" and o["message"].get("model") == "claude-opus-4-5"]
    assert opus and opus[0]["message"]["usage"]["cacheRead"] == 0  # a new model starts with a cold cache
    assert result.model_switches >= 1


def test_tokens_are_unknown_after_a_compaction_then_drop(session: tuple[SimulationResult, Any]) -> None:
    _, seen = session
    checked = 0
    for i, (kind, tokens, source) in enumerate(seen):
        if kind != "compaction":
            continue
        before = seen[i - 1][1]
        assert tokens is None and source == "unknown-after-compaction"
        after = next(j for j in range(i + 1, len(seen)) if seen[j][2].startswith("usage"))
        assert all(t is None for _, t, _ in seen[i:after])
        assert seen[after][1] < before
        checked += 1
    assert checked >= 2


def test_usage_grows_with_the_context_and_uses_the_prompt_cache(session: tuple[SimulationResult, Any]) -> None:
    result, _ = session
    usages = [o["message"]["usage"] for o in objects(result.transcript)
              if o["type"] == "message" and o["message"]["role"] == "assistant"]
    totals = [u["totalTokens"] for u in usages]
    assert max(totals) > WINDOW - 20_000  # the agent's own compaction line was crossed
    for u in usages:
        assert u["totalTokens"] == u["input"] + u["output"] + u["cacheRead"] + u["cacheWrite"]
        assert u["cost"]["total"] == pytest.approx(sum(v for k, v in u["cost"].items() if k != "total"))
    assert sum(u["cacheRead"] for u in usages) > sum(u["cacheWrite"] for u in usages)


def test_memory_flush_precedes_compaction_and_writes_memory(session: tuple[SimulationResult, Any]) -> None:
    result, _ = session
    lines = objects(result.transcript)
    first_compaction = next(i for i, o in enumerate(lines) if o["type"] == "compaction")
    flush = next(i for i, o in enumerate(lines) if o["type"] == "message" and o["message"]["role"] == "user"
                 and o["message"]["content"][0]["text"].startswith("Pre-compaction memory flush."))
    assert flush < first_compaction
    end = next(i for i in range(flush + 1, len(lines)) if lines[i]["type"] == "compaction" or (
        lines[i]["type"] == "message" and lines[i]["message"]["role"] == "user"))
    run = [o["message"] for o in lines[flush + 1 : end] if o["type"] == "message"]
    calls = [b for m in run for b in m["content"] if isinstance(b, dict) and b.get("type") == "toolCall"]
    assert [c["name"] for c in calls] == ["write"] and calls[0]["arguments"]["path"].startswith("memory/")
    assert run[-1]["role"] == "assistant" and run[-1]["content"][-1]["text"] == "NO_REPLY"
    memory = result.transcript.parents[3] / "workspace" / calls[0]["arguments"]["path"]
    assert "Decisions:" in memory.read_text()


def test_store_is_valid_and_discovered_with_its_window(session: tuple[SimulationResult, Any]) -> None:
    result, _ = session
    store = orjson.loads(result.store.read_bytes())
    row = store["agent:main:main"]
    assert row["sessionId"] == result.session_id
    assert row["contextTokens"] == WINDOW
    assert row["compactionCount"] == result.compactions
    assert Path(row["sessionFile"]) == result.transcript.resolve()
    assert row["model"].startswith("claude-") and row["modelProvider"] == "anthropic"
    assert isinstance(row["totalTokens"], int) and isinstance(row["updatedAt"], int)
    discovery = discover_sessions([result.transcript.parents[3]])
    assert discovery.problems == ()
    [source] = discovery.sessions
    assert source.key == "agent:main:main" and source.format == "openclaw-jsonl"
    snapshot = SessionFollower(source).refresh()
    assert (snapshot.window.tokens, snapshot.window.source) == (WINDOW, "store")
    assert snapshot.malformed_lines == ()


def test_same_seed_gives_the_same_session(tmp_path: Path) -> None:
    first = simulate(tmp_path / "a", turns=12)
    second = simulate(tmp_path / "b", turns=12)
    a = first.transcript.read_text().replace(str(tmp_path / "a"), "")
    b = second.transcript.read_text().replace(str(tmp_path / "b"), "")
    assert a == b


def test_entries_chain_to_a_leaf_appended_by_another_writer(tmp_path: Path) -> None:
    foreign: list[str] = []
    agent: list[SimulatedAgent] = []

    def on_entry(entry: Mapping[str, Any]) -> None:
        if agent[0].log.entries_written == 12 and not foreign:
            result = append_entries(agent[0].transcript, lambda leaf: [{"type": "custom", "customType": "probe"}],
                                    recent_write_seconds=0)
            foreign.extend(result.entry_ids)

    agent.append(SimulatedAgent(tmp_path, seed=3, window=WINDOW, pace=0, on_entry=on_entry))
    agent[0].run(max_turns=3)
    lines = objects(agent[0].transcript)
    index = next(i for i, o in enumerate(lines) if o.get("id") == foreign[0])
    assert lines[index + 1]["parentId"] == foreign[0]
    assert read_transcript(agent[0].transcript).bad_lines == []


def test_a_compaction_appended_by_ctxscope_is_honoured(tmp_path: Path) -> None:
    compacted: list[int] = []
    agent: list[SimulatedAgent] = []

    def on_entry(entry: Mapping[str, Any]) -> None:
        usage = entry.get("message", {}).get("usage")
        if usage and usage["totalTokens"] > 30_000 and not compacted:
            summary = "## Goal\nRate limiting.\n\n## Next Steps\n1. Carry on."
            append_entries(agent[0].transcript, lambda leaf: [{
                "type": "compaction", "summary": summary, "firstKeptEntryId": leaf, "tokensBefore": 30_000,
                "details": {"readFiles": [], "modifiedFiles": []}, "fromHook": False}], recent_write_seconds=0)
            compacted.append(usage["totalTokens"])

    agent.append(SimulatedAgent(tmp_path, seed=5, window=WINDOW, pace=0, on_entry=on_entry))
    agent[0].run(max_turns=10)
    lines = objects(agent[0].transcript)
    index = next(i for i, o in enumerate(lines) if o["type"] == "compaction")
    after = next(o["message"]["usage"] for o in lines[index:] if o["type"] == "message"
                 and o["message"]["role"] == "assistant")
    assert after["totalTokens"] < compacted[0] - 10_000
    assert lines[index + 1]["parentId"] == lines[index]["id"]
    assert lines[index]["fromHook"] is False  # ours, not a second one from the simulator


def test_stop_event_ends_the_run(tmp_path: Path) -> None:
    stop = threading.Event()
    count = [0]

    def on_entry(entry: Mapping[str, Any]) -> None:
        count[0] += 1
        if count[0] == 20:
            stop.set()

    result = run_simulation(tmp_path, pace=0, window=WINDOW, max_turns=50, stop=stop, on_entry=on_entry)
    assert result.entries == 20 and result.turns < 50


def test_command_line_entry_point(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "sim.simulate", str(tmp_path), "--pace", "0", "--turns", "3"],
                          capture_output=True, text=True, cwd=ROOT, check=True, timeout=120)
    report = orjson.loads(done.stdout)
    assert report["turns"] == 3 and Path(report["transcript"]).is_file()


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Any:
    path = tmp_path_factory.mktemp("gen") / "bulk.jsonl"
    return generate_session_file(path, target_bytes=5 << 20, seed=4)


def test_generated_file_parses_fully(generated: Any) -> None:
    reader = read_transcript(generated.path)
    assert reader.bad_lines == []
    assert len(reader.entries) == generated.entries + 1
    assert generated.bytes == generated.path.stat().st_size
    assert 5 << 20 <= generated.bytes < (5 << 20) + (2 << 20)
    assert generated.longest_line >= 100_000
    tool_bytes = sum(e.length for e in reader.entries if e.role == "toolResult")
    assert tool_bytes > generated.bytes / 2


def test_generated_compactions_cut_like_pi_and_usage_matches(generated: Any) -> None:
    reader = read_transcript(generated.path)
    view = build_context(reader.entries, reader.by_id, reader.leaf)
    found = compactions_on_path(reader)
    assert len(found) == generated.compactions >= 2
    for index, compaction in found:
        before = view.path[:index]
        assert compaction.first_kept_entry_id == before[find_cut_point(before).first_kept_index].id
    tokens = measure_context(view, reader)
    assert tokens.usage_tokens == generated.last_usage_total
    assert reader.leaf is not None and generated.leaf_id == reader.leaf.id


def test_generated_branches_leave_the_leaf_off_the_longest_path(tmp_path: Path) -> None:
    stats = generate_session_file(tmp_path / "b.jsonl", target_bytes=2 << 20, seed=2, branches=True)
    reader = read_transcript(stats.path)
    assert reader.bad_lines == []
    depth: dict[str | None, int] = {None: 0}
    for entry in reader.entries[1:]:
        depth[entry.id] = depth[entry.parent_id] + 1
    leaf_path = build_context(reader.entries, reader.by_id, reader.leaf).path
    assert stats.branches >= 2
    assert len(leaf_path) == stats.leaf_depth < max(depth.values()) == stats.max_depth
    deepest = max(depth, key=lambda k: depth[k])
    assert deepest not in {e.id for e in leaf_path}
    for index, compaction in compactions_on_path(reader):
        before = leaf_path[:index]
        assert compaction.first_kept_entry_id == before[find_cut_point(before).first_kept_index].id


def test_generated_long_line_has_the_asked_size(tmp_path: Path) -> None:
    size = 3 << 20
    stats = generate_session_file(tmp_path / "l.jsonl", target_bytes=1 << 20, seed=5, long_line_bytes=size)
    lines = stats.path.read_bytes().split(b"\n")
    assert size in {len(line) for line in lines}
    assert stats.longest_line == size
    reader = read_transcript(stats.path)
    assert reader.bad_lines == []
    huge = next(e for e in reader.entries if e.length == size)
    assert huge.role == "toolResult" and huge.chars < 10_000  # the model sees a truncated head only


def test_generated_is_deterministic_and_compaction_can_be_disabled(tmp_path: Path) -> None:
    a = generate_session_file(tmp_path / "a.jsonl", target_bytes=1 << 20, seed=9, compaction_every=0)
    b = generate_session_file(tmp_path / "b.jsonl", target_bytes=1 << 20, seed=9, compaction_every=0)
    assert a.path.read_bytes() == b.path.read_bytes()
    assert a.compactions == 0
    every = generate_session_file(tmp_path / "c.jsonl", target_bytes=1 << 20, seed=9, compaction_every=40)
    assert every.compactions >= every.entries // 60


def test_long_line_too_small_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="long_line_bytes"):
        generate_session_file(tmp_path / "x.jsonl", target_bytes=1 << 16, long_line_bytes=100)
    assert not (tmp_path / "x.jsonl").exists()
