"""The sessions compared against pi: the real fixtures, generated sessions and the hand-built edge cases."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.conftest import OPENCLAW
from tests.realagents.pi.edge_cases import build_all

try:  # the generator moves to sim/ with the engine restructuring
    from sim.session_generator import generate_session_file
except ImportError:
    from engine.session_generator import generate_session_file

FIXTURES = sorted(
    p for p in OPENCLAW.iterdir() if ".jsonl" in p.name and not p.name.endswith((".lock", "sessions.json"))
)
GENERATED_COUNT = 48


@dataclass(frozen=True)
class Sample:
    """One session file and pi's reading of it."""

    corpus: str
    name: str
    path: Path
    pi: dict[str, Any]


def generate(directory: Path, count: int = GENERATED_COUNT) -> list[Path]:
    """``count`` seeded sessions, pi-style JSON (no spaces): sizes, compaction styles and branches vary."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(count):
        path = directory / f"gen-{i:02d}.jsonl"
        generate_session_file(
            path,
            target_bytes=(150_000, 400_000, 900_000)[i % 3],
            seed=100 + i,
            compaction_every=(None, 40, 120, 0)[i % 4],
            branches=bool(i % 2),
            window=(60_000, 100_000)[i % 2],
        )
        paths.append(path)
    first = paths[0].read_bytes()[:400]
    if b'": ' in first or b'", "' in first:
        raise AssertionError("the generator no longer writes JSON the way pi does (no spaces)")
    return paths


def edge_cases(directory: Path) -> dict[str, Path]:
    directory.mkdir(parents=True, exist_ok=True)
    return build_all(directory)
