"""Fast bulk generation of realistic pi/OpenClaw session files, for benchmarks up to gigabytes.

Same entry shapes as the live simulator (:mod:`sim.synthetic`), but no locking, no pacing and no story: tool
output is sliced from one pre-rendered :class:`~sim.synthetic_text.TextCorpus`, lines are serialized with
orjson and written in multi-MB chunks. The generator keeps its own light copy of the context path (id, kind,
pi tokens) so usage grows like a real agent's, compactions land at the agent's line (or every N entries) with
pi's cut point, and optional branches leave the leaf off the longest path.
"""

from __future__ import annotations

import functools
import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from engine.agents.openclaw import OPENCLAW_RESERVE_FLOOR
from engine.agents.pi.config import PI_DEFAULT_RESERVE
from engine.stores.message_content import message_chars
from sim.chunk_writer import ChunkWriter
from sim.synthetic import (
    OPUS,
    PROMPT_OVERHEAD_TOKENS,
    SONNET,
    IdFactory,
    ModelSpec,
    assistant_entry,
    compaction_entry,
    compaction_summary,
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
from sim.synthetic_text import (
    DECISIONS,
    DONE_ITEMS,
    FILE_PATHS,
    NEXT_STEPS,
    SHELL_COMMANDS,
    USER_ASKS,
    USER_REPLIES,
    TextCorpus,
    build_corpus,
    thinking_text,
)

__all__ = ["GeneratedStats", "generate_session_file"]

_START_MS = 1_772_442_000_000
_CWD = "/home/dev/acme-payments"


@dataclass(frozen=True, slots=True)
class GeneratedStats:
    """What :func:`generate_session_file` wrote."""

    path: Path
    entries: int
    """Entries written, the header excluded."""
    compactions: int
    bytes: int
    last_usage_total: int
    """``totalTokens`` of the last assistant message written (it is on the leaf's path)."""
    leaf_id: str
    branches: int
    leaf_depth: int
    """Entries on the root→leaf path."""
    max_depth: int
    """Entries on the longest root→entry path in the file."""
    longest_line: int
    """Bytes of the longest line, newline excluded."""


# Path records: (id, kind, pi tokens, context tokens after the entry). Kinds: u/a/t messages (t = tool result,
# never a cut point), c compaction, o anything else (settings, custom); h marks the header, which is no record.
_Record = tuple[str, str, int, int]
_Fill = tuple[bytes, bytes]
"""A placeholder in a serialized line and the JSON-escaped corpus bytes that replace it."""


class _Writer:
    def __init__(self, path: Path, rng: random.Random, window: int, keep_recent: int) -> None:
        self.out = ChunkWriter(path)
        self.rng = rng
        self.ids = IdFactory(rng)
        self.window = window
        self.keep_recent = keep_recent
        self.entries = 0
        self.longest = 0
        self.now = _START_MS
        self.path: list[_Record] = []
        self.max_depth = 0
        self.model: ModelSpec = SONNET
        self.overhead = PROMPT_OVERHEAD_TOKENS + rng.randint(-500, 700)
        self.cached = 0
        self.last_total = 0
        self.compactions = 0
        self.kept_of: dict[str, str] = {}
        """Compaction id → its firstKeptEntryId (where pi's next cut search starts)."""

    @property
    def context(self) -> int:
        return self.path[-1][3] if self.path else 0

    @property
    def leaf(self) -> str | None:
        return self.path[-1][0] if self.path else None

    def emit(
        self, obj: dict[str, Any], kind: str, tokens: int, context: int | None = None, fills: tuple[_Fill, ...] = ()
    ) -> None:
        line = orjson.dumps(obj)
        for slot, fill in fills:
            line = line.replace(slot, fill)
        self.out.add_line(line)
        size = len(line)
        if size > self.longest:
            self.longest = size
        if kind != "h":
            self.entries += 1
            path = self.path
            after = (path[-1][3] if path else 0) + tokens if context is None else context
            path.append((obj["id"], kind, tokens, after))
            if len(path) > self.max_depth:
                self.max_depth = len(path)

    def tick(self, low: int, high: int) -> int:
        self.now += low + int(self.rng.random() * (high - low))
        return self.now

    def cut_point(self) -> int:
        """pi's ``findCutPoint`` from the last compaction's first kept record on (docs/pi.md): the first kept index."""
        path = self.path
        boundary = 0
        for i in range(len(path) - 1, -1, -1):
            if path[i][1] == "c":
                kept = self.kept_of.get(path[i][0])
                boundary = next((j for j in range(i) if path[j][0] == kept), i + 1)
                break
        cuts = [i for i in range(boundary, len(path)) if path[i][1] in "ua"]
        if not cuts:
            return boundary
        cut = cuts[0]
        total = 0
        for i in range(len(path) - 1, boundary - 1, -1):
            if path[i][1] in "uat":
                total += path[i][2]
                if total >= self.keep_recent:
                    cut = next((c for c in cuts if c >= i), cut)
                    break
        while cut > boundary and path[cut - 1][1] not in "uatc":
            cut -= 1
        return cut

    def branch_to(self, index: int) -> None:
        """Continue from ``path[index]``: later entries stay in the file but leave the path."""
        del self.path[index + 1 :]
        self.cached = min(self.cached, self.overhead + self.context)


@functools.lru_cache(maxsize=4)
def _corpus(seed: int) -> TextCorpus:
    return build_corpus(random.Random(seed + 1), chars=1 << 20)


@dataclass(frozen=True, slots=True)
class _Call:
    name: str
    arguments: dict[str, Any]
    result: str
    """The result text, or a placeholder filled from the corpus."""
    details: dict[str, Any] | None
    result_fill: _Fill | None
    result_chars: int
    args_fill: _Fill | None
    args_extra_chars: int
    """UTF-16 units the arguments' JSON gains when the placeholder is filled."""


def _tool(w: _Writer, corpus: TextCorpus, size: int, n: int) -> _Call:
    # Big strings never go through orjson: a placeholder is serialized and replaced by pre-escaped corpus bytes.
    rng = w.rng
    slot = f"@@corpus{n}@@"
    first, end = corpus.pick(rng, size)
    fill = (slot.encode(), corpus.json_of(first, end))
    kind = rng.random()
    if kind < 0.45:
        return _Call("read", {"path": rng.choice(FILE_PATHS)}, slot, None, fill, corpus.chars(first, end), None, 0)
    if kind < 0.85:
        details = {"status": "completed", "exitCode": int(rng.random() < 0.25),
                   "durationMs": int(80 + rng.random() * 40_000), "aggregated": slot, "cwd": _CWD}
        command = rng.choice(SHELL_COMMANDS)
        return _Call("exec", {"command": command}, slot, details, fill, corpus.chars(first, end), None, 0)
    path = rng.choice(FILE_PATHS)
    if kind < 0.93:
        extra = corpus.json_chars_of(first, end) - len(slot)
        result = f"Successfully wrote {corpus.chars(first, end)} bytes to {path}"
        return _Call("write", {"path": path, "content": slot}, result, None, None, len(result), fill, extra)
    old, new = corpus.slice(rng, 200), corpus.slice(rng, 260)
    result = f"Successfully replaced text in {path}. Changed {len(old)} characters to {len(new)} characters."
    return _Call("edit", {"path": path, "oldText": old, "newText": new}, result, {"diff": corpus.slice(rng, 1500)},
                 None, len(result), None, 0)


def _result_size(rng: random.Random) -> int:
    # Characters of one tool result: mostly small, a tail of big file reads and logs (some lines 100 KB+).
    x = rng.random()
    low, high = (100_000, 250_000) if x < 0.015 else (20_000, 60_000) if x < 0.1 else (4_000, 20_000) if x < 0.45 \
        else (300, 4_000)
    return low + int(rng.random() * (high - low))


def _assistant(w: _Writer, content: list[dict[str, Any]], stop: str, calls: tuple[_Call, ...] = ()) -> None:
    chars = message_chars({"role": "assistant", "content": content}) + sum(c.args_extra_chars for c in calls)
    output = max(1, math.ceil(chars / 4))
    prompt = w.overhead + w.context
    usage = make_usage(w.model, prompt=prompt, output=output, cached=w.cached, fresh=3 + int(w.rng.random() * 10))
    w.cached = prompt
    w.last_total = usage["totalTokens"]
    started = w.tick(200, 900)
    obj = assistant_entry(w.ids.new(), w.leaf, w.tick(800, 9000), model=w.model, content=content, usage=usage,
                          stop_reason=stop, started_ms=started)
    w.emit(obj, "a", output, fills=tuple(c.args_fill for c in calls if c.args_fill is not None))


def _turn(w: _Writer, corpus: TextCorpus, huge: int | None) -> None:
    rng = w.rng
    text = rng.choice(USER_REPLIES) if rng.random() < 0.3 else rng.choice(USER_ASKS)
    w.emit(user_entry(w.ids.new(), w.leaf, w.tick(3000, 60_000), text), "u", math.ceil(len(text) / 4))
    for _ in range(rng.choice((1, 1, 2, 3, 4, 6))):
        content: list[dict[str, Any]] = []
        if rng.random() < 0.5:
            content.append(thinking_block(thinking_text(rng), rng))
        if rng.random() < 0.3:
            content.append(text_block(rng.choice(("Let me check.", "Running the tests.", "Looking at the logs."))))
        calls = tuple(_tool(w, corpus, _result_size(rng), n) for n in range(rng.choice((1, 1, 1, 2, 3))))
        call_ids = [tool_call_id(rng) for _ in calls]
        content += [tool_call_block(call_id, c.name, c.arguments) for call_id, c in zip(call_ids, calls, strict=True)]
        _assistant(w, content, "toolUse", calls)
        for call_id, c in zip(call_ids, calls, strict=True):
            obj = tool_result_entry(w.ids.new(), w.leaf, w.tick(100, 20_000), call_id=call_id, tool_name=c.name,
                                    text=c.result, details=c.details)
            w.emit(obj, "t", math.ceil(c.result_chars / 4), fills=(c.result_fill,) if c.result_fill else ())
        if huge is not None:
            _huge_line(w, corpus, huge)
            huge = None
    final = (f"Done. {rng.choice(DONE_ITEMS)}.\n\nI'll keep the change scoped because {rng.choice(DECISIONS).lower()}."
             f"\n\nNext step: {rng.choice(NEXT_STEPS)}.")
    _assistant(w, [text_block(final)], "stop")


def _huge_line(w: _Writer, corpus: TextCorpus, size: int) -> None:
    """One ``exec`` result line of exactly ``size`` bytes: the model sees a truncated head, details hold it all."""
    rng = w.rng
    shown = corpus.slice(rng, min(4000, size // 8)) + "\n[output truncated: the full log is in details.aggregated]"
    call_id, entry_id = tool_call_id(rng), w.ids.new()
    _assistant(w, [tool_call_block(call_id, "exec", {"command": "kubectl logs deploy/payments --since=24h"})],
               "toolUse")
    ms = w.tick(1000, 5000)

    def build(full: str) -> dict[str, Any]:
        details = {"status": "completed", "exitCode": 0, "durationMs": 93_000, "aggregated": full, "cwd": _CWD}
        return tool_result_entry(entry_id, w.leaf, ms, call_id=call_id, tool_name="exec", text=shown,
                                 details=details)

    full = corpus.slice(rng, size)
    for _ in range(10):
        # Dropping n characters drops at least n bytes, and padding adds exactly one byte per ASCII character.
        excess = len(orjson.dumps(build(full))) - size
        if excess == 0:
            break
        full = full[: max(0, len(full) - excess)] if excess > 0 else full + "x" * -excess
    w.emit(build(full), "t", math.ceil(len(shown) / 4))


def _compact(w: _Writer) -> None:
    rng = w.rng
    first = w.cut_point()
    records = w.path
    kept = sum(r[2] for r in records[first:] if r[1] in "uat")
    files = rng.sample(FILE_PATHS, 4)
    summary = compaction_summary(
        goal="Add per-merchant rate limiting to the payments API.", constraints=["Key limits on merchant_id."],
        done=rng.sample(DONE_ITEMS, 3), in_progress=[rng.choice(NEXT_STEPS)], blocked=[],
        decisions=rng.sample(DECISIONS, 2), next_steps=rng.sample(NEXT_STEPS, 2),
        critical=["Tests: pytest tests/payments -q"], read_files=files[:2], modified_files=files[2:])
    obj = compaction_entry(w.ids.new(), w.leaf, w.tick(2000, 30_000), summary=summary,
                           first_kept_entry_id=records[first][0], tokens_before=w.overhead + w.context,
                           read_files=files[:2], modified_files=files[2:])
    summary_tokens = math.ceil(len(summary) / 4)
    w.kept_of[obj["id"]] = records[first][0]
    w.emit(obj, "c", summary_tokens, context=summary_tokens + kept)
    w.cached = min(w.cached, w.overhead)
    w.compactions += 1


def generate_session_file(
    path: Path,
    *,
    target_bytes: int,
    seed: int = 1,
    compaction_every: int | None = None,
    branches: bool = False,
    long_line_bytes: int | None = None,
    window: int = 200_000,
    keep_recent_tokens: int = 20_000,
) -> GeneratedStats:
    """Write a realistic pi v3 session of about ``target_bytes`` (at least that, plus the end of a turn or two).

    Args:
        compaction_every: ``None`` compacts like OpenClaw, when a run ends above ``window − 20000``; ``N > 0``
            compacts after every ``N`` entries instead (usage may then exceed the window); ``0`` never compacts.
        branches: abandon the path a few times (an edited, re-sent prompt) and end on a short branch from well
            back, so the leaf is not on the longest path.
        long_line_bytes: also write one ``exec`` result line of exactly this many bytes (newline excluded).

    Raises:
        ValueError: ``long_line_bytes`` is below 4096 (too small to hold a tool result entry).
    """
    if long_line_bytes is not None and long_line_bytes < 4096:
        raise ValueError(f"long_line_bytes={long_line_bytes}: a tool result line needs at least 4096 bytes here")
    rng = random.Random(seed)
    corpus = _corpus(seed)
    w = _Writer(Path(path), rng, window, keep_recent_tokens)
    huge_at = target_bytes // 2 if long_line_bytes else None
    branch_points = sorted(rng.uniform(0.2, 0.8) * target_bytes for _ in range(3)) if branches else []
    branch_count = 0
    try:
        t0 = w.tick(0, 0)
        w.emit(header_entry(session_uuid(rng), t0, _CWD), "h", 0)
        w.emit(model_change_entry(w.ids.new(), None, t0 + 12, w.model), "o", 0)
        w.emit(thinking_level_entry(w.ids.new(), w.leaf, t0 + 12, "medium"), "o", 0)
        w.emit(model_snapshot_entry(w.ids.new(), w.leaf, t0 + 13, w.model), "o", 0)
        since_compaction = 0
        turns = 0
        # A file never ends on a compaction: the turn after it shows the usage drop.
        while w.out.bytes + w.out.buffered < target_bytes or w.path[-1][1] == "c":
            size = w.out.bytes + w.out.buffered
            if branch_points and size >= branch_points[0]:
                branch_points.pop(0)
                users = [i for i in range(max(0, len(w.path) - 40), len(w.path)) if w.path[i][1] == "u"]
                if users and users[0] > 0:
                    w.branch_to(users[0] - 1)
                    branch_count += 1
            huge = None
            if huge_at is not None and size >= huge_at and long_line_bytes is not None:
                huge, huge_at = long_line_bytes, None
            before = w.entries
            _turn(w, corpus, huge)
            turns += 1
            since_compaction += w.entries - before
            if turns % 40 == 0:
                w.model = OPUS if w.model is SONNET else SONNET
                w.cached = 0
                w.emit(model_change_entry(w.ids.new(), w.leaf, w.tick(500, 2000), w.model), "o", 0)
                w.emit(model_snapshot_entry(w.ids.new(), w.leaf, w.tick(1, 5), w.model), "o", 0)
            line = window - max(OPENCLAW_RESERVE_FLOOR, PI_DEFAULT_RESERVE)
            due = (w.last_total > line) if compaction_every is None else (
                compaction_every > 0 and since_compaction >= compaction_every)
            if due and w.path[-1][1] != "c":
                _compact(w)
                since_compaction = 0
        if branches:
            # End on a short branch from well back: the leaf's path is shorter than the abandoned one.
            users = [i for i in range(len(w.path) // 2, len(w.path) - 12) if w.path[i][1] == "u"]
            if users:
                w.branch_to(users[0] - 1)
                branch_count += 1
                text = "actually, let's go back to the simpler version"
                w.emit(user_entry(w.ids.new(), w.leaf, w.tick(3000, 9000), text), "u", math.ceil(len(text) / 4))
                _assistant(w, [text_block("Sure. Reverting to the simpler version: one bucket per merchant.")], "stop")
        w.out.flush(final=True)
    finally:
        w.out.close()
    return GeneratedStats(Path(path), w.entries, w.compactions, w.out.bytes, w.last_total, w.leaf or "", branch_count,
                          len(w.path), w.max_depth, w.longest)
