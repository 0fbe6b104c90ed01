"""Sessions built for the compaction tests, and helpers to plan, apply and measure them."""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from engine.accounting.context import ContextView, build_context
from engine.accounting.measure import message_tokens
from engine.agents.discovery import discover_sessions
from engine.compaction.plan import CompactionPlan
from engine.compaction.planner import plan_compaction
from engine.config.loader import Config
from engine.session.snapshot import SessionFollower, SessionSnapshot
from engine.stores.source import SessionSource
from engine.stores.transcript import TranscriptReader, read_transcript
from tests.conftest import DATA, OPENCLAW
from tests.engine._transcripts import HEADER, assistant, line, tool_result, user

DECISION = orjson.loads(DATA.joinpath("decisions_dev.jsonl").read_bytes().splitlines()[0])


def live_v3_fixtures() -> list[Path]:
    """Live v3 transcripts in ``tests/fixtures/openclaw``, found by reading them (not by name)."""
    found = []
    for path in sorted(OPENCLAW.glob("*.jsonl")):
        first = path.read_bytes().split(b"\n", 1)[0]
        try:
            header = orjson.loads(first)
        except orjson.JSONDecodeError:
            continue
        if isinstance(header, dict) and header.get("type") == "session" and (header.get("version") or 1) >= 3:
            found.append(path)
    return found


def age(path: Path, seconds: float = 60.0) -> None:
    """Make a file look untouched for ``seconds`` (no agent-active warning)."""
    then = time.time() - seconds
    os.utime(path, (then, then))


def copy_fixture(fixture: Path, directory: Path) -> Path:
    """A tmp copy of a fixture (never its lock), aged a minute."""
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / fixture.name
    shutil.copyfile(fixture, target)
    age(target)
    return target


def tree_hash(root: Path) -> str:
    """One hash over every file name and byte under ``root``."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def output_text(seed: int, chars: int) -> str:
    """Tool output that tokenizes like real output (varied words and numbers), about ``chars`` long."""
    words = ["error", "def", "return", "value", "config", "request", "handler", "path", "retry", "status"]
    parts: list[str] = []
    size = 0
    i = seed
    while size < chars:
        word = f"{words[i % len(words)]}_{(i * 7919) % 10007}"
        parts.append(word)
        size += len(word) + 1
        i += 1
    return " ".join(parts)


def coding_session(
    path: Path,
    *,
    turns: int = 10,
    output_chars: int = 6000,
    total_per_turn: int = 6000,
    labels: Sequence[tuple[str, str]] = (),
    header: dict[str, Any] | None = None,
    first_total: int = 4000,
) -> Path:
    """A realistic coding session: each turn reads a file, writes one, and proposes a decision that is accepted.

    ``labels`` adds pi ``label`` entries ``(target_id, label)`` at the end. Usage grows by ``total_per_turn``.
    """
    entries: list[dict[str, Any]] = []
    parent: str | None = None
    total = first_total

    def add(entry: dict[str, Any]) -> None:
        nonlocal parent
        entries.append(entry)
        parent = entry["id"]

    for t in range(turns):
        add(user(f"u{t}", parent, f"turn {t}: please fix services/app{t}.py, see https://tracker.example.com/T-{t}"))
        add(assistant(f"a{t}", parent, f"Reading services/app{t}.py first.", total,
                      tool=("read", {"path": f"services/app{t}.py"})))
        add(tool_result(f"r{t}", parent, output_text(t, output_chars)))
        add(assistant(f"b{t}", parent, "Writing the fix.", total, tool=("write", {"path": f"services/fix{t}.py",
                                                                                  "content": "pass"})))
        add(tool_result(f"w{t}", parent, "ok"))
        total += total_per_turn
        add(assistant(f"c{t}", parent, DECISION["agent_response"], total))
        add(user(f"y{t}", parent, DECISION["user_reply"]))
        add(assistant(f"d{t}", parent, f"Done with turn {t}.\nTODO: add a regression test for app{t}.", total))
    for target, name in labels:
        add({"type": "label", "id": f"l-{target}", "parentId": parent, "timestamp": "2026-03-01T10:00:05.000Z",
             "targetId": target, "label": name})
    data = line(header or HEADER) + b"".join(line(e) for e in entries)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    age(path)
    return path


def source_of(path: Path) -> SessionSource:
    """The discovered session for a transcript path."""
    sessions = discover_sessions([path]).sessions
    assert len(sessions) == 1, sessions
    return sessions[0]


def snapshot_of(path: Path, config: Config | None = None) -> tuple[SessionFollower, SessionSnapshot]:
    follower = SessionFollower(source_of(path), config)
    return follower, follower.refresh()


def plan_for(path: Path, layer: str, state_dir: Path, **kwargs: Any) -> tuple[SessionFollower, CompactionPlan]:
    """Plan ``layer`` on the transcript at ``path`` with its state in ``state_dir``."""
    follower, snapshot = snapshot_of(path, kwargs.pop("config", None))
    plan = plan_compaction(snapshot, layer, load=follower.reader.read_object, state_dir=state_dir,
                           config=follower.config, **kwargs)
    return follower, plan


def context_of(path: Path) -> tuple[ContextView, TranscriptReader]:
    reader = read_transcript(path)
    return build_context(reader.entries, reader.by_id, reader.leaf), reader


def context_tokens(path: Path) -> int:
    """Tokens of every context message by the engine's tokenizer (the usage is unknown after a compaction)."""
    view, reader = context_of(path)
    return sum(message_tokens(m, reader) for m in view.messages)


def lines_of(data: bytes) -> list[dict[str, Any]]:
    return [orjson.loads(raw) for raw in data.splitlines() if raw.strip()]
