"""A simulated OpenClaw agent that writes a live pi-format session: what ``ctxscope demo`` shows, and a bench load.

The agent plays :class:`~sim.demo_script.Story` into ``<state>/agents/<agent>/sessions/<sessionId>.jsonl`` and
keeps ``sessions.json`` up to date the way the gateway does (atomic rewrites at run start/end, flush, compaction).
It behaves like OpenClaw on the numbers that matter to ctxscope:

* usage grows with the context it would send (system prompt overhead + pi's ``ceil(chars/4)`` of the context
  path), with Anthropic prompt caching (``cacheRead`` = the previous prompt, ``cacheWrite`` = what is new);
* the pre-compaction memory flush runs once per cycle at ``window − 20000 − 4000`` and writes ``memory/`` in the
  workspace; the agent compacts itself when a run ends above ``window − 20000`` (docs/context-accounting.md, The
  agent's compaction line), cutting with :func:`engine.accounting.context.find_cut_point`; the next request shows
  the drop, and until then usage is unknown.

Every append follows the lock protocol (docs/formats.md, The write lock): under ``<file>.lock`` it re-reads the
file, chains to the last entry (so a compaction appended by ctxscope is honoured), and writes each line with one
``write()``.
Deterministic for a seed; ``pace=0`` runs on a virtual clock, so the bytes are reproducible too.
"""

from __future__ import annotations

import argparse
import math
import random
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import orjson

from engine.accounting.context import context_from_path, find_cut_point
from engine.accounting.measure import agent_estimate
from engine.agents.openclaw import OPENCLAW_RESERVE_FLOOR
from engine.agents.pi.config import PI_DEFAULT_RESERVE
from engine.fs.atomic import write_atomic
from engine.stores.entries import Entry
from engine.stores.message_content import message_chars, message_text
from sim.demo_script import Story
from sim.demo_turns import FLUSH_PROMPT, AssistantStep, Ledger, Turn
from sim.file_lists import file_lists
from sim.synthetic import (
    PROMPT_OVERHEAD_TOKENS,
    SONNET,
    IdFactory,
    assistant_entry,
    compaction_entry,
    header_entry,
    make_usage,
    model_change_entry,
    model_snapshot_entry,
    session_uuid,
    text_block,
    thinking_block,
    thinking_level_entry,
    tool_call_block,
    tool_call_id,
    tool_result_entry,
    user_entry,
)
from sim.tracked_transcript import EntryBatch, TrackedTranscript

__all__ = ["DEMO_WINDOW", "SimulatedAgent", "SimulationResult", "create_state_dir", "main", "run_simulation"]

DEMO_WINDOW = 128_000
"""Default window: its compaction line (108k, 84%) sits above the 70% and 80% marks; at pace 1 the default story
crosses 70% after ~75 s, 80% after ~80 s and compacts after ~100 s."""
FLUSH_SOFT_THRESHOLD = 4_000
"""OpenClaw's ``memoryFlush.softThresholdTokens``: flush this far below the compaction line."""
VIRTUAL_START_MS = 1_772_442_000_000
"""2026-03-02T09:00:00Z, where the virtual clock of ``pace=0`` runs starts."""

EntryCallback = Callable[[Mapping[str, Any]], None]


class _Stopped(Exception):
    pass


@dataclass(frozen=True, slots=True)
class SimulationResult:
    """What a simulation run wrote."""

    transcript: Path
    store: Path
    session_key: str
    session_id: str
    turns: int
    entries: int
    """Lines written by the simulator, the header included (not those appended by other writers)."""
    compactions: int
    flushes: int
    model_switches: int


def create_state_dir(root: Path, *, agent_id: str = "main") -> Path:
    """Lay out an OpenClaw-like state dir (``agents/<agent>/sessions/sessions.json``, ``workspace/``); returns root."""
    root = Path(root)
    sessions = root / "agents" / agent_id / "sessions"
    sessions.mkdir(parents=True, exist_ok=True)
    (root / "agents" / agent_id / "agent").mkdir(exist_ok=True)
    (root / "workspace").mkdir(exist_ok=True)
    store = sessions / "sessions.json"
    if not store.exists():
        write_atomic(store, b"{}")
    return root


