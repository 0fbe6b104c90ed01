"""What survives five successive compactions: ``python -m bench.retention [--format openclaw|pi|both]``.

A generated coding session (tool output from :mod:`sim.synthetic_text`, about 100k tokens per phase) gets the
facts of ``bench/retention_facts.py`` planted across five phases — decisions, constraints/preferences, exact
identifiers, open TODOs, pending user asks, modified files; later phases supersede some decisions and
constraints and finish some TODOs and asks. After each phase the session is compacted for real (the planner,
then the ``jsonl`` controller appending the compaction entry), and the share of the facts still alive that the
context holds — the compaction summary plus the kept messages — is measured. Three arms run on identical
sessions in the same process: ctxscope's summarize layer, today's summarizer (``bench/summarizer_baseline.py``,
the code before issue 13) and the drop-only layer.

Matching rules: an identifier or a modified file counts when the context holds it as a whole token (not inside
a longer one); a decision, constraint, TODO or ask counts when the context holds its exact text (case and
whitespace ignored). A superseded or finished fact is "presented as current" when its text is in a current
section of the summary (decisions, constraints, TODOs, asks, goal, work in progress, blockers, context) rather
than under superseded or done.

Targets (issue 13): 100% of every kind after one compaction; after five, >= 95% of decisions, constraints and
identifiers and >= 90% of TODOs and asks, nothing stale presented as current; summary <= 6% of the window.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import random
import re
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

import engine.compaction.plan_stages as plan_stages
from bench.retention_facts import PHASES, Fact
from bench.summarizer_baseline import baseline_summary
from bench.table import Row, print_table
from engine.accounting.context import build_context
from engine.agents.discovery import discover_sessions
from engine.compaction.controllers import apply_compaction
from engine.compaction.layer_summary import LayerSummary, summary_budget
from engine.compaction.planner import plan_compaction
from engine.compaction.span_text import message_parts
from engine.compaction.summary_sections import parse_summary
from engine.config.compaction_settings import CompactionSettings
from engine.config.loader import Config
from engine.session.snapshot import SessionFollower
from engine.stores.transcript import read_transcript
from sim.synthetic import SONNET, assistant_entry, make_usage, tool_call_block, tool_result_entry, user_entry
from sim.synthetic_text import FILE_PATHS, SHELL_COMMANDS, USER_ASKS, USER_REPLIES, build_corpus

KINDS = ("decisions", "constraints", "identifiers", "todos", "asks", "modified")
ARMS = ("ctxscope", "today", "drop-only")
WINDOW = 200_000
TURNS_PER_PHASE = 30
_CURRENT = frozenset({"decisions", "constraints", "todos", "asks", "goal", "in_progress", "blocked", "context"})
_START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _norm(text: str) -> str:
    return " ".join(text.replace("**", "").split()).lower()


def _whole(token: str, text: str) -> bool:
    return re.search(r"(?<![\w./@~-])" + re.escape(token) + r"(?![\w/@-])", text) is not None


@dataclass
class _Session:
    """One arm's transcript and the writer state appended to it."""

    path: Path
    parent: str | None = None
    clock: datetime = _START
    serial: int = 0
    context: int = 4_000

    def append(self, entries: list[dict[str, Any]]) -> None:
        with self.path.open("ab") as handle:
            handle.write(b"".join(orjson.dumps(e) + b"\n" for e in entries))

    def _next(self) -> tuple[str, str | None, int]:
        self.serial += 1
        self.clock += timedelta(seconds=7)
        entry_id, parent = f"e{self.serial:05d}", self.parent
        self.parent = entry_id
        return entry_id, parent, int(self.clock.timestamp() * 1000)

    def user(self, text: str) -> dict[str, Any]:
        entry_id, parent, ms = self._next()
        self.context += len(text) // 4
        return user_entry(entry_id, parent, ms, text)

    def assistant(self, text: str, calls: Sequence[tuple[str, str, dict[str, Any]]] = ()) -> dict[str, Any]:
        entry_id, parent, ms = self._next()
        content = ([{"type": "text", "text": text}] if text else []) + [
            tool_call_block(call_id, name, args) for call_id, name, args in calls]
        self.context += len(text) // 4 + 40
        usage = make_usage(SONNET, prompt=self.context, output=200, cached=self.context - 500, fresh=500)
        return assistant_entry(entry_id, parent, ms, model=SONNET, content=content, usage=usage,
                               stop_reason="toolUse" if calls else "stop", started_ms=ms - 3000)

    def result(self, call_id: str, name: str, text: str) -> dict[str, Any]:
        entry_id, parent, ms = self._next()
        self.context += len(text) // 4
        return tool_result_entry(entry_id, parent, ms, call_id=call_id, tool_name=name, text=text)


