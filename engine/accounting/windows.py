"""Context-window resolution, always labelled with where the number came from (docs/context-accounting.md, Window).

Order: the store's ``contextTokens`` (OpenClaw ``sessions.json`` / SQLite ``entry_json``), then the model's
window in OpenClaw's ``openclaw.json`` (what OpenClaw itself falls back to), then config overrides, then the
agent's own model settings (pi's models.json, docs/pi.md), then the model table below, then 200,000 (OpenClaw's
``DEFAULT_CONTEXT_TOKENS``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from engine.stores.number_bounds import window_tokens

__all__ = ["DEFAULT_CONTEXT_WINDOW", "MODEL_WINDOWS", "ContextWindow", "resolve_context_window", "window_for_model"]

DEFAULT_CONTEXT_WINDOW = 200_000

# (pattern, window): first match wins, so specific ids come before families. Source: the vendors' model pages
# (2026). A "[1m]" / "-1m" suffix always means the 1M variant.
MODEL_WINDOWS: tuple[tuple[str, int], ...] = (
    (r"\[1m\]|-1m\b|1m-context", 1_000_000),
    (r"claude-(opus|sonnet)-(4-6|4\.6|4-7|4\.7|4-8|4\.8|5)", 1_000_000),
    (r"claude-(opus|sonnet|haiku)", 200_000),
    (r"claude-3", 200_000),
    (r"gpt-4\.1", 1_047_576),
    (r"gpt-5(\.\d+)?-codex|codex", 400_000),
    (r"gpt-5", 400_000),
    (r"gpt-4o|gpt-4-turbo|o1|o3|o4", 128_000),
    (r"gemini-(1\.5|2\.0|2\.5|3)", 1_048_576),
    (r"qwen3-coder", 262_144),
    (r"qwen3-max|qwen-max", 262_144),
    (r"qwen", 131_072),
    (r"kimi-k2|kimi-code|moonshot", 262_144),
    (r"minimax-m2|minimax", 204_800),
    (r"deepseek", 128_000),
    (r"glm-4\.[56]|glm", 128_000),
    (r"grok-4", 256_000),
)


@dataclass(frozen=True, slots=True)
class ContextWindow:
    """A context-window size in tokens and its provenance."""

    tokens: int
    source: str
    """``store`` (sessions.json / SQLite), ``openclaw.json``, ``config``, the agent's file
    (``pi models.json (<path>)``), ``model-table`` or ``default``."""


def window_for_model(model: str | None) -> tuple[int, str] | None:
    """Look a model id up in :data:`MODEL_WINDOWS`; ``None`` when unknown."""
    if not model:
        return None
    lowered = model.lower()
    for pattern, window in MODEL_WINDOWS:
        if re.search(pattern, lowered):
            return window, pattern
    return None


def resolve_context_window(
    *,
    store_context_tokens: object = None,
    model: str | None = None,
    overrides: Mapping[str, int] | None = None,
    agent_window: tuple[int, str] | None = None,
    configured: int | None = None,
) -> ContextWindow:
    """Pick the context window for a session by the precedence in the module docstring.

    Args:
        store_context_tokens: ``contextTokens`` from the session store, if any (validated here).
        model: the session's current model id.
        overrides: config ``context_windows``: model id (exact, case-insensitive) or ``"*"`` → tokens.
        agent_window: the window the agent's own configuration gives the model, and where it came from.
        configured: the model's window in ``openclaw.json``, if any.
    """
    store_window = window_tokens(store_context_tokens) if type(store_context_tokens) is int else None
    if store_window is not None:
        return ContextWindow(store_window, "store")
    if configured is not None and window_tokens(configured) is not None:
        return ContextWindow(configured, "openclaw.json")
    if overrides:
        lowered = {k.lower(): v for k, v in overrides.items()}
        if model and model.lower() in lowered:
            return ContextWindow(lowered[model.lower()], "config")
        if "*" in lowered:
            return ContextWindow(lowered["*"], "config")
    if agent_window is not None:
        return ContextWindow(agent_window[0], agent_window[1])
    found = window_for_model(model)
    if found is not None:
        return ContextWindow(found[0], "model-table")
    return ContextWindow(DEFAULT_CONTEXT_WINDOW, "default")
