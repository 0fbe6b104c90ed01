"""What the fake model answers OpenClaw: long ordinary replies, and summaries that pass its quality check.

OpenClaw's main-agent system prompt says it runs "inside OpenClaw"; its summarizer's does not. Anything that is
not a main-agent turn is answered with :func:`tests.realagents.fake_model.summary_text`, which carries the five
sections OpenClaw's safeguard requires (``## Decisions``, ``## Open TODOs``, ``## Constraints/Rules``,
``## Pending user asks``, ``## Exact identifiers``). Settings are attributes, changed between turns by tests.
"""

from __future__ import annotations

import threading
from typing import Any

from tests.realagents.fake_model import Reply, estimate_prompt_tokens, message_text, summary_text

MAIN_AGENT_MARK = "inside OpenClaw"
FILLER = "lorem ipsum dolor sit amet "
REQUIRED_SECTIONS = (
    "## Decisions",
    "## Open TODOs",
    "## Constraints/Rules",
    "## Pending user asks",
    "## Exact identifiers",
)


def is_main_turn(body: dict[str, Any]) -> bool:
    """True for a request of OpenClaw's main agent loop (its system prompt names OpenClaw)."""
    messages = body.get("messages") or []
    roles = ("system", "developer")
    system = " ".join(message_text(m) for m in messages if isinstance(m, dict) and m.get("role") in roles)
    return MAIN_AGENT_MARK in system


class OpenClawResponder:
    """A responder for :class:`tests.realagents.fake_model.FakeModelServer` tuned to OpenClaw.

    Attributes:
        reply_words: filler words in an ordinary reply (each about a token and a half of text).
        summary_delay_s: seconds a summary takes (bounded by the server).
        summaries: how many summary requests were answered.
    """

    def __init__(self, reply_words: int = 400, summary_delay_s: float = 0.0) -> None:
        self.reply_words = reply_words
        self.summary_delay_s = summary_delay_s
        self.summaries = 0
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Reply:
        prompt = estimate_prompt_tokens(body)
        if is_main_turn(body):
            users = sum(1 for m in body.get("messages", []) if isinstance(m, dict) and m.get("role") == "user")
            text = f"fake reply {users}: " + FILLER * self.reply_words
            return Reply(text=text.strip(), prompt_tokens=prompt, completion_tokens=max(1, len(text) // 4))
        with self._lock:
            self.summaries += 1
        text = summary_text(body)
        return Reply(text=text, prompt_tokens=prompt, completion_tokens=max(1, len(text) // 4),
                     delay_s=self.summary_delay_s)
