"""Thread extraction for checkpoints, with no LLM (docs/checkpoints.md, Thread).

Summary: the first and the last real user message (100 characters each). Key exchanges: the first user
message, every user message that follows a long (> 500 characters) agent response — likely a decision point —
and the last two user/agent exchange pairs; at most 8, each gist 120 characters.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from engine.accounting.context import ContextMessage
from engine.capture.decisions import is_real_user_message, strip_envelope
from engine.capture.envelopes import after_harness, is_harness_reply, loads_skill_text, user_words
from engine.stores.entries import Entry
from engine.stores.message_content import message_text

__all__ = ["Exchange", "Thread", "extract_thread", "gist", "is_acknowledgement"]

LONG_AGENT_CHARS = 500
MAX_EXCHANGES = 8
GIST_CHARS = 120
SUMMARY_CHARS = 100


@dataclass(frozen=True, slots=True)
class Exchange:
    """One remembered turn: ``user`` or ``agent`` and the first 120 characters of what was said."""

    role: str
    gist: str
    entry_id: str | None = None


@dataclass(frozen=True, slots=True)
class Thread:
    """The conversation in brief."""

    summary: str
    key_exchanges: tuple[Exchange, ...]
    first_user: str | None
    last_user: str | None
    user_said: tuple[tuple[str, str], ...] = ()
    """Every real user message of the context read for it: (timestamp, the user's own words), in order -- so a view
    that needs to know when something was said does not read the messages again."""


def gist(text: str, limit: int = GIST_CHARS) -> str:
    """Whitespace collapsed and cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _text(load: Callable[[Entry], Mapping[str, Any]], entry: Entry) -> str:
    message = load(entry).get("message")
    return message_text(message) if isinstance(message, Mapping) else ""


def _agent_text(load: Callable[[Entry], Mapping[str, Any]], entry: Entry) -> str:
    """What the agent said: its text blocks, not its private thinking; tool calls only when it said nothing."""
    message = load(entry).get("message")
    if not isinstance(message, Mapping):
        return ""
    content = message.get("content")
    said = (
        "\n".join(str(b.get("text") or "") for b in content if isinstance(b, Mapping) and b.get("type") == "text")
        if isinstance(content, list)
        else ""
    )
    if said.strip():
        return said
    calls = (
        [b for b in content if isinstance(b, Mapping) and b.get("type") == "toolCall"]
        if isinstance(content, list)
        else []
    )
    return "; ".join(f"[{b.get('name')}]" for b in calls)


def extract_thread(messages: Sequence[ContextMessage], load: Callable[[Entry], Mapping[str, Any]]) -> Thread:
    """Build the thread from context messages.

    User texts are loaded (they must be checked for injected content); agent texts only for the exchanges
    picked — a response's length comes from the entry's character count without reading it.
    """
    turns: list[tuple[int, str, Entry]] = []  # (index, role, entry) of real user and agent messages
    user_texts: dict[int, str] = {}
    previous_agent_chars = 0
    picked: dict[int, str] = {}
    command, skill_loaded = "", False
    for index, message in enumerate(messages):
        entry = message.entry
        if message.role == "assistant" and entry.provider != "openclaw" and entry.chars and not is_harness_reply(
                entry.model):
            turns.append((index, "agent", entry))
            previous_agent_chars = entry.chars
            command, skill_loaded = "", False
        elif message.role == "toolResult":
            skill_loaded = loads_skill_text(entry.tool_name, entry.is_error)
        elif message.role == "user":
            text = _text(load, entry)
            # What the ledger reads as the user's (envelopes.user_words, after_harness): an interrupt marker, a slash
            # command's echo, a skill's text or a bash-mode block is the agent's harness, not an exchange of the
            # user's; a command's prompt is the command the user typed.
            instead, command = after_harness(text, command, skill_loaded)
            skill_loaded = False
            words = instead if instead is not None else (
                user_words(strip_envelope(text)) if is_real_user_message(text) else "")
            if not words.strip():
                continue
            turns.append((index, "user", entry))
            user_texts[index] = words
            if previous_agent_chars > LONG_AGENT_CHARS:
                picked[index] = "pivot"
            previous_agent_chars = 0
    users = [t for t in turns if t[1] == "user"]
    if not users:
        return Thread("", (), None, None)
    picked[users[0][0]] = "first"
    recent_users = {t[0] for t in users[-2:]}
    for i, turn in enumerate(turns):  # the last two exchange pairs: user message and the agent reply after it
        if turn[0] in recent_users:
            picked[turn[0]] = "recent"
            if i + 1 < len(turns) and turns[i + 1][1] == "agent":
                picked[turns[i + 1][0]] = "recent"
    order = sorted(picked)
    if len(order) > MAX_EXCHANGES:
        recent = [i for i in order if picked[i] == "recent"]
        pivots = [i for i in order if picked[i] == "pivot"]
        keep = MAX_EXCHANGES - 1 - len(recent)
        order = sorted([order[0], *(pivots[-keep:] if keep > 0 else []), *recent])[-MAX_EXCHANGES:]
    by_index = {t[0]: t for t in turns}
    exchanges = []
    for i in order:
        _, role, entry = by_index[i]
        text = user_texts[i] if role == "user" else _agent_text(load, entry)
        exchanges.append(Exchange(role, gist(text), entry.id))
    first_text = user_texts[users[0][0]]
    # The topic is the latest message that says something: "ok", "yes, go on" or "thanks" name no topic.
    last_text = next((user_texts[u[0]] for u in reversed(users) if not is_acknowledgement(user_texts[u[0]])),
                     user_texts[users[-1][0]])
    summary = gist(first_text, SUMMARY_CHARS)
    if len(users) > 1:
        summary = f"{summary} ... {gist(last_text, SUMMARY_CHARS)}"
    said = tuple((entry.timestamp, user_texts[i]) for i, _, entry in users if entry.timestamp)
    return Thread(summary, tuple(exchanges), gist(first_text, SUMMARY_CHARS), gist(last_text, SUMMARY_CHARS), said)


_ACK_WORDS: Final = frozenset({
    "ok", "okay", "k", "yes", "yep", "yeah", "y", "no", "nope", "sure", "thanks", "thank", "you", "ty", "great",
    "good", "nice", "cool", "perfect", "fine", "go", "on", "ahead", "continue", "proceed", "please", "do", "it",
    "that", "sounds", "right", "correct", "agreed", "lgtm", "done", "next", "and", "then", "got", "ack", "alright",
})
"""Words of a reply that only acknowledges (all of its words among these)."""


def is_acknowledgement(text: str) -> bool:
    """A short reply made only of acknowledging words ("ok", "yes, go ahead", "thanks!"): no topic of its own."""
    words = re.findall(r"[^\W\d_]+", text.lower())
    return len(words) <= 4 and all(w in _ACK_WORDS for w in words)
