"""When to write a checkpoint automatically (docs/checkpoints.md, Triggers).

Triggers, recorded in ``meta.trigger``: ``auto-<N>pct`` (the 80% line and the rolling 25/50/75% points),
``turns`` (every 15 real user messages), ``pre-compaction-margin`` (within a margin of the agent's own
compaction line, which on small windows sits far below 80%), ``compaction`` (a new compaction entry appeared)
and ``session-end``. An automatic write is skipped when ``input_tokens`` moved less than 5% since the last
checkpoint; ``compaction`` and ``manual`` are never skipped — a compaction is exactly when state must be saved.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.accounting.gauge import GaugeReading, Thresholds

__all__ = ["TURNS_PER_CHECKPOINT", "TriggerState", "decide_trigger", "should_skip"]

TURNS_PER_CHECKPOINT = 15
SKIP_DELTA = 0.05


@dataclass(frozen=True, slots=True)
class TriggerState:
    """What has already fired in the current compaction cycle."""

    fired: frozenset[str] = frozenset()
    """Thresholds already crossed since the last compaction (``auto-80pct``, ``pre-compaction-margin``, …)."""
    compactions_seen: int = 0
    user_messages_since: int = 0
    """Real user messages since the last checkpoint."""
    last_checkpoint_tokens: int | None = None


def should_skip(trigger: str, tokens: int, last_tokens: int | None) -> bool:
    """The 5% rule: skip an automatic write when tokens barely moved since the last checkpoint."""
    if trigger in ("manual", "compaction") or last_tokens is None:
        return False
    if last_tokens == 0:
        return tokens == 0
    return abs(tokens - last_tokens) / last_tokens < SKIP_DELTA


def decide_trigger(
    state: TriggerState,
    gauge: GaugeReading,
    *,
    compactions: int,
    new_user_messages: int,
    thresholds: Thresholds = Thresholds(),
) -> tuple[str | None, TriggerState]:
    """The trigger that fires now (or ``None``) and the updated trigger state.

    Args:
        compactions: compaction entries in the transcript so far.
        new_user_messages: real user messages that arrived since the previous call.
    """
    users = state.user_messages_since + new_user_messages
    if compactions > state.compactions_seen:
        # The utilization dropped: every threshold may fire again in the new cycle.
        return "compaction", TriggerState(frozenset(), compactions, users, state.last_checkpoint_tokens)
    state = replace(state, user_messages_since=users)
    util = gauge.utilization
    if util is None or gauge.tokens is None:
        return None, state
    candidates: list[str] = []
    for fraction in (*thresholds.rolling, thresholds.checkpoint):
        name = f"auto-{round(fraction * 100)}pct"
        if util >= fraction and name not in state.fired:
            candidates.append(name)
    margin = next((m for m in gauge.markers if m.name == "pre-compaction"), None)
    if margin is not None and gauge.tokens >= margin.tokens and "pre-compaction-margin" not in state.fired:
        candidates.append("pre-compaction-margin")
    if candidates:
        # Several lines crossed at once (e.g. on start-up): mark all fired, report the most urgent.
        urgent = "pre-compaction-margin" if "pre-compaction-margin" in candidates else candidates[-1]
        return urgent, replace(state, fired=state.fired | frozenset(candidates))
    if users >= TURNS_PER_CHECKPOINT:
        return "turns", state
    return None, state
