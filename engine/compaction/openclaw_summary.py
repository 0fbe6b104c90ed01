"""ctxscope's summary of a session in OpenClaw's format, with what OpenClaw's quality audit needs beside it.

OpenClaw's safeguard audits a compaction summary (``auditSummaryQuality`` in its ``compaction-safeguard-quality``
module) against the five required sections, the opaque identifiers of the summarized messages, and the latest
user ask. :func:`openclaw_summary` plans a compaction of a session (nothing is written) with the summary forced
into OpenClaw's format and returns it with the summarized messages (as OpenClaw's message objects, redacted), the
previous summary and the latest real user ask, so a test can hand all of it to OpenClaw's own code in node.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from engine.agents.discovery import discover_sessions
from engine.capture.decisions import is_real_user_message, strip_envelope
from engine.capture.redact import redact_obj
from engine.compaction.plan import CompactionPlan
from engine.compaction.planner import plan_compaction
from engine.config.loader import Config
from engine.session.snapshot import SessionFollower
from engine.stores.message_content import message_text

__all__ = ["OpenClawSummary", "openclaw_summary"]


@dataclass(frozen=True, slots=True)
class OpenClawSummary:
    """The summary and the audit's other inputs."""

    summary: str
    messages: tuple[Mapping[str, Any], ...]
    """The summarized messages (user, assistant, tool results) as OpenClaw stores them, secrets redacted."""
    previous_summary: str | None
    latest_user_ask: str | None
    plan: CompactionPlan

    def to_json(self) -> dict[str, Any]:
        """``summary``, ``messages``, ``previousSummary``, ``latestAsk``: what a node script feeds the audit."""
        return {"summary": self.summary, "messages": [dict(m) for m in self.messages],
                "previousSummary": self.previous_summary, "latestAsk": self.latest_user_ask}


def openclaw_summary(
    path: Path,
    *,
    layer: str = "summarize",
    keep_recent: int | None = None,
    config: Config | None = None,
    state_dir: Path | None = None,
    now: datetime | None = None,
) -> OpenClawSummary:
    """Plan a ``layer`` compaction of the JSONL session at ``path`` in OpenClaw's format (writes nothing).

    Raises:
        ValueError: ``path`` is not a readable session, or the plan takes no message out.
    """
    sessions = discover_sessions([path]).sessions
    if len(sessions) != 1:
        raise ValueError(f"{path} is not one session ({len(sessions)} found)")
    follower = SessionFollower(sessions[0], config)
    snapshot = follower.refresh()
    load = follower.reader.read_object
    plan = plan_compaction(snapshot, layer, keep_recent=keep_recent, config=follower.config, load=load,
                           state_dir=state_dir or path.parent / ".ctxscope-state", now=now,
                           summary_format="openclaw")
    if not plan.messages_summarized:
        raise ValueError(f"nothing to summarize in {path}: {'; '.join(plan.blocked)}")
    dropped = {d.entry_id for d in plan.dropped}
    messages: list[Mapping[str, Any]] = []
    previous: str | None = None
    latest: str | None = None
    for m in snapshot.view.messages:
        if m.entry_id not in dropped:
            continue
        obj = load(m.entry)
        if m.role == "compactionSummary":
            summary = obj.get("summary")
            previous = summary if isinstance(summary, str) else None
            continue
        message = obj.get("message")
        if not isinstance(message, Mapping) or m.role not in ("user", "assistant", "toolResult"):
            continue
        messages.append(redact_obj(dict(message)))
        text = message_text(message)
        if m.role == "user" and is_real_user_message(text):
            latest = strip_envelope(text)
    redacted_previous = redact_obj(previous) if previous is not None else None
    latest_ask = redact_obj(latest) if latest is not None else None
    return OpenClawSummary(plan.summary, tuple(messages), redacted_previous, latest_ask, plan)
