"""pi's own configuration, read the way pi 0.73 reads it (docs/pi.md), for sessions pi writes itself.

pi keeps ``models.json`` and ``settings.json`` in its agent dir (``$PI_CODING_AGENT_DIR``, default
``~/.pi/agent``); a project's ``<cwd>/.pi/settings.json`` is merged over the global settings, nested objects key
by key. From them ctxscope takes what decides when pi compacts and what it keeps:

* the model's context window: a model declared under ``providers.<name>.models`` (``contextWindow``, default
  128,000) or a built-in model's ``providers.<name>.modelOverrides.<id>.contextWindow``;
* ``compaction.enabled`` / ``reserveTokens`` / ``keepRecentTokens`` (defaults true / 16,384 / 20,000).

Each figure carries the file it came from. Unreadable or malformed files are ignored as pi ignores them (it
reports and carries on with its defaults). Files are cached by path, size and modification time.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import orjson

from engine.stores.number_bounds import token_count

__all__ = [
    "PI_CUSTOM_MODEL_WINDOW",
    "PI_DEFAULT_KEEP_RECENT",
    "PI_DEFAULT_RESERVE",
    "PiCompaction",
    "pi_agent_dir",
    "pi_compaction_settings",
    "pi_model_window",
]

PI_DEFAULT_RESERVE = 16_384
PI_DEFAULT_KEEP_RECENT = 20_000
PI_CUSTOM_MODEL_WINDOW = 128_000
"""pi's ``contextWindow`` for a model declared in models.json without one."""


@dataclass(frozen=True, slots=True)
class PiCompaction:
    """pi's resolved ``compaction`` settings and where each came from (a file path, or ``pi default``)."""

    enabled: bool
    reserve_tokens: int
    keep_recent_tokens: int
    enabled_source: str
    reserve_source: str
    keep_recent_source: str


def pi_agent_dir(env: Mapping[str, str] | None = None) -> Path:
    """pi's agent dir: ``$PI_CODING_AGENT_DIR`` (``~`` expanded), else ``~/.pi/agent``."""
    env = os.environ if env is None else env
    return _agent_dir(env.get("PI_CODING_AGENT_DIR") or None, env.get("HOME"))


@lru_cache(maxsize=8)
def _agent_dir(configured: str | None, _home: str | None) -> Path:
    # Cached: path arithmetic costs more than the rest of a `status` row's lookups.
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".pi" / "agent"


