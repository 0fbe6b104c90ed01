"""Compaction settings: layers, the guard, auto mode, pins and where ctxscope may write (docs/compaction.md, Layers).

Parsed from the ``compaction:`` and ``auto_compact:`` keys of the config file (:mod:`engine.config.loader` calls
:func:`apply_compaction_key`). Example::

    compaction:
      layers:
        prune: {trigger: 0.80, protect_recent: 40000, min_tool_output_tokens: 50000}
        summarize: {trigger: 0.88, protect_recent: 25000}
        full: {trigger: 0.95, protect_recent: 15000}
        drop-only: {protect_recent: 20000}
      max_auto_compactions: 5
      controller: auto          # auto | jsonl | gateway | none
      workspace: ~/clawd        # drop-only archives go to <workspace>/memory/YYYY-MM-DD.md
      workspace_roots: [/srv/projects]   # where a header cwd outside ~ may serve as the workspace
      pinned: [3dccd1ba]        # entry ids carried verbatim into every summary
      prune_output: {max_chars: 4000, head_chars: 1500, tail_chars: 1500, keep_last: 5}
    auto_compact: {enabled: false, threshold: 0.88, layer: auto}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from engine.config.values import show, show_key

__all__ = [
    "CONTROLLERS",
    "LAYERS",
    "AutoCompactSettings",
    "CompactionSettings",
    "LayerSettings",
    "PruneOutputSettings",
    "SettingsError",
    "apply_compaction_key",
]

LAYERS: Final = ("prune", "summarize", "full", "drop-only")
"""Compaction layers, least to most lossy (``drop-only`` archives instead of summarizing)."""
CONTROLLERS: Final = ("auto", "jsonl", "gateway", "none")


_MAX_COUNT: Final = 100_000_000
"""Token budgets and counts above this are typos, not settings."""


class SettingsError(ValueError):
    """A compaction setting has the wrong type or value; the message names the key."""


@dataclass(frozen=True, slots=True)
class LayerSettings:
    """When a layer triggers and how much recent context it protects."""

    trigger: float | None
    """Utilization (fraction of the window) at which the layer applies; ``None`` = manual only."""
    protect_recent: int
    """Tokens of recent messages kept verbatim (pi's ``keepRecentTokens``)."""
    min_tool_output_tokens: int = 0
    """Extra condition: tool outputs in context must exceed this many tokens (prune only)."""


@dataclass(frozen=True, slots=True)
class AutoCompactSettings:
    """The sidecar's automatic compaction (off by default; docs/compaction.md, Automatic compaction)."""

    enabled: bool = False
    threshold: float = 0.88
    """Utilization (fraction) at which the sidecar compacts."""
    layer: str = "auto"
    """A layer name, or ``auto`` to pick one with ``select_compaction_layer``."""


@dataclass(frozen=True, slots=True)
class PruneOutputSettings:
    """How the prune layer shortens tool outputs (OpenClaw's soft trim / hard clear; docs/compaction.md, prune)."""

    max_chars: int = 4000
    """Outputs longer than this are trimmed to head + tail."""
    head_chars: int = 1500
    tail_chars: int = 1500
    keep_last: int = 5
    """How many of the newest outputs in the span are trimmed; older ones are cleared to a placeholder."""


@dataclass(frozen=True, slots=True)
class CompactionSettings:
    """Everything that shapes a compaction plan and who may apply it."""

    prune: LayerSettings = LayerSettings(0.80, 40_000, 50_000)
    summarize: LayerSettings = LayerSettings(0.88, 25_000)
    full: LayerSettings = LayerSettings(0.95, 15_000)
    drop_only: LayerSettings = LayerSettings(None, 20_000)
    auto: AutoCompactSettings = AutoCompactSettings()
    max_auto_compactions: int = 5
    controller: str = "auto"
    workspace: Path | None = None
    """Where drop-only archives go (``<workspace>/memory/``); ``None`` = the session header's ``cwd``."""
    workspace_roots: tuple[Path, ...] = ()
    """Directories outside the home directory in which a session header's ``cwd`` may serve as the workspace."""
    pinned: tuple[str, ...] = ()
    """Entry ids never lost: carried verbatim into the summary when they fall before the cut."""
    prune_output: PruneOutputSettings = field(default_factory=PruneOutputSettings)

    def layer(self, name: str) -> LayerSettings:
        """The settings of layer ``name`` (one of :data:`LAYERS`).

        Raises:
            KeyError: unknown layer.
        """
        if name not in LAYERS:
            raise KeyError(name)
        return getattr(self, name.replace("-", "_"))  # type: ignore[no-any-return]


def _fraction(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 2:  # NaN fails too
        raise SettingsError(f"{name}: expected a fraction of the window such as 0.88, got {show(value)}")
    return float(value)


def _count(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _MAX_COUNT:
        raise SettingsError(f"{name}: expected a whole number from 0 to {_MAX_COUNT:,}, got {show(value)}")
    return value


def _mapping(name: str, value: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise SettingsError(f"{name}: expected a mapping")
    return value


def _layer(name: str, current: LayerSettings, data: Mapping[str, Any], warnings: list[str]) -> LayerSettings:
    changes: dict[str, Any] = {}
    for key, value in data.items():
        where = f"compaction.layers.{name}.{show_key(key)}"
        if key == "trigger":
            changes["trigger"] = None if value is None else _fraction(where, value)
        elif key in ("protect_recent", "min_tool_output_tokens"):
            changes[key] = _count(where, value)
        else:
            warnings.append(f"unknown key {where} (ignored)")
    return replace(current, **changes)


def _auto(current: AutoCompactSettings, data: Mapping[str, Any], warnings: list[str]) -> AutoCompactSettings:
    changes: dict[str, Any] = {}
    for key, value in data.items():
        if key == "enabled":
            if not isinstance(value, bool):
                raise SettingsError(f"auto_compact.enabled: expected true or false, got {show(value)}")
            changes[key] = value
        elif key == "threshold":
            changes[key] = _fraction("auto_compact.threshold", value)
        elif key == "layer":
            if value not in (*LAYERS, "auto"):
                raise SettingsError(
                    f"auto_compact.layer: expected auto or one of {', '.join(LAYERS)}, got {show(value)}")
            changes[key] = value
        else:
            warnings.append(f"unknown key auto_compact.{show_key(key)} (ignored)")
    return replace(current, **changes)


def _compaction(current: CompactionSettings, data: Mapping[str, Any], warnings: list[str]) -> CompactionSettings:
    changes: dict[str, Any] = {}
    for key, value in data.items():
        if key == "layers":
            for name, layer_data in _mapping("compaction.layers", value).items():
                if name not in LAYERS:
                    warnings.append(f"unknown layer compaction.layers.{show_key(name)} (ignored)")
                    continue
                attr = name.replace("-", "_")
                layer = changes.get(attr, current.layer(name))
                changes[attr] = _layer(name, layer, _mapping(f"compaction.layers.{name}", layer_data), warnings)
        elif key == "auto":
            changes["auto"] = _auto(current.auto, _mapping("compaction.auto", value), warnings)
        elif key == "max_auto_compactions":
            changes[key] = _count(f"compaction.{key}", value)
        elif key == "controller":
            if value not in CONTROLLERS:
                raise SettingsError(
                    f"compaction.controller: expected one of {', '.join(CONTROLLERS)}, got {show(value)}")
            changes[key] = value
        elif key == "workspace":
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise SettingsError(f"compaction.workspace: expected a directory path, got {show(value)}")
            changes[key] = None if value is None else Path(value).expanduser()
        elif key == "workspace_roots":
            if not isinstance(value, list) or not all(isinstance(x, str) and x for x in value):
                raise SettingsError("compaction.workspace_roots: expected a list of directory paths")
            changes[key] = tuple(Path(x).expanduser() for x in value)
        elif key == "pinned":
            if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
                raise SettingsError("compaction.pinned: expected a list of entry ids")
            changes[key] = tuple(value)
        elif key == "prune_output":
            out: dict[str, int] = {}
            for name, raw in _mapping("compaction.prune_output", value).items():
                if name in ("max_chars", "head_chars", "tail_chars", "keep_last"):
                    out[name] = _count(f"compaction.prune_output.{name}", raw)
                else:
                    warnings.append(f"unknown key compaction.prune_output.{show_key(name)} (ignored)")
            changes[key] = replace(current.prune_output, **out)
        else:
            warnings.append(f"unknown key compaction.{show_key(key)} (ignored)")
    return replace(current, **changes)


def apply_compaction_key(current: CompactionSettings, key: str, value: Any) -> tuple[CompactionSettings, list[str]]:
    """Apply the top-level config key ``compaction`` or ``auto_compact``; returns the settings and warnings.

    Raises:
        SettingsError: a value has the wrong type or is out of range.
    """
    warnings: list[str] = []
    if key == "auto_compact":
        return replace(current, auto=_auto(current.auto, _mapping("auto_compact", value), warnings)), warnings
    return _compaction(current, _mapping("compaction", value), warnings), warnings
