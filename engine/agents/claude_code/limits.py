"""Claude Code's context window and auto-compact threshold per model (docs/claude-code.md, Window and threshold).

The window is the model's in the model catalogue (docs/models.md; a ``[1m]`` suffix means 1,000,000), else
Claude Code's usual 200,000, labelled as assumed. Measured on Claude Code 2.1.328 against the fake model:
``claude-opus-5-5`` (1,000,000 in the catalogue) compacted on its own at a reported context of 967,077 tokens and
not at 966,958 — the line is the window less 33,000 (the reply's reserve and the summary's buffer).
"""

from __future__ import annotations

from engine.agents.protocol import Figure
from engine.catalog.model_catalog import lookup

__all__ = ["AUTOCOMPACT_MARGIN", "compaction_line", "window_of"]

AUTOCOMPACT_MARGIN = 33_000
"""Tokens below the window where Claude Code compacts on its own (measured; see the module docstring)."""

_DEFAULT = 200_000


def window_of(model: str | None) -> Figure:
    """The window Claude Code gives ``model``, with where that figure comes from."""
    entry = lookup(model)
    if entry is not None and entry.window is not None:
        return Figure(entry.window, f"catalog:{entry.id}" + (" [1m]" if model and model.endswith("[1m]") else ""))
    if model and model.endswith("[1m]"):
        return Figure(1_000_000, "claude-code model suffix [1m]")
    return Figure(_DEFAULT, "claude-code default window (assumed, not measured for this model)")


def compaction_line(window: Figure) -> Figure:
    """Where Claude Code compacts on its own: the window less :data:`AUTOCOMPACT_MARGIN`.

    ``CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`` in the agent's environment lowers it; ctxscope cannot see that environment.
    """
    if window.tokens is None:
        return Figure(None, "claude-code auto-compact (window unknown)")
    return Figure(window.tokens - AUTOCOMPACT_MARGIN, f"claude-code auto-compact: window - {AUTOCOMPACT_MARGIN:,}")
