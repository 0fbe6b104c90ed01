"""Layered compaction planning (docs/compaction.md): pure, deterministic, no writes.

:func:`plan_compaction` turns a :class:`~engine.compaction.request.CompactionRequest` into a
:class:`~engine.compaction.plan.CompactionPlan`: it gathers what the plan reads at the edge
(:func:`~engine.compaction.plan_inputs.gather_inputs`: controller, lock, transcript age, latest checkpoint,
token counts), then runs the stages of :mod:`engine.compaction.plan_stages` — cut → summary → figures →
assessment → verdict — each returning one value of :mod:`engine.compaction.plan_parts`.

Layer choice (:func:`select_compaction_layer`): the original loop tries prune → summarize → full and returns the
first match, so ``full`` could never win; ctxscope takes ``full`` at its trigger, else ``prune`` when tool
outputs are large, else ``summarize``.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import UTC, datetime
from pathlib import Path

from engine.accounting.measure import TokenCache
from engine.compaction.choice import choose_controller, select_compaction_layer, tool_output_tokens
from engine.compaction.plan import CompactionPlan
from engine.compaction.plan_inputs import gather_inputs
from engine.compaction.plan_stages import (
    AGENT_ACTIVE_SECONDS,
    assess,
    cut_context,
    decide,
    draft_summary,
    measure,
    summary_material,
)
from engine.compaction.request import CompactionRequest
from engine.compaction.span_text import Loader
from engine.config.compaction_settings import LAYERS
from engine.config.loader import Config
from engine.session.snapshot import SessionSnapshot

__all__ = [
    "AGENT_ACTIVE_SECONDS",
    "LAYERS",
    "CompactionRequest",
    "choose_controller",
    "plan_compaction",
    "select_compaction_layer",
    "tool_output_tokens",
]


def plan_compaction(
    snapshot: SessionSnapshot,
    layer: str,
    focus: str | None = None,
    *,
    keep_recent: int | None = None,
    config: Config | None = None,
    load: Loader | None = None,
    state_dir: Path | None = None,
    controller: str | None = None,
    automatic: bool = False,
    auto_compactions: int = 0,
    now: datetime | None = None,
    token_cache: TokenCache | None = None,
    summary_format: str | None = None,
    targets: Collection[str] | None = None,
) -> CompactionPlan:
    """Plan a compaction of ``snapshot``; reads the transcript and state dir, writes nothing.

    ``layer``, ``focus``, ``keep_recent``, ``controller``, ``automatic``, ``auto_compactions``, ``now``,
    ``summary_format`` and ``targets`` are the :class:`~engine.compaction.request.CompactionRequest`'s (which says
    what each means and raises :class:`ValueError` for one that cannot be planned); ``load``, ``state_dir`` and
    ``token_cache`` say where to read (:func:`~engine.compaction.plan_inputs.gather_inputs`).
    """
    request = CompactionRequest(
        layer, focus, keep_recent=keep_recent, targets=tuple(targets) if targets is not None else None,
        controller=controller, automatic=automatic, auto_compactions=auto_compactions,
        summary_format=summary_format, now=now or datetime.now(UTC),
    )
    config = config or Config()
    inputs, pending = gather_inputs(snapshot, request, config=config, load=load, state_dir=state_dir,
                                    token_cache=token_cache)
    cut = cut_context(snapshot, request, config.compaction)
    material = summary_material(snapshot, cut, inputs, config.compaction)  # while the tokens are counted
    counts = pending.join()
    draft = draft_summary(snapshot, request, cut, material, counts, inputs, config)
    figures = measure(snapshot, cut, draft, counts, inputs)
    assessment = assess(snapshot, request, inputs, cut, draft, figures, config.compaction)
    return CompactionPlan(
        source=snapshot.source,
        request=request,
        controller=inputs.controller,
        leaf_id=snapshot.view.leaf.id if snapshot.view.leaf else None,
        cut=cut,
        draft=draft,
        figures=figures,
        assessment=assessment,
        verdict=decide(request, inputs, cut, draft, figures, assessment),
        openclaw_budget=inputs.openclaw_budget,
        model=snapshot.model,
        provider=snapshot.provider,
    )
