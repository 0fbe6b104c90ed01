"""Context-window resolution, always labelled with where the number came from (docs/context-accounting.md, Window).

Order: the store's ``contextTokens`` (OpenClaw ``sessions.json`` / SQLite ``entry_json``), then the model's
window in OpenClaw's ``openclaw.json`` (what OpenClaw itself falls back to), then config overrides, then the
agent's own model settings (pi's models.json, docs/pi.md), then the model catalogue (docs/models.md), then 200,000
(OpenClaw's ``DEFAULT_CONTEXT_TOKENS``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from engine.catalog.model_catalog import lookup
from engine.stores.number_bounds import window_tokens

__all__ = ["DEFAULT_CONTEXT_WINDOW", "ContextWindow", "resolve_context_window", "window_for_model"]

DEFAULT_CONTEXT_WINDOW = 200_000

@dataclass(frozen=True, slots=True)
class ContextWindow:
    """A context-window size in tokens and its provenance."""

    tokens: int
    source: str
    """``store`` (sessions.json / SQLite), ``openclaw.json``, ``config``, the agent's file
    (``pi models.json (<path>)``), ``catalog`` (docs/models.md) or ``default``."""


def window_for_model(model: str | None) -> tuple[int, str] | None:
    """The model's window from the model catalogue and the catalogue id it matched; ``None`` when unknown."""
    entry = lookup(model)
    if entry is None or entry.window is None:
        return None
    return entry.window, entry.id


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
        return ContextWindow(found[0], "catalog")
    return ContextWindow(DEFAULT_CONTEXT_WINDOW, "default")