@dataclass(frozen=True)
class _Turn:
    user: str
    tool: tuple[str, dict[str, Any]]
    output_chars: int
    reply: str


def _phase_turns(index: int, rng: random.Random) -> list[_Turn]:
    """The turns of one phase with its facts spread over them (some in the last turns, which stay verbatim)."""
    phase = PHASES[index]
    slots: list[dict[str, Any]] = [{"user": [], "reply": [], "edit": None} for _ in range(TURNS_PER_PHASE)]
    facts = list(phase.facts)
    rng.shuffle(facts)
    order = list(range(TURNS_PER_PHASE))
    rng.shuffle(order)
    for n, fact in enumerate(facts):
        slot = slots[order[n % TURNS_PER_PHASE]]
        if fact.kind in ("constraints", "asks"):
            slot["user"].append(fact.message)
        elif fact.kind == "modified":
            slot["edit"] = fact.message
        else:
            slot["reply"].append(fact.message)
    for n, (_key, line) in enumerate(phase.finishes):
        slots[(n * 11 + 3) % TURNS_PER_PHASE]["reply"].append(line)
    turns = []
    for slot in slots:
        user = " ".join(slot["user"]) or (rng.choice(USER_ASKS) if rng.random() < 0.3 else rng.choice(USER_REPLIES))
        if slot["edit"]:
            tool = ("edit", {"path": slot["edit"], "oldText": "limit = 100", "newText": "limit = settings.limit"})
        elif rng.random() < 0.5:
            tool = ("read", {"path": rng.choice(FILE_PATHS)})
        else:
            tool = ("bash", {"command": rng.choice(SHELL_COMMANDS)})
        reply = "\n\n".join(["Checked the output.", *slot["reply"]])
        turns.append(_Turn(user, tool, rng.randint(6_000, 22_000), reply))
    return turns


def _write_phase(session: _Session, turns: Sequence[_Turn], corpus_text: Callable[[int], str]) -> None:
    entries: list[dict[str, Any]] = []
    for n, turn in enumerate(turns):
        call_id = f"call_{session.serial}_{n}"
        entries.append(session.user(turn.user))
        entries.append(session.assistant("Let me look.", [(call_id, turn.tool[0], turn.tool[1])]))
        output = "ok" if turn.tool[0] == "edit" else corpus_text(turn.output_chars)
        entries.append(session.result(call_id, turn.tool[0], output))
        entries.append(session.assistant(turn.reply))
    session.append(entries)


def _new_session(root: Path, fmt: str, arm: str) -> _Session:
    if fmt == "openclaw":
        directory = root / arm / "state" / "agents" / "main" / "sessions"
    else:
        directory = root / arm / "pi" / "sessions" / "--work--"
    directory.mkdir(parents=True)
    path = directory / "2b7c1e9a-1f4e-4c55-9d2a-5a1f0c3e8b10.jsonl"
    header = {"type": "session", "version": 3, "id": "2b7c1e9a-1f4e-4c55-9d2a-5a1f0c3e8b10",
              "timestamp": _START.isoformat().replace("+00:00", "Z"), "cwd": str(root / arm / "ws")}
    path.write_bytes(orjson.dumps(header) + b"\n")
    return _Session(path)


