"""The protected budget of a compaction layer: how many recent tokens it keeps verbatim, and where that comes from.

One function computes it for every view (docs/compaction.md, Protected budget): the layer's ``protect_recent`` from
the config, capped at half the context window so a small window still has something to compact, unless the user
gave ``--keep-recent`` (the TUI's "keep recent" field). The planner cuts with it; ``inspect``, the dry runs, the
dialog and the JSON show it with its source, so the same session and layer never show two budgets.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.config.compaction_settings import LAYERS, CompactionSettings

__all__ = ["ProtectedBudget", "layer_budgets", "protected_budget"]


@dataclass(frozen=True, slots=True)
class ProtectedBudget:
    """The budget one layer protects on one session."""

    layer: str
    tokens: int
    """What the cut keeps verbatim, in pi-estimate tokens."""
    configured: int
    """The layer's ``protect_recent`` (or the override) before the window cap."""
    source: str
    """``layer setting`` (the config's ``compaction.layers.<layer>.protect_recent``) or ``--keep-recent``."""
    window: int
    capped: bool
    """The configured figure was over half the window and the cap applied."""

    def describe(self) -> str:
        """``16,384 (summarize layer setting 25,000, capped at half the 32,768-token window)``."""
        if self.source == "--keep-recent":
            return f"{self.tokens:,} (--keep-recent)"
        cap = f", capped at half the {self.window:,}-token window" if self.capped else ""
        return f"{self.tokens:,} ({self.layer} layer setting {self.configured:,}{cap})"

    def to_dict(self) -> dict[str, object]:
        return {"layer": self.layer, "tokens": self.tokens, "configured": self.configured, "source": self.source,
                "window": self.window, "capped": self.capped}


def protected_budget(layer: str, window: int, settings: CompactionSettings,
                     override: int | None = None) -> ProtectedBudget:
    """The budget ``layer`` protects in a ``window``-token context (``override``: the user's ``--keep-recent``)."""
    if override is not None:
        return ProtectedBudget(layer, override, override, "--keep-recent", window, capped=False)
    configured = settings.layer(layer).protect_recent
    cap = max(1, window // 2)
    return ProtectedBudget(layer, min(configured, cap), configured, "layer setting", window, capped=configured > cap)


def layer_budgets(window: int, settings: CompactionSettings) -> tuple[ProtectedBudget, ...]:
    """Every layer's budget on one window, in :data:`LAYERS` order."""
    return tuple(protected_budget(layer, window, settings) for layer in LAYERS)
