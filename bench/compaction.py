"""Compaction benchmarks: planning time on a 200k-token context, and compression per layer (docs/compaction.md).

Run: ``python -m bench.compaction`` (``--quick`` for fewer runs).

* Plan time: :func:`engine.compaction.planner.plan_compaction` (deterministic ``summarize`` layer: cut, token counts of
  every context message, checkpoint-based summary, cost, degradation) on a generated session whose context is
  about 200,000 tokens, cold (fresh reader and token cache each run) and warm (the follower's cache reused, as
  in the TUI's live preview). Compared, in the same run, with the 300 ms target and two baselines:
  pi's plain algorithm over fully parsed JSON (``bench/pi_reference.py``: parse every line, build the context,
  ``findCutPoint``, then ``serializeConversation`` of the span — the work pi does before its LLM call), and a
  full re-read of the transcript by the engine (index + context).
* Compression: ``tokens after / tokens before`` (context messages, by the engine's tokenizer) per layer on the
  real fixtures (``--keep-recent 2000``: they are small) and on generated sessions (layer defaults).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import pi_reference
from engine.accounting.context import build_context
from engine.accounting.tokens import count_tokens
from engine.agents.discovery import discover_sessions
from engine.compaction.planner import plan_compaction
from engine.session.snapshot import SessionFollower
from engine.stores.message_content import message_text
from engine.stores.transcript import read_transcript
from sim.session_generator import generate_session_file

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "openclaw"
TARGET_MS = 300.0
LAYERS = ("prune", "summarize", "full", "drop-only")
_CUT_ROLES = {"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"}


def _median_ms(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def pi_plain_prepare(path: Path, keep_recent: int) -> str:
    """pi's ``prepareCompaction`` + ``serializeConversation`` over fully parsed JSON (no engine code)."""
    entries = pi_reference.migrate(pi_reference.load_entries(path))
    branch, _ = pi_reference.build_context(entries)
    start = max((i + 1 for i, e in enumerate(branch) if e.get("type") == "compaction"), default=0)
    cuts = [i for i in range(start, len(branch)) if (branch[i].get("type") in ("branch_summary", "custom_message"))
            or (branch[i].get("type") == "message" and branch[i]["message"].get("role") in _CUT_ROLES)]
    cut, total = (cuts[0] if cuts else start), 0
    for i in range(len(branch) - 1, start - 1, -1):
        if branch[i].get("type") != "message":
            continue
        total += pi_reference.estimate_tokens(branch[i]["message"])
        if total >= keep_recent:
            cut = next((c for c in cuts if c >= i), cut)
            break
    parts = []
    for entry in branch[start:cut]:
        message = entry.get("message") if entry.get("type") == "message" else None
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if message.get("role") == "user":
            text = content if isinstance(content, str) else "".join(b.get("text", "") for b in content or [])
            parts.append(f"[User]: {text}")
        elif message.get("role") == "assistant":
            texts = [b.get("text", "") for b in content or [] if b.get("type") == "text"]
            calls = [f"{b.get('name')}({', '.join(f'{k}={json.dumps(v)}' for k, v in b.get('arguments', {}).items())})"
                     for b in content or [] if b.get("type") == "toolCall"]
            parts += [f"[Assistant]: {chr(10).join(texts)}"] if texts else []
            parts += [f"[Assistant tool calls]: {'; '.join(calls)}"] if calls else []
        elif message.get("role") == "toolResult":
            parts.append(f"[Tool result]: {''.join(b.get('text', '') for b in content or [])[:2000]}")
    return "\n\n".join(parts)


def pi_plain_counted(path: Path, keep_recent: int) -> int:
    """:func:`pi_plain_prepare` plus a tiktoken count of every context message: the same figures as a plan's."""
    pi_plain_prepare(path, keep_recent)
    _, messages = pi_reference.build_context(pi_reference.migrate(pi_reference.load_entries(path)))
    return sum(count_tokens(message_text(m) if "summary" not in m else m["summary"]) for m in messages)


def _generated(directory: Path, tokens: int, seed: int) -> tuple[Path, int]:
    """A generated session (no compactions) whose context is about ``tokens`` tokens."""
    target = tokens * 5
    path = directory / f"gen-{tokens}-{seed}.jsonl"
    measured = 0
    for _ in range(4):
        path.unlink(missing_ok=True)
        generate_session_file(path, target_bytes=target, seed=seed, compaction_every=0, window=1_000_000)
        measured = SessionFollower(discover_sessions([path]).sessions[0]).refresh().tokens.tokens or 0
        if abs(measured - tokens) <= tokens * 0.08:
            break
        target = int(target * tokens / max(measured, 1))
    return path, measured