@contextlib.contextmanager
def _todays_summarizer(load: Callable[[Any], Any]) -> Iterator[None]:
    """Route the planner's summarize layer through the frozen pre-issue-13 summarizer for one plan."""
    original = plan_stages.layer_summary

    def old(layer: str, snapshot: Any, span: Any, header: Any, **kwargs: Any) -> LayerSummary:
        if layer not in ("summarize", "full"):
            return original(layer, snapshot, span, header, **kwargs)
        text = baseline_summary(snapshot, span, load, header, None, kwargs["now"], kwargs["files"],
                                kwargs["turn_start"])
        return LayerSummary(text)

    plan_stages.layer_summary = old  # type: ignore[assignment]
    try:
        yield
    finally:
        plan_stages.layer_summary = original


@dataclass
class _Measure:
    shares: dict[str, tuple[int, int]] = field(default_factory=dict)
    summary_tokens: int = 0
    stale_current: list[str] = field(default_factory=list)


def _context(path: Path) -> tuple[str, str]:
    """``(summary, everything in the context)`` of the transcript now."""
    reader = read_transcript(path)
    view = build_context(reader.entries, reader.by_id, reader.leaf)
    summary = ""
    chunks: list[str] = []
    for m in view.messages:
        parts = message_parts(m, reader.read_object(m.entry))
        if m.role == "compactionSummary":
            summary = parts.text
        chunks += [parts.text, parts.command or ""]
        chunks += [orjson.dumps(dict(args)).decode() for _, args in parts.tool_calls]
    return summary, "\n".join(chunks)


def _present(fact: Fact, context: str, normalized: str) -> bool:
    if fact.kind in ("identifiers", "modified"):
        return _whole(fact.key, context)
    return _norm(fact.key) in normalized


def _measure(path: Path, alive: Sequence[Fact], stale: Sequence[str], summary_tokens: int) -> _Measure:
    summary, context = _context(path)
    normalized = _norm(context)
    result = _Measure(summary_tokens=summary_tokens)
    for kind in KINDS:
        facts = [f for f in alive if f.kind == kind]
        result.shares[kind] = (sum(1 for f in facts if _present(f, context, normalized)), len(facts))
    current = [_norm(i.text) for i in parse_summary(summary).items if i.kind in _CURRENT]
    result.stale_current = [key for key in stale if any(_norm(key) in item for item in current)]
    return result


def run(fmt: str, arms: Sequence[str] = ARMS, seed: int = 13) -> dict[str, list[_Measure]]:
    """Drive the five phases and compactions for each arm; the measurements after each compaction."""
    corpus = build_corpus(random.Random(seed), 2 << 20)
    results: dict[str, list[_Measure]] = {}
    with tempfile.TemporaryDirectory(prefix="ctxscope-retention-") as tmp:
        root = Path(tmp)
        for arm in arms:
            rng = random.Random(seed)
            session = _new_session(root, fmt, arm)
            # The workspace exists (ctxscope never creates one) and lies under a configured root (it is outside ~).
            (root / arm / "ws").mkdir(parents=True, exist_ok=True)
            config = Config(compaction=CompactionSettings(workspace=root / arm / "ws", controller="jsonl",
                                                          workspace_roots=(root,)))
            alive: list[Fact] = []
            stale: list[str] = []
            results[arm] = []
            for index, phase in enumerate(PHASES):
                _write_phase(session, _phase_turns(index, rng), functools.partial(corpus.slice, rng))
                finished = {key for key, _ in phase.finishes}
                replaced = {f.replaces for f in phase.facts if f.replaces}
                stale += sorted(finished | replaced)
                alive = [f for f in alive if f.key not in finished | replaced] + list(phase.facts)
                source = discover_sessions([session.path]).sessions[0]
                follower = SessionFollower(source, config)
                snapshot = follower.refresh()
                now = session.clock + timedelta(seconds=1)
                layer = "drop-only" if arm == "drop-only" else "summarize"
                state = root / arm / "ctx"
                with _todays_summarizer(follower.reader.read_object) if arm == "today" else contextlib.nullcontext():
                    plan = plan_compaction(snapshot, layer, config=config, load=follower.reader.read_object,
                                           state_dir=state, now=now, token_cache=follower.token_cache)
                if plan.blocked:
                    raise RuntimeError(f"{arm}: compaction {index + 1} blocked: {plan.blocked}")
                result = apply_compaction(plan, follower=follower, config=config, state_dir=state)
                session.parent = result.entry_ids[-1]
                session.context = plan.tokens_after + 3_000
                results[arm].append(_measure(session.path, alive, stale, plan.summary_tokens))
    return results


