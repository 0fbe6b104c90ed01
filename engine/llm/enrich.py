"""The optional LLM decision enricher applied to a checkpoint (docs/checkpoints.md, LLM enrichment).

:func:`enrich_state` sends the session's context, serialized as for pi's summarizer (cut from the front to the
endpoint's input budget, so the latest turns always go), with the decisions the heuristics captured since the
last checkpoint; the model answers with the decisions it finds. Those come first, and each heuristic decision
is kept only when no LLM decision already states it (``is_semantic_duplicate``). Text is
redacted before it leaves the machine and the answer is redacted before it is kept (:mod:`engine.llm.client`).
Off unless asked for (``ctxscope checkpoint --enrich``); nothing is written here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from engine.capture.state import CapturedDecision, CapturedState
from engine.compaction.span_text import Loader
from engine.config.llm_settings import LLMConfig
from engine.llm.client import LLMError, enrich_decisions, merge_enriched
from engine.llm.summary import serialize_messages
from engine.session.snapshot import SessionSnapshot

__all__ = ["enrich_state"]


def enrich_state(
    state: CapturedState,
    snapshot: SessionSnapshot,
    load: Loader,
    llm: LLMConfig,
    *,
    when: str,
    env: Mapping[str, str] | None = None,
) -> CapturedState:
    """``state`` with the LLM's decisions merged ahead of the heuristic ones.

    Args:
        when: the timestamp given to decisions only the LLM found (ISO, the checkpoint's time).

    Raises:
        LLMError: the context is empty, or the call failed (:func:`engine.llm.client.enrich_decisions`).
    """
    conversation, previous = serialize_messages(snapshot.view.messages, load)
    if previous:
        conversation = f"[Summary of earlier work]: {previous}\n\n{conversation}"
    if not conversation.strip():
        raise LLMError("nothing to enrich: the session's context has no messages")
    heuristic = [d.what for d in state.decisions]
    found = enrich_decisions(llm, conversation, existing=heuristic, env=env)
    captured = {d.what: d for d in state.decisions}
    merged = merge_enriched(found, heuristic)
    return replace(state, decisions=tuple(captured.get(what) or CapturedDecision(what, when, None) for what in merged))