class SimulatedAgent:
    """One simulated OpenClaw session; :meth:`run` plays it until the turns run out or ``stop`` is set."""

    def __init__(
        self,
        state_dir: Path,
        *,
        seed: int = 7,
        window: int = DEMO_WINDOW,
        pace: float = 1.0,
        agent_id: str = "main",
        stop: threading.Event | None = None,
        on_entry: EntryCallback | None = None,
        keep_recent_tokens: int | None = None,
        lock_timeout: float = 30.0,
    ) -> None:
        self.state_dir = create_state_dir(Path(state_dir), agent_id=agent_id)
        self.rng = random.Random(seed)
        self._timing = random.Random(seed ^ 0x5EED)
        self.ids = IdFactory(self.rng)
        sessions = self.state_dir / "agents" / agent_id / "sessions"
        self.session_id = session_uuid(self.rng)
        while (sessions / f"{self.session_id}.jsonl").exists():
            self.session_id = session_uuid(self.rng)
        self.transcript = sessions / f"{self.session_id}.jsonl"
        self.store_path = sessions / "sessions.json"
        self.session_key = f"agent:{agent_id}:main"
        self.workspace = self.state_dir / "workspace"
        self.window = window
        self.compaction_line = window - max(PI_DEFAULT_RESERVE, OPENCLAW_RESERVE_FLOOR)
        self.flush_line = self.compaction_line - FLUSH_SOFT_THRESHOLD
        self.keep_recent = keep_recent_tokens if keep_recent_tokens is not None else min(20_000, window // 8)
        self.pace = pace
        self.lock_timeout = lock_timeout
        self._stop = stop if stop is not None else threading.Event()
        self._on_entry = on_entry
        self._virtual_ms = VIRTUAL_START_MS
        self._deadline = time.monotonic()
        self.model = SONNET
        self.thinking_level = "medium"
        self.story = Story(self.rng, cwd=str(self.workspace), scale=min(4.0, max(0.25, window / DEMO_WINDOW)))
        self.ledger = Ledger(critical=self.story.critical_context())
        self.log = TrackedTranscript(self.transcript, self.ids, lock_timeout=lock_timeout,
                                     on_compaction=self._on_compaction)
        self._overhead = PROMPT_OVERHEAD_TOKENS + self.rng.randint(-500, 700)
        self._cached = 0
        self._last_total = 0
        self._last_prompt = 0
        self._run_input = self._run_output = 0
        self._store_row: dict[str, Any] = {}
        self._totals = {"cacheRead": 0, "cacheWrite": 0, "cost": 0.0}
        self.compactions = 0
        self.flushes = 0
        self.model_switches = 0
        self._flushed_this_cycle = False

    # -- clock -------------------------------------------------------------------------------------------------
    def _now_ms(self) -> int:
        return int(time.time() * 1000) if self.pace > 0 else self._virtual_ms

    def _pause(self, seconds: float) -> None:
        seconds *= self._timing.uniform(0.8, 1.2)
        if self._stop.is_set():
            raise _Stopped
        if self.pace > 0:
            # Sleep to a schedule, not for a duration, so time spent writing does not slow the demo down.
            self._deadline = max(self._deadline + seconds / self.pace, time.monotonic() - 1.0)
            if self._stop.wait(max(0.0, self._deadline - time.monotonic())):
                raise _Stopped
        else:
            self._virtual_ms += int(seconds * 1000)

    # -- writing -----------------------------------------------------------------------------------------------
    def _on_compaction(self, entry: Entry) -> None:
        """Any compaction on the path, ours or appended by another writer (ctxscope), starts a new cycle."""
        self._cached = min(self._cached, self._overhead)  # only the system prompt prefix stays cached
        self._last_total = 0
        self._flushed_this_cycle = False

    def _append(self, entries: EntryBatch) -> int:
        written = self.log.append(entries)
        if self._on_entry is not None:
            for entry in written:
                self._on_entry(entry)
        return len(written)

    def _write_store(self, **changes: Any) -> None:
        self._store_row.update(changes, updatedAt=self._now_ms())
        try:
            store = orjson.loads(self.store_path.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            store = {}
        if not isinstance(store, dict):
            store = {}
        store[self.session_key] = dict(self._store_row)
        write_atomic(self.store_path, orjson.dumps(store, option=orjson.OPT_INDENT_2))

    # -- the session -------------------------------------------------------------------------------------------
    def run(self, max_turns: int | None = None) -> SimulationResult:
        """Play the story until ``max_turns`` turns are done or ``stop`` is set."""
        turns = 0
        try:
            self._start()
            for turn in self.story.turns():
                if max_turns is not None and turns >= max_turns:
                    break
                self._play(turn)
                turns += 1
                self._maintain()
        except _Stopped:
            pass
        return SimulationResult(self.transcript, self.store_path, self.session_key, self.session_id, turns,
                                self.log.entries_written, self.compactions, self.flushes, self.model_switches)

    def _start(self) -> None:
        t0 = self._now_ms()
        self._store_row = {
            "sessionId": self.session_id, "updatedAt": t0, "systemSent": True, "abortedLastRun": False,
            "chatType": "direct", "deliveryContext": {"channel": "webchat"}, "lastChannel": "webchat",
            "origin": {"provider": "webchat", "surface": "webchat", "chatType": "direct"},
            "sessionFile": str(self.transcript.resolve()), "compactionCount": 0, "inputTokens": 0,
            "outputTokens": 0, "totalTokens": 0, "modelProvider": self.model.provider, "model": self.model.model_id,
            "contextTokens": self.window, "thinkingLevel": self.thinking_level, "status": "running",
        }
        self._write_store()  # the gateway creates the store row before the transcript
        first = self.ids.new()
        self._append([
            header_entry(self.session_id, t0, str(self.workspace)),
            model_change_entry(first, None, t0 + 12, self.model),
            thinking_level_entry(self.ids.new(), first, t0 + 12, self.thinking_level),
            model_snapshot_entry(self.ids.new(), None, t0 + 13, self.model),
        ])

    def _play(self, turn: Turn) -> None:
        if turn.switch_to is not None and turn.switch_to != self.model:
            self._pause(0.4)
            now = self._now_ms()
            self.model = turn.switch_to
            self._cached = 0  # prompt caches are per model
            self.model_switches += 1
            self._append([model_change_entry(self.ids.new(), None, now, self.model),
                          model_snapshot_entry(self.ids.new(), None, now + 1, self.model)])
        if turn.thinking_level and turn.thinking_level != self.thinking_level:
            self.thinking_level = turn.thinking_level
            self._append([thinking_level_entry(self.ids.new(), None, self._now_ms(), self.thinking_level)])
        self._pause(0.7 + min(1.4, len(turn.user) / 120))
        self._run_input = self._run_output = 0
        self._write_store(status="running", modelProvider=self.model.provider, model=self.model.model_id,
                          thinkingLevel=self.thinking_level)
        text = f"{turn.user}\n[message_id: {session_uuid(self.rng)}]"
        self._append([user_entry(self.ids.new(), None, self._now_ms(), text)])
        for step in turn.steps:
            self._assistant(step)
        self.ledger.record(turn)
        self._end_run()

    def _assistant(self, step: AssistantStep) -> None:
        started = self._now_ms()
        content: list[dict[str, Any]] = []
        if step.thinking and self.thinking_level != "off":
            content.append(thinking_block(step.thinking, self.rng))
        if step.text:
            content.append(text_block(step.text))
        calls = [(tool_call_id(self.rng), call) for call in step.calls]
        content += [tool_call_block(call_id, call.name, call.arguments) for call_id, call in calls]
        output = max(1, math.ceil(message_chars({"role": "assistant", "content": content}) / 4))
        prompt = self._overhead + self.log.context_tokens
        usage = make_usage(self.model, prompt=prompt, output=output, cached=self._cached, fresh=self.rng.randint(3, 12))
        self._cached = prompt
        self._pause(0.5 + min(1.3, output / 350) + (0.4 if step.thinking else 0.0))
        self._append([assistant_entry(self.ids.new(), None, self._now_ms(), model=self.model, content=content,
                                      usage=usage, stop_reason="toolUse" if calls else "stop", started_ms=started)])
        self._last_total = usage["totalTokens"]
        self._run_input += usage["input"]
        self._run_output += output
        self._totals["cacheRead"] += usage["cacheRead"]
        self._totals["cacheWrite"] += usage["cacheWrite"]
        self._totals["cost"] += usage["cost"]["total"]
        self._last_prompt = prompt
        for call_id, call in calls:
            self._pause(call.seconds)
            if call.effect is not None:
                call.effect()
            self._append([tool_result_entry(self.ids.new(), None, self._now_ms(), call_id=call_id,
                                            tool_name=call.name, text=call.output, details=call.details,
                                            is_error=call.is_error)])

    def _end_run(self) -> None:
        self._write_store(
            status="done", inputTokens=self._run_input, outputTokens=self._run_output,
            totalTokens=self._last_prompt, totalTokensFresh=True, cacheRead=self._totals["cacheRead"],
            cacheWrite=self._totals["cacheWrite"], estimatedCostUsd=round(float(self._totals["cost"]), 6),
        )

    def _maintain(self) -> None:
        if self._last_total >= self.flush_line and not self._flushed_this_cycle:
            self._flush()
        if self._last_total > self.compaction_line:
            self._compact()

    def _flush(self) -> None:
        self._pause(1.2)
        self._append([user_entry(self.ids.new(), None, self._now_ms(), FLUSH_PROMPT)])
        day = time.strftime("%Y-%m-%d", time.gmtime(self._now_ms() / 1000))
        target = self.workspace / "memory" / f"{day}.md"
        try:
            existing = target.read_text()
        except OSError:
            existing = ""
        content = existing + ("\n" if existing else "") + self.ledger.memory_note(day)
        write = replace(self.story.write_text(f"memory/{day}.md", content),
                        effect=lambda: write_atomic(target, content.encode(), mode=0o644))
        self._run_input = self._run_output = 0
        self._assistant(AssistantStep("Pre-compaction flush: store the decisions, preferences and open items.",
                                      None, (write,)))
        self._assistant(AssistantStep(None, "NO_REPLY"))
        self.flushes += 1
        self._flushed_this_cycle = True
        self._end_run()
        self._write_store(memoryFlushAt=self._now_ms(), memoryFlushCompactionCount=self.compactions)

    def _compact(self) -> None:
        self._pause(1.5)  # the summarizer call
        if not self._append(self._compaction):
            return
        self.compactions += 1
        self._write_store(compactionCount=self.compactions, totalTokensFresh=False)
        self._pause(2.5)  # usage stays unknown until the next request

    def _compaction(self) -> list[dict[str, Any]]:
        """The compaction entry for the current path (built under the lock, after the re-read)."""
        path = tuple(self.log.entries_path)
        if not path or path[-1].type == "compaction":
            return []  # pi refuses: "Already compacted"
        view = context_from_path(path, self.log.reader.leaf)
        estimate, _ = agent_estimate(view)
        tokens_before = estimate or 0  # the simulator writes complete usage records: never NaN
        cut = find_cut_point(path, self.keep_recent)
        read_files, modified_files = file_lists(self.log.reader.read_object, path, cut.boundary_start,
                                                 cut.first_kept_index)
        split = None
        if cut.is_split_turn:
            obj = self.log.reader.read_object(path[cut.turn_start_index])
            asked = message_text(obj.get("message") or {}).split("\n[message_id:")[0][:240]
            split = f"The user had asked: {asked}\nThe agent was partway through answering when the history was cut."
        summary = self.ledger.summary(read_files, modified_files, split)
        first_kept = path[cut.first_kept_index].id or ""
        return [compaction_entry(self.ids.new(), None, self._now_ms(), summary=summary,
                                 first_kept_entry_id=first_kept, tokens_before=tokens_before,
                                 read_files=read_files, modified_files=modified_files)]


def run_simulation(
    state_dir: Path,
    *,
    pace: float = 1.0,
    seed: int = 7,
    window: int = DEMO_WINDOW,
    max_turns: int | None = None,
    stop: threading.Event | None = None,
    on_entry: EntryCallback | None = None,
    agent_id: str = "main",
) -> SimulationResult:
    """Simulate an agent session in ``state_dir`` at ``pace`` (1.0 ≈ an entry every 0.5–2 s; 0 = no waiting).

    Raises:
        engine.fs.session_lock.LockHeldError: another process held the session lock for 30 s.
    """
    agent = SimulatedAgent(state_dir, seed=seed, window=window, pace=pace, agent_id=agent_id, stop=stop,
                           on_entry=on_entry)
    return agent.run(max_turns)


def main(argv: list[str] | None = None) -> int:
    """``python -m sim.simulate STATE_DIR [--pace X] [--turns N] [--seed S] [--window W]``."""
    parser = argparse.ArgumentParser(prog="python -m sim.simulate", description="Simulate an OpenClaw agent "
                                     "session (pi JSONL + sessions.json) in STATE_DIR.")
    parser.add_argument("state_dir", type=Path)
    parser.add_argument("--pace", type=float, default=1.0, help="speed factor; 0 writes as fast as possible")
    parser.add_argument("--turns", type=int, default=None, help="stop after N turns (default: run until killed)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--window", type=int, default=DEMO_WINDOW, help="context window in tokens")
    args = parser.parse_args(argv)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        result = run_simulation(args.state_dir, pace=args.pace, seed=args.seed, window=args.window,
                                max_turns=args.turns, stop=stop)
    except KeyboardInterrupt:
        return 130
    print(orjson.dumps({"transcript": str(result.transcript), "session_key": result.session_key,
                        "turns": result.turns, "entries": result.entries, "compactions": result.compactions}).decode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