def plan_times(directory: Path, runs: int) -> dict[str, Any]:
    """Median plan times on a ~200k-token context, with the baselines run on the same file."""
    path, tokens = _generated(directory, 200_000, seed=11)
    source = discover_sessions([path]).sessions[0]
    state = directory / "state"

    def cold() -> object:
        follower = SessionFollower(source)
        snapshot = follower.refresh()
        start = time.perf_counter()
        plan_compaction(snapshot, "summarize", load=follower.reader.read_object, state_dir=state)
        cold_plan.append((time.perf_counter() - start) * 1000)
        return None

    cold_plan: list[float] = []
    cold_total = _median_ms(cold, runs)
    warm_follower = SessionFollower(source)
    warm_snapshot = warm_follower.refresh()
    plan = plan_compaction(warm_snapshot, "summarize", load=warm_follower.reader.read_object, state_dir=state,
                           token_cache=warm_follower.token_cache)
    warm = _median_ms(lambda: plan_compaction(warm_snapshot, "summarize", load=warm_follower.reader.read_object,
                                              state_dir=state, token_cache=warm_follower.token_cache), runs)
    pi_plain = _median_ms(lambda: pi_plain_prepare(path, plan.keep_recent_tokens), runs)
    pi_counted = _median_ms(lambda: pi_plain_counted(path, plan.keep_recent_tokens), runs)

    def reread() -> object:
        reader = read_transcript(path)
        return build_context(reader.entries, reader.by_id, reader.leaf)

    full_read = _median_ms(reread, runs)
    dense = FIXTURES / "badlogic__pi-mono__large-session.v1-legacy.jsonl"
    dense_source = discover_sessions([dense]).sessions[0]
    dense_times: list[float] = []
    dense_messages = dense_tokens = 0

    def dense_cold() -> object:
        nonlocal dense_messages, dense_tokens
        follower = SessionFollower(dense_source)
        snapshot = follower.refresh()
        dense_messages, dense_tokens = len(snapshot.view.messages), snapshot.tokens.tokens or 0
        start = time.perf_counter()
        plan_compaction(snapshot, "summarize", load=follower.reader.read_object, state_dir=state)
        dense_times.append((time.perf_counter() - start) * 1000)
        return None

    _median_ms(dense_cold, runs)
    return {"dense_ms": statistics.median(dense_times), "dense_messages": dense_messages,
            "dense_tokens": dense_tokens, "path": path, "bytes": path.stat().st_size, "tokens": tokens,
            "messages": len(warm_snapshot.view.messages),
            "cold_plan_ms": statistics.median(cold_plan), "cold_read_and_plan_ms": cold_total, "warm_plan_ms": warm,
            "pi_plain_ms": pi_plain, "pi_counted_ms": pi_counted, "full_reread_ms": full_read, "plan": plan}


def compression_rows(directory: Path) -> list[tuple[str, str, int, int, str]]:
    """``(session, layer, tokens before, tokens after, note)`` on fixtures and generated sessions."""
    rows: list[tuple[str, str, int, int, str]] = []
    sessions: list[tuple[str, Path, int | None]] = []
    for path in sorted(FIXTURES.glob("*.jsonl")):
        sessions.append((path.name[-40:], path, 2000))
    for tokens, seed in ((50_000, 3), (120_000, 5), (200_000, 7)):
        path, measured = _generated(directory, tokens, seed)
        sessions.append((f"generated {measured // 1000}k tokens", path, None))
    for name, path, keep in sessions:
        found = discover_sessions([path]).sessions
        if not found:
            continue
        follower = SessionFollower(found[0])
        snapshot = follower.refresh()
        for layer in LAYERS:
            plan = plan_compaction(snapshot, layer, keep_recent=keep, load=follower.reader.read_object,
                                   state_dir=directory / "state", token_cache=follower.token_cache)
            note = "" if plan.applicable else "refused: " + plan.blocked[0].replace(str(path), path.name)[:70]
            rows.append((name, layer, plan.tokens_before, plan.tokens_after, note))
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.compaction")
    parser.add_argument("--quick", action="store_true", help="3 runs instead of 9")
    args = parser.parse_args(argv)
    runs = 3 if args.quick else 9
    with tempfile.TemporaryDirectory(prefix="ctxscope-bench-") as tmp:
        directory = Path(tmp)
        t = plan_times(directory, runs)
        print(f"Plan a deterministic compaction (summarize) of a {t['tokens']:,}-token context "
              f"({t['messages']} messages, {t['bytes'] / 1e6:.1f} MB file), median of {runs}:")
        print(f"  cold plan            {t['cold_plan_ms']:8.1f} ms   {t['cold_plan_ms'] / TARGET_MS:5.2f}× the "
              f"{TARGET_MS:.0f} ms target")
        print(f"  cold read + plan     {t['cold_read_and_plan_ms']:8.1f} ms")
        print(f"  warm plan (cached)   {t['warm_plan_ms']:8.1f} ms   {t['warm_plan_ms'] / TARGET_MS:5.2f}× target")
        print(f"  baseline: pi plain   {t['pi_plain_ms']:8.1f} ms   (parse all JSON, findCutPoint, serialize span); "
              f"cold plan = {t['cold_plan_ms'] / t['pi_plain_ms']:.2f}× it")
        print(f"  baseline: pi + count {t['pi_counted_ms']:8.1f} ms   (the same, plus tiktoken over every message); "
              f"cold plan = {t['cold_plan_ms'] / t['pi_counted_ms']:.2f}× it")
        print(f"  baseline: re-read    {t['full_reread_ms']:8.1f} ms   (engine full index + context); "
              f"cold plan = {t['cold_plan_ms'] / t['full_reread_ms']:.2f}× it")
        print(f"  dense real session   {t['dense_ms']:8.1f} ms   (v1 fixture: {t['dense_messages']} messages, "
              f"{t['dense_tokens']:,} tokens; planned, though v1 files are never written)")
        plan = t["plan"]
        print(f"  the plan: {plan.messages_summarized} messages summarized, {plan.tokens_before:,} → "
              f"{plan.tokens_after:,} tokens, summary {plan.summary_tokens:,} tokens")
        print("\nCompression (tokens after / before, context messages; fixtures with --keep-recent 2000):")
        print(f"  {'session':<42} {'layer':<10} {'before':>9} {'after':>9} {'ratio':>6}")
        for name, layer, before, after, note in compression_rows(directory):
            ratio = f"{after / before:.3f}" if before and not note else "-"
            print(f"  {name:<42} {layer:<10} {before:>9,} {after:>9,} {ratio:>6}  {note}")


if __name__ == "__main__":
    main()
