"""ctxscope configuration: YAML at ``$XDG_CONFIG_HOME/ctxscope/config.yaml``, then ``CTXSCOPE_*`` env vars.

Flags override both (the CLI applies them with :func:`dataclasses.replace`). Unknown keys are reported, not
fatal, so an older ctxscope still starts with a newer config file.

Example::

    context_windows: {"qwen3-max-2026-01-23": 262144, "*": 200000}
    thresholds: {gauge: 0.70, checkpoint: 0.80, pre_compaction_margin: 0.05}
    reserve_tokens: 16384
    reserve_floor: 20000      # OpenClaw's floor; default: 20000 for OpenClaw sessions, 0 for plain pi
    keep_recent_tokens: 20000
    state_dir: ~/.local/state/ctxscope
    compaction: {max_auto_compactions: 5, controller: auto}   # see engine.config.compaction_settings
    auto_compact: {enabled: false, threshold: 0.88, layer: auto}
    auto_checkpoints: true    # the sidecar's checkpoints on its triggers (the TUI and `watch`)
    auto_checkpoint_idle: 1h  # sessions idle longer than this when ctxscope starts wait until they move
    open_items_max_age: 14d   # older open items are shown as stale (hidden unless asked for)
    metrics: {idle_after: 24h}   # `watch --metrics`: see engine.config.metrics_settings
    gateway_timeout: 600      # seconds OpenClaw's gateway may take to compact (CTXSCOPE_GATEWAY_TIMEOUT)
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from engine.accounting.thresholds import Thresholds
from engine.agents.pi.config import PI_DEFAULT_RESERVE
from engine.agents.registry import entry_agent
from engine.config.compaction_settings import CompactionSettings, SettingsError, apply_compaction_key
from engine.config.llm_settings import LLMConfig, llm_config_from
from engine.config.metrics_settings import MetricsSettings, metrics_settings_from, parse_duration
from engine.config.values import show, show_key
from engine.fs.safe_read import read_regular_bytes

__all__ = ["Config", "ConfigError", "config_path", "load_config", "resolve_state_dir"]


class ConfigError(Exception):
    """The config file exists but cannot be used; the message says which key and why."""


@dataclass(frozen=True, slots=True)
class Config:
    """Settings that change accounting and where ctxscope writes."""

    thresholds: Thresholds = Thresholds()
    context_windows: Mapping[str, int] = field(default_factory=dict)
    """Model id (or ``*``) → window in tokens, used when the store gives none."""
    reserve_floor: int | None = None
    """OpenClaw's ``reserveTokensFloor``; ``None`` = 20,000 for OpenClaw sessions and 0 for plain pi."""
    keep_recent_tokens: int = 20_000
    retention: int = 5
    """Checkpoints kept per session."""
    state_dir: Path | None = None
    """Where checkpoints/state/audit go; ``None`` = the session's OpenClaw state dir, else XDG state."""
    warnings: tuple[str, ...] = ()
    compaction: CompactionSettings = CompactionSettings()
    """Layers, guard, auto mode, pins, controller and workspace for compaction (docs/compaction.md)."""
    llm: LLMConfig | None = None
    """An :class:`~engine.config.llm_settings.LLMConfig` when ``llm:`` is set (for ``compact --llm`` and ``checkpoint
    --enrich``)."""
    auto_checkpoints: bool = True
    """The sidecar writes checkpoints on its triggers (``ctxscope tui --no-auto-checkpoints`` turns it off too)."""
    auto_checkpoint_idle: float = 3600.0
    """Seconds: a session whose last activity is older than this when the sidecar first reads it is neither
    captured nor checkpointed then (no surprise writes for sessions idle for months); it is once it moves."""
    open_items_max_age: float = 14 * 86_400.0
    """Seconds after which an open item counts as stale in the TUI's Decisions tab (hidden unless asked for)."""
    metrics: MetricsSettings = MetricsSettings()
    """What ``ctxscope watch --metrics`` exports (``docs/fleet.md``)."""
    explicit: frozenset[str] = frozenset()
    """Top-level keys the config file or environment set (``reserve_tokens`` also for ``thresholds.reserve_tokens``):
    where they are set, they win over the agent's own settings (pi's settings.json)."""
    gateway_timeout: float = 600.0
    """Seconds OpenClaw's gateway may take to compact (``compact --timeout`` overrides; docs/openclaw.md)."""

    def reserve_floor_for(self, fmt: str) -> int:
        """The reserve floor for a session of format ``fmt``."""
        if self.reserve_floor is not None:
            return self.reserve_floor
        agent = entry_agent(fmt)  # the agent's own floor (OpenClaw's reserveTokensFloor; docs/agents.md)
        return agent.reserve_floor if agent is not None else 0


