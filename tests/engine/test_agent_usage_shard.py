"""A session's index shard, worked out from its directory's name as a string, is the one the ``Path`` rule gives:
a Codex rollout's ``YYYY/MM/DD`` folded into the directory above (engine/usage/agent_usage.py, docs/usage.md)."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

from engine.usage import agent_usage


def _by_path(path: str) -> str:
    """The rule as ``Path`` states it."""
    parent = Path(os.path.dirname(path))
    parts = parent.parts
    if len(parts) > 3 and all(p.isdigit() for p in parts[-3:]):
        parent = Path(*parts[:-3])
    return "agent-usage:" + os.path.abspath(parent)


def test_the_shard_of_every_kind_of_name_is_the_path_rules() -> None:
    # A regression guard: the string test that skips the Path once took every hidden directory (".codex") for a
    # name a Path would clean, so each Codex day directory cost two Paths (docs/usage.md, Speed).
    pieces = ["home", ".codex", "sessions", ".", "..", "", "2026", "01", "07", "x.y", ".hidden."]
    names = ["/" + "/".join(combo) + "/rollout.jsonl" for n in range(1, 6) for combo in
             itertools.product(pieces, repeat=n)]
    names += [name[1:] for name in names[::7]] + ["./2026/01/07/r.jsonl", "r.jsonl", "//2026/01/07/r.jsonl"]
    agent_usage._SHARDS.clear()
    for name in names:
        for given in (name, Path(name)):  # a name as written, and as a Path has cleaned it
            assert agent_usage._shard(given) == _by_path(str(given)), given  # type: ignore[arg-type]
            assert agent_usage._shard(given) == _by_path(str(given)), given  # type: ignore[arg-type]  # kept
