"""What ctxscope reads from OpenClaw's own ``openclaw.json``: the context window of each configured model.

``models.providers.<provider>.models[]`` entries carry ``id`` and ``contextWindow``; OpenClaw uses that window
for a session whose store row has no ``contextTokens`` (docs/openclaw.md). Read-only; a file that is missing or
not plain JSON (OpenClaw also accepts JSON5) yields no windows rather than an error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from engine.stores.number_bounds import window_tokens

__all__ = ["configured_window", "model_windows"]

_cache: dict[Path, tuple[tuple[int, int], dict[tuple[str, str], int]]] = {}


def _positive_int(value: Any) -> int | None:
    # Bounded like every window (docs/formats.md, Number bounds): 1e308 here crashed every session's status.
    return window_tokens(value)


def model_windows(state_dir: Path) -> dict[tuple[str, str], int]:
    """``{(provider, model id): contextWindow}`` from ``<state_dir>/openclaw.json`` (cached by mtime and size)."""
    path = state_dir / "openclaw.json"
    try:
        st = path.stat()
    except OSError:
        return {}
    stamp = (st.st_mtime_ns, st.st_size)
    cached = _cache.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    try:
        data = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        data = None
    windows: dict[tuple[str, str], int] = {}
    providers = (data.get("models") or {}).get("providers") if isinstance(data, dict) else None
    if isinstance(providers, dict):
        for provider, body in providers.items():
            models = body.get("models") if isinstance(body, dict) else None
            for model in models if isinstance(models, list) else ():
                if not isinstance(model, dict) or not isinstance(model.get("id"), str):
                    continue
                window = _positive_int(model.get("contextTokens")) or _positive_int(model.get("contextWindow"))
                if window is not None:
                    windows[(str(provider), model["id"])] = window
    _cache[path] = (stamp, windows)
    return windows


def configured_window(state_dir: Path | None, provider: str | None, model: str | None) -> int | None:
    """The window ``openclaw.json`` gives ``provider``/``model`` (the model id alone if it is unambiguous)."""
    if state_dir is None or not model:
        return None
    windows = model_windows(state_dir)
    if provider and (provider, model) in windows:
        return windows[(provider, model)]
    matches = {w for (_, m), w in windows.items() if m == model}
    return matches.pop() if len(matches) == 1 else None