def config_path(env: Mapping[str, str] | None = None) -> Path:
    """Where the config file is looked for."""
    env = os.environ if env is None else env
    base = Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else Path.home() / ".config"
    return base / "ctxscope" / "config.yaml"


_MAX_CONFIG_BYTES = 1 << 20
"""A config file is a few hundred bytes; anything past this is refused unread."""
_LIMITS: dict[str, tuple[float, float]] = {
    "thresholds.gauge": (0.01, 1.0),
    "thresholds.checkpoint": (0.01, 1.0),
    "thresholds.pre_compaction_margin": (0.0, 0.5),
    "thresholds.rolling": (0.01, 1.0),
    "thresholds.flush": (0.01, 1.0),
    "thresholds.reserve_tokens": (0, 10_000_000),
    "reserve_tokens": (0, 10_000_000),
    "reserve_floor": (0, 10_000_000),
    "keep_recent_tokens": (0, 10_000_000),
    "retention": (1, 10_000),
    "context_windows": (1, 100_000_000),
}
"""Allowed range of each numeric key (inclusive)."""


def _number(name: str, value: Any, kind: type) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{name}: expected a number, got {show(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"{name}: expected a finite number, got {show(value)}")
    if kind is int and value != int(value):
        raise ConfigError(f"{name}: expected a whole number, got {show(value)}")
    low, high = _LIMITS.get(name.split("[", 1)[0] if not name.startswith("context_windows") else "context_windows",
                            (-math.inf, math.inf))
    if not low <= value <= high:
        raise ConfigError(f"{name}: expected a value from {low:g} to {high:g}, got {show(value)}")
    return kind(value)


def _state_dir(name: str, value: Any) -> Path:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{name}: expected a directory path, got {show(value)}")
    path = Path(value).expanduser()
    if not path.is_absolute():
        raise ConfigError(f"{name}: expected an absolute path (or one starting with ~), got {show(value)}")
    return path


def _apply(config: Config, data: Mapping[str, Any], origin: str) -> Config:
    try:
        return _apply_keys(config, data, origin)
    except ConfigError as exc:
        text = str(exc)
        raise ConfigError(text if text.startswith(origin) else f"{origin}: {text}") from None


def _apply_keys(config: Config, data: Mapping[str, Any], origin: str) -> Config:
    warnings = list(config.warnings)
    thresholds = config.thresholds
    changes: dict[str, Any] = {}
    explicit = set(config.explicit) | {str(k) for k in data}
    thresholds_data = data.get("thresholds")
    if isinstance(thresholds_data, Mapping) and "reserve_tokens" in thresholds_data:
        explicit.add("reserve_tokens")
    for key, value in data.items():
        if key == "thresholds":
            if not isinstance(value, Mapping):
                raise ConfigError(f"{origin}: thresholds: expected a mapping")
            updates: dict[str, Any] = {}
            for name, raw in value.items():
                if name in ("gauge", "checkpoint", "pre_compaction_margin"):
                    updates[name] = _number(f"thresholds.{name}", raw, float)
                elif name in ("rolling", "flush"):
                    if not isinstance(raw, list):
                        raise ConfigError(f"{origin}: thresholds.{name}: expected a list of fractions")
                    updates[name] = tuple(_number(f"thresholds.{name}", x, float) for x in raw)
                elif name == "reserve_tokens":
                    updates[name] = _number("thresholds.reserve_tokens", raw, int)
                else:
                    warnings.append(f"{origin}: unknown key thresholds.{show_key(name)} (ignored)")
            thresholds = replace(thresholds, **updates)
        elif key == "reserve_tokens":
            thresholds = replace(thresholds, reserve_tokens=_number(key, value, int))
        elif key == "context_windows":
            if not isinstance(value, Mapping):
                raise ConfigError(f"{origin}: context_windows: expected a mapping of model id to tokens")
            changes[key] = {str(k): _number(f"context_windows.{show_key(k)}", v, int) for k, v in value.items()}
        elif key in ("reserve_floor", "keep_recent_tokens", "retention"):
            changes[key] = _number(key, value, int)
        elif key == "gateway_timeout":
            seconds = _number(key, value, float)
            if seconds <= 0:
                raise ConfigError(f"{origin}: gateway_timeout: expected seconds > 0, got {value!r}")
            changes[key] = seconds
        elif key == "auto_checkpoints":
            if not isinstance(value, bool):
                raise ConfigError(f"{origin}: auto_checkpoints: expected true or false, got {show(value)}")
            changes[key] = value
        elif key in ("auto_checkpoint_idle", "open_items_max_age"):
            try:
                changes[key] = parse_duration(key, value)
            except ValueError as exc:
                raise ConfigError(f"{origin}: {exc}") from exc
        elif key == "state_dir":
            changes[key] = _state_dir(f"{origin}: state_dir" if origin == "environment" else "state_dir", value)
        elif key == "llm":
            if not isinstance(value, Mapping):
                raise ConfigError(f"{origin}: llm: expected a mapping (kind, base_url, model, api_key_env)")
            try:
                changes["llm"] = llm_config_from(value)
            except ValueError as exc:
                raise ConfigError(f"{origin}: {exc}") from exc
        elif key == "metrics":
            if not isinstance(value, Mapping):
                raise ConfigError(f"{origin}: metrics: expected a mapping (idle_after, host)")
            try:
                changes["metrics"], notes = metrics_settings_from(value)
            except ValueError as exc:
                raise ConfigError(f"{origin}: {exc}") from exc
            warnings += [f"{origin}: {note}" for note in notes]
        elif key in ("compaction", "auto_compact"):
            try:
                settings, notes = apply_compaction_key(changes.get("compaction", config.compaction), key, value)
            except SettingsError as exc:
                raise ConfigError(f"{origin}: {exc}") from exc
            changes["compaction"] = settings
            warnings += [f"{origin}: {note}" for note in notes]
        else:
            warnings.append(f"{origin}: unknown key {show_key(key)} (ignored)")
    return replace(config, thresholds=thresholds, warnings=tuple(warnings), explicit=frozenset(explicit), **changes)


def _read_yaml(path: Path) -> Any:
    # Imported here: PyYAML costs ~15 ms at start-up, and most users have no config file (`status` budget).
    import yaml

    from engine.config.yaml_safety import AliasRefusedError, load_without_aliases

    try:
        data = read_regular_bytes(path, _MAX_CONFIG_BYTES)
        return load_without_aliases(data.decode("utf-8")) or {}
    except AliasRefusedError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 (byte {exc.start}); save it as UTF-8") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except yaml.YAMLError as exc:
        first = " ".join(str(exc).split())[:200]
        raise ConfigError(f"{path}: cannot be read as YAML ({first}); fix or remove it") from None
    except (ValueError, RecursionError) as exc:  # e.g. an integer of thousands of digits, absurd nesting
        raise ConfigError(f"{path}: cannot be read as YAML ({' '.join(str(exc).split())[:200]})") from None


def load_config(path: Path | None = None, env: Mapping[str, str] | None = None) -> Config:
    """Load the config file (if present) and ``CTXSCOPE_*`` env overrides.

    Raises:
        ConfigError: the file is not valid YAML (or uses aliases), or a value has the wrong type or range.
    """
    env = os.environ if env is None else env
    path = path or config_path(env)
    config = Config(thresholds=Thresholds(reserve_tokens=PI_DEFAULT_RESERVE))
    if path.exists() or path.is_symlink():
        data = _read_yaml(path)
        if not isinstance(data, Mapping):
            raise ConfigError(f"{path}: expected a mapping at the top level")
        config = _apply(config, data, str(path))
    env_data: dict[str, Any] = {}
    if env.get("CTXSCOPE_STATE_DIR"):
        env_data["state_dir"] = env["CTXSCOPE_STATE_DIR"]
    timeout = env.get("CTXSCOPE_GATEWAY_TIMEOUT")
    if timeout:
        try:
            env_data["gateway_timeout"] = float(timeout)
        except ValueError as exc:
            raise ConfigError(f"CTXSCOPE_GATEWAY_TIMEOUT={timeout!r}: expected seconds") from exc
    for name in ("RESERVE_FLOOR", "KEEP_RECENT_TOKENS", "RESERVE_TOKENS"):
        raw = env.get(f"CTXSCOPE_{name}")
        if raw:
            try:
                env_data[name.lower()] = int(raw[:20])
            except ValueError:
                raise ConfigError(f"CTXSCOPE_{name}={show(raw)}: expected a whole number") from None
    return _apply(config, env_data, "environment") if env_data else config


def resolve_state_dir(source_state_dir: Path | None, config: Config, env: Mapping[str, str] | None = None) -> Path:
    """Where ctxscope writes for a session: ``--state-dir``/config, else the session's OpenClaw state dir,
    else ``$XDG_STATE_HOME/ctxscope`` (``~/.local/state/ctxscope``)."""
    if config.state_dir is not None:
        return config.state_dir
    if source_state_dir is not None:
        return source_state_dir
    env = os.environ if env is None else env
    base = Path(env["XDG_STATE_HOME"]) if env.get("XDG_STATE_HOME") else Path.home() / ".local" / "state"
    return base / "ctxscope"