def _cell(counts: tuple[int, int]) -> str:
    present, total = counts
    return f"{present}/{total} {100 * present / total:.0f}%" if total else "-"


def print_results(fmt: str, results: dict[str, list[_Measure]]) -> list[Row]:
    """The per-compaction table, then the targets as rows (returned for ``bench/__main__``-style tables)."""
    header = ["arm", "after", *KINDS, "summary tok", "stale as current"]
    rows = [header]
    for arm, measures in results.items():
        for k, m in enumerate(measures, start=1):
            rows.append([arm, str(k), *(_cell(m.shares[kind]) for kind in KINDS), f"{m.summary_tokens:,}",
                         str(len(m.stale_current))])
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    print(f"format {fmt}, window {WINDOW:,} tokens, {len(PHASES)} compactions")
    for i, row in enumerate(rows):
        print("  ".join(c.ljust(widths[j]) for j, c in enumerate(row)).rstrip())
        if i == 0:
            print("  ".join("-" * w for w in widths))
    ours, today, drop = results.get("ctxscope"), results.get("today"), results.get("drop-only")
    if not ours:
        return []

    def share(m: _Measure, kind: str) -> float:
        present, total = m.shares[kind]
        return present / total if total else 1.0

    def base(kind: str, k: int) -> str:
        parts = [f"{name} {share(r[k], kind):.0%}" for name, r in (("today", today), ("drop-only", drop)) if r]
        return ", ".join(parts) or "-"

    out = []
    first, last = ours[0], ours[-1]
    out.append(Row(f"[{fmt}] every kind 100% after 1 compaction",
                   ", ".join(f"{k} {share(first, k):.0%}" for k in KINDS), base("decisions", 0), "-",
                   all(share(first, k) == 1.0 for k in KINDS)))
    for kinds, target in ((("decisions", "constraints", "identifiers"), 0.95), (("todos", "asks"), 0.90)):
        for kind in kinds:
            value = share(last, kind)
            out.append(Row(f"[{fmt}] {kind} after 5 compactions >= {target:.0%}", f"{value:.0%}",
                           base(kind, -1), "-", value >= target))
    stale = sum(len(m.stale_current) for m in ours)
    out.append(Row(f"[{fmt}] superseded/finished items presented as current: 0", str(stale),
                   ", ".join(f"{n} {sum(len(m.stale_current) for m in r)}"
                             for n, r in (("today", today), ("drop-only", drop)) if r), "-", stale == 0))
    biggest = max(m.summary_tokens for m in ours)
    limit = summary_budget(WINDOW)
    out.append(Row(f"[{fmt}] summary <= {limit / WINDOW:.0%} of the window ({limit:,} tokens)", f"max {biggest:,}",
                   f"today max {max(m.summary_tokens for m in today):,}" if today else "-",
                   f"{biggest / WINDOW:.1%} of the window", biggest <= limit))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.retention", description=__doc__.split("\n")[0])
    parser.add_argument("--format", choices=("openclaw", "pi", "both"), default="both")
    args = parser.parse_args(argv)
    rows: list[Row] = []
    for fmt in ("openclaw", "pi") if args.format == "both" else (args.format,):
        rows += print_results(fmt, run(fmt, ARMS if fmt == "openclaw" or args.format == "pi" else ("ctxscope",)))
        print()
    print_table(rows)
    return 0 if all(r.ok is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
