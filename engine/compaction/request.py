"""What a user (or the sidecar) asks a compaction plan for: the planner's first value (docs/compaction.md, Plan first).

A :class:`CompactionRequest` holds only the question — layer, focus, protected budget, chosen messages, controller,
whether it is automatic — never anything read from disk; :func:`engine.compaction.plan_inputs.gather_inputs` reads
that, and the stages in :mod:`engine.compaction.plan_stages` answer it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from engine.capture.redact import redact_secrets
from engine.config.compaction_settings import LAYERS

__all__ = ["CompactionRequest"]


@dataclass(frozen=True, slots=True)
class CompactionRequest:
    """One request to plan a compaction; invalid combinations raise :class:`ValueError` when it is made."""

    layer: str
    focus: str | None = None
    """What the summary must preserve; redacted when the request is made."""
    keep_recent: int | None = None
    """Protected budget in pi-estimate tokens, overriding the layer's (which is capped at half the window;
    docs/compaction.md, Layers)."""
    targets: tuple[str, ...] | None = None
    """Prune exactly these context messages (entry ids): the cut goes right after the last of them, they are cleared
    or trimmed, every other message is carried whole. Only with the ``prune`` layer; ``keep_recent`` is ignored."""
    controller: str | None = None
    """``auto``/``jsonl``/``gateway``/``none``; ``None``: the config's."""
    automatic: bool = False
    """Planned by the sidecar; the guard then counts :attr:`auto_compactions`."""
    auto_compactions: int = 0
    summary_format: str | None = None
    """``pi`` or ``openclaw`` to override the format of the session's agent (summarize/full)."""
    now: datetime = field(default_factory=lambda: datetime.now(UTC))

    def __post_init__(self) -> None:
        if self.layer not in LAYERS:
            raise ValueError(f"unknown compaction layer {self.layer!r}; choose one of {', '.join(LAYERS)}")
        if self.keep_recent is not None and self.keep_recent < 0:
            raise ValueError(f"keep_recent must be >= 0, got {self.keep_recent}")
        if self.targets is not None and self.layer != "prune":
            raise ValueError(f"only the prune layer takes chosen messages, not {self.layer!r}")
        # The focus goes into the summary, the audit log and the LLM prompt: a pasted secret must not.
        if self.focus:
            object.__setattr__(self, "focus", redact_secrets(self.focus))

    @property
    def created_at(self) -> str:
        """:attr:`now` as the plan and the audit log write it (milliseconds, ``Z``)."""
        return self.now.isoformat(timespec="milliseconds").replace("+00:00", "Z")
