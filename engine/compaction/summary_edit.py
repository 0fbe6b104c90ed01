"""A compaction plan with a summary the user edited before applying it.

The edited text is redacted like any summary, its tokens are counted with the engine's tokenizer (the one figure
the plan, the preview and the audit all show), and what depends on the summary's size is computed again: tokens
after, the checkpoint message (left out when the context would not shrink with it), the rewrite cost, and the
reasons the plan must not be applied. The plan says it was edited (``summary_edited``, ``summary_source``
``edited:…``); applying it audits that flag with the SHA-256 of the text, and the ``jsonl`` controller refuses
to re-plan an edited summary silently when the agent moved on in the meantime.
"""

from __future__ import annotations

import dataclasses

from engine.accounting.tokens import TokenCounter, get_counter
from engine.capture.redact import redact_secrets
from engine.compaction.plan import CompactionPlan, not_smaller_reason
from engine.compaction.plan_parts import PlanVerdict
from engine.session.cost import rewrite_cost

__all__ = ["with_edited_summary"]

_EDITED = "summary edited by hand:"


def with_edited_summary(plan: CompactionPlan, text: str, *, counter: TokenCounter | None = None) -> CompactionPlan:
    """``plan`` with ``text`` as its summary (``plan`` itself when ``text`` is its summary already).

    Blocks the plan when the edited summary is empty, does not shrink what it replaces, or would go through the
    gateway (which writes its own summary).
    """
    summary = redact_secrets(text).strip("\n")
    if summary == plan.summary:
        return plan
    tokens = (counter or get_counter()).count(summary)
    stale = not_smaller_reason(plan.layer, plan.summary_tokens, plan.tokens_summarized)
    blocked = [reason for reason in plan.blocked if reason != stale]
    if not summary.strip():
        blocked.append("the edited summary is empty: the agent would keep no record of what is taken out")
    elif plan.messages_summarized and tokens >= plan.tokens_summarized:
        blocked.append(not_smaller_reason(plan.layer, tokens, plan.tokens_summarized))
    if plan.controller == "gateway":
        blocked.append("the gateway writes its own summary: an edited summary cannot be applied through it; "
                       "use --controller jsonl")
    checkpoint, rendered, checkpoint_tokens = plan.checkpoint, plan.rendered_checkpoint, plan.checkpoint_tokens
    warnings = [w for w in plan.warnings if not w.startswith(_EDITED)]
    if checkpoint is not None and tokens + checkpoint_tokens >= plan.tokens_summarized:
        warnings.append(f"the checkpoint message ({checkpoint_tokens:,} tokens) is left out: with it the context "
                        "would not shrink")
        checkpoint, rendered, checkpoint_tokens = None, None, 0
    warnings.append(f"{_EDITED} {plan.summary_tokens:,} → {tokens:,} tokens")
    source = plan.summary_source if plan.summary_source.startswith("edited:") else f"edited:{plan.summary_source}"
    figures = dataclasses.replace(plan.figures, summary_tokens=tokens, checkpoint=checkpoint,
                                  rendered_checkpoint=rendered, checkpoint_tokens=checkpoint_tokens)
    if plan.cost is not None:
        figures = dataclasses.replace(figures, cost=rewrite_cost(
            plan.model, plan.provider, figures.context_tokens_before, figures.context_tokens_after))
    return dataclasses.replace(
        plan, draft=dataclasses.replace(plan.draft, text=summary, source=source, edited=True), figures=figures,
        verdict=PlanVerdict(tuple(warnings), tuple(blocked)),
    )
