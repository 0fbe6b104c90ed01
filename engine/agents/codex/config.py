"""Codex's ``config.toml``: the one setting the gauge needs, read-only (docs/codex.md, Compaction line)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the agent's adapter imports this module: naming the agent does not load the protocol's types
    from engine.agents.protocol import Figure

__all__ = ["codex_home", "compaction_line", "home_of_rollout"]

_MAX_CONFIG_BYTES = 1 << 20


def codex_home(env: Mapping[str, str]) -> Path:
    """``$CODEX_HOME``, else ``~/.codex``."""
    base = env.get("CODEX_HOME")
    return Path(base).expanduser() if base else Path(env.get("HOME") or Path.home()) / ".codex"


def home_of_rollout(path: Path) -> Path | None:
    """The ``CODEX_HOME`` a rollout was written under: ``<home>/sessions/YYYY/MM/DD/rollout-….jsonl``."""
    parents = path.parents
    if len(parents) > 4 and parents[3].name in ("sessions", "archived_sessions"):
        return parents[4]
    if len(parents) > 1 and parents[0].name == "archived_sessions":
        return parents[1]
    return None


def compaction_line(env: Mapping[str, str], rollout: Path | None = None) -> Figure:
    """``model_auto_compact_token_limit`` from ``config.toml``; unknown when it is not set.

    Without it, Codex 0.169.0 did not compact on its own with a model it has no metadata for (measured up to
    240,221 tokens of a 258,400-token window); a model it knows may bring its own limit, which ctxscope cannot see.
    """
    from engine.agents.protocol import Figure

    home = home_of_rollout(rollout) if rollout is not None else None
    path = (home or codex_home(env)) / "config.toml"
    try:
        with path.open("rb") as handle:
            raw = handle.read(_MAX_CONFIG_BYTES + 1)
    except OSError:
        return Figure(None, "codex: no config.toml")
    if len(raw) > _MAX_CONFIG_BYTES:
        return Figure(None, f"codex: {path} is over 1 MiB; not read")
    import tomllib  # here: a usage report, which never reads the config, does not pay for the parser

    try:
        data = tomllib.loads(raw.decode("utf-8", "replace"))
    except tomllib.TOMLDecodeError:
        return Figure(None, f"codex: {path} is not valid TOML")
    value = data.get("model_auto_compact_token_limit")
    if type(value) is int and value > 0:
        return Figure(value, "codex config.toml model_auto_compact_token_limit")
    return Figure(None, "codex: model_auto_compact_token_limit not set")