@lru_cache(maxsize=64)
def _read_json(path: str, _size: int, _mtime_ns: int) -> Mapping[str, Any] | None:
    try:
        with open(path, "rb") as fh:
            data = orjson.loads(fh.read())
    except (OSError, orjson.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None


_FRESH_S = 1.0
"""How long a file's stat is trusted: ``status`` over a thousand sessions asks for the same few files each time."""
_seen: dict[str, tuple[float, Mapping[str, Any] | None]] = {}


def _json_file(path: Path) -> Mapping[str, Any] | None:
    key = str(path)
    now = time.monotonic()
    cached = _seen.get(key)
    if cached is not None and now - cached[0] < _FRESH_S:
        return cached[1]
    try:
        st = path.stat()
    except OSError:
        data = None
    else:
        data = _read_json(key, st.st_size, st.st_mtime_ns)
    if len(_seen) > 4096:  # one project settings path per session cwd: bounded
        _seen.clear()
    _seen[key] = (now, data)
    return data


def _whole(value: Any) -> int | None:
    # A count of tokens within its bound, else absent (docs/formats.md, Number bounds): models.json is hostile.
    return token_count(value)


_settings_seen: dict[tuple[str | None, Path], tuple[float, PiCompaction]] = {}
_windows_seen: dict[tuple[str, str, Path], tuple[float, tuple[int, str] | None]] = {}


def pi_compaction_settings(cwd: str | None, env: Mapping[str, str] | None = None) -> PiCompaction:
    """pi's ``getCompactionSettings()`` for a session started in ``cwd`` (``None``: global settings only)."""
    agent_dir = pi_agent_dir(env)
    key = (cwd, agent_dir)
    now = time.monotonic()
    cached = _settings_seen.get(key)
    if cached is not None and now - cached[0] < _FRESH_S:
        return cached[1]
    if len(_settings_seen) > 4096:
        _settings_seen.clear()
    settings = _compaction_settings(cwd, agent_dir)
    _settings_seen[key] = (now, settings)
    return settings


def _compaction_settings(cwd: str | None, agent_dir: Path) -> PiCompaction:
    layers: list[tuple[Path, Mapping[str, Any]]] = []
    global_path = agent_dir / "settings.json"
    project_path = Path(cwd) / ".pi" / "settings.json" if cwd else None
    for path in (global_path, project_path):
        data = _json_file(path) if path is not None else None
        section = data.get("compaction") if data is not None else None
        if path is not None and isinstance(section, Mapping):
            layers.append((path, section))
    values: dict[str, tuple[Any, str]] = {
        "enabled": (True, "pi default"),
        "reserveTokens": (PI_DEFAULT_RESERVE, "pi default"),
        "keepRecentTokens": (PI_DEFAULT_KEEP_RECENT, "pi default"),
    }
    for path, section in layers:  # the project file last: it wins key by key
        enabled = section.get("enabled")
        if isinstance(enabled, bool):
            values["enabled"] = (enabled, str(path))
        for key in ("reserveTokens", "keepRecentTokens"):
            number = _whole(section.get(key))
            if number is not None and number >= 0:
                values[key] = (number, str(path))
    return PiCompaction(
        enabled=values["enabled"][0],
        reserve_tokens=values["reserveTokens"][0],
        keep_recent_tokens=values["keepRecentTokens"][0],
        enabled_source=values["enabled"][1],
        reserve_source=values["reserveTokens"][1],
        keep_recent_source=values["keepRecentTokens"][1],
    )


def pi_model_window(
    provider: str | None, model_id: str | None, env: Mapping[str, str] | None = None
) -> tuple[int, str] | None:
    """The context window pi's models.json gives ``provider``/``model_id``, and where it came from.

    A model declared in the provider's ``models`` list wins (pi upserts custom models over built-in ones);
    otherwise a ``modelOverrides`` entry for a built-in model. ``None`` when models.json says nothing about it.
    """
    if not provider or not model_id:
        return None
    agent_dir = pi_agent_dir(env)
    key = (provider, model_id, agent_dir)
    now = time.monotonic()
    cached = _windows_seen.get(key)
    if cached is not None and now - cached[0] < _FRESH_S:
        return cached[1]
    if len(_windows_seen) > 4096:
        _windows_seen.clear()
    window = _model_window(provider, model_id, agent_dir / "models.json")
    _windows_seen[key] = (now, window)
    return window


def _model_window(provider: str, model_id: str, path: Path) -> tuple[int, str] | None:
    data = _json_file(path)
    providers = data.get("providers") if data is not None else None
    config = providers.get(provider) if isinstance(providers, Mapping) else None
    if not isinstance(config, Mapping):
        return None
    models = config.get("models")
    if isinstance(models, list):
        for model in models:
            if isinstance(model, Mapping) and model.get("id") == model_id:
                window = _whole(model.get("contextWindow"))
                return (window, f"pi models.json ({path})") if window and window > 0 else (
                    PI_CUSTOM_MODEL_WINDOW, f"pi default for a models.json model ({path})")
    overrides = config.get("modelOverrides")
    override = overrides.get(model_id) if isinstance(overrides, Mapping) else None
    if isinstance(override, Mapping):
        window = _whole(override.get("contextWindow"))
        if window and window > 0:
            return window, f"pi models.json modelOverrides ({path})"
    return None
