"""Optional LLM summarizer and decision enricher (docs/compaction.md, Optional LLM summaries).

Off by default: nothing in ctxscope needs it. Two wire formats over httpx (:mod:`engine.llm.transport`: a
deadline for the whole request, a size cap, error bodies made inert) — an OpenAI-compatible
``/chat/completions`` endpoint (OpenAI, OpenRouter, vLLM, Ollama…) and Anthropic's ``/v1/messages``. The API key
is read from the named environment variable at call time, sent only in the auth header, and never written
anywhere: every error message is scrubbed of it. Conversation text is redacted before it leaves the machine and
the model's answer is redacted before it is returned.

Exceptions: ``Exception`` ← :class:`LLMError` (missing key, HTTP error, timeout, unusable answer).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import orjson

from engine.capture.dedup import dedupe, merge_unique
from engine.capture.redact import redact_secrets
from engine.config.llm_settings import LLMConfig, check_base_url
from engine.llm.transport import ERROR_CHARS, TransportError, post_bounded, visible_text

__all__ = [
    "ANTHROPIC_VERSION",
    "ENRICH_MAX_TOKENS",
    "LLMConfig",
    "LLMError",
    "enrich_decisions",
    "enrichment_prompt",
    "merge_enriched",
    "summarize_with_llm",
    "summary_prompt",
]

ANTHROPIC_VERSION = "2023-06-01"
ENRICH_MAX_TOKENS = 500
"""The enrichment answer budget stays fixed at 500 tokens (docs/checkpoints.md, LLM enrichment)."""
_MAX_DECISIONS = 50
_MAX_DECISION_CHARS = 200
_TRUNCATED = "[… earlier conversation truncated …]\n"


class LLMError(Exception):
    """An LLM call failed or answered something unusable; the message never contains the API key."""


def _scrub(text: str, key: str | None) -> str:
    if key:
        text = text.replace(key, "[REDACTED:api-key]")
    return redact_secrets(text)


def _read_key(config: LLMConfig, env: Mapping[str, str] | None) -> str:
    env = os.environ if env is None else env
    key = env.get(config.api_key_env, "").strip()
    if not key:
        raise LLMError(f"the API key variable {config.api_key_env} is not set (the LLM summarizer is optional)")
    return key


def _endpoint(config: LLMConfig) -> str:
    try:
        check_base_url(config.base_url, allow_insecure_http=config.allow_insecure_http)
    except ValueError as exc:
        raise LLMError(str(exc)) from None
    base = config.base_url.rstrip("/")
    if config.kind == "openai":
        return f"{base}/chat/completions"
    return f"{base}/messages" if base.endswith("/v1") else f"{base}/v1/messages"


def _request(config: LLMConfig, key: str, system: str, user: str, max_tokens: int) -> tuple[dict[str, str], Any]:
    if config.kind == "openai":
        headers = {"authorization": f"Bearer {key}"}
        body: dict[str, Any] = {
            "model": config.model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            config.max_tokens_field: max_tokens,
        }
    else:
        headers = {"x-api-key": key, "anthropic-version": ANTHROPIC_VERSION}
        body = {
            "model": config.model,
            "max_tokens": max_tokens,
            "system": system,
            "messages": [{"role": "user", "content": user}],
        }
    if config.temperature is not None:
        body["temperature"] = config.temperature
    headers["content-type"] = "application/json"
    return headers, body


def _answer_text(config: LLMConfig, data: Any) -> str:
    if config.kind == "openai":
        choices = data.get("choices") if isinstance(data, Mapping) else None
        first = choices[0] if isinstance(choices, list) and choices else None
        message = first.get("message") if isinstance(first, Mapping) else None
        content = message.get("content") if isinstance(message, Mapping) else None
        if isinstance(content, str):
            return content
    else:
        blocks = data.get("content") if isinstance(data, Mapping) else None
        if isinstance(blocks, list):
            texts = [b["text"] for b in blocks if isinstance(b, Mapping) and isinstance(b.get("text"), str)]
            if texts:
                return "".join(texts)
    raise LLMError(f"{config.kind} answer from {config.model} has no text")


def _complete(
    config: LLMConfig, system: str, user: str, *, max_tokens: int, env: Mapping[str, str] | None
) -> str:
    url = _endpoint(config)
    key = _read_key(config, env)
    headers, body = _request(config, key, system, user, max_tokens)
    try:
        answer = post_bounded(url, headers, orjson.dumps(body), timeout=config.timeout)
    except TransportError as exc:
        # ``from None``: an httpx exception chain holds the request, and with it the auth header.
        raise LLMError(_scrub(str(exc), key)) from None
    if answer.status >= 400:
        # The endpoint's words, cut and made inert before any terminal sees them (engine/llm/transport.py).
        # Scrubbed before the cut, so a key echoed across the cut cannot leave a piece behind.
        text = _scrub(answer.body[: ERROR_CHARS * 8].decode("utf-8", "replace"), key)
        raise LLMError(f"HTTP {answer.status} from {url}: {visible_text(text)}") from None
    try:
        data = orjson.loads(answer.body)
    except orjson.JSONDecodeError:  # a proxy or gateway answered with something that is not JSON
        raise LLMError(f"{url} answered HTTP {answer.status} with something that is not JSON") from None
    return redact_secrets(_answer_text(config, data))


def _fit(text: str, limit: int) -> str:
    text = redact_secrets(text)
    return text if len(text) <= limit else _TRUNCATED + text[-limit:]


def summary_prompt(*, focus: str | None = None, previous_summary: str | None = None) -> str:
    """The summarizer's instructions (OpenClaw-compatible section headings)."""
    lines = [
        "You compact the history of a coding agent's session. Write a structured summary the agent will read "
        "instead of the messages, so it can continue the work without asking again.",
        "Use exactly these markdown sections, in this order, and omit none (write 'None.' when empty):",
        "## Decisions", "## Open TODOs", "## Constraints/Rules", "## Pending user asks", "## Exact identifiers",
        "Under Exact identifiers, copy file paths, commands, URLs, ids, names and numbers verbatim.",
        "A decision records a choice made, an approach selected, a trade-off accepted, or a direction confirmed; "
        "conversational acknowledgments, questions and narrative are not decisions.",
        "Be concise and factual. Never include secrets, API keys or passwords.",
    ]
    if focus:
        lines.append(f"Focus: the user asked this compaction to preserve especially: {focus}")
    if previous_summary:
        lines.append(
            "The conversation continues from an earlier summary (given first). Merge it with the new messages: "
            "keep what is still relevant, drop what was resolved, never re-summarize it into something vaguer."
        )
    return "\n".join(lines)


def summarize_with_llm(
    config: LLMConfig,
    conversation_text: str,
    *,
    focus: str | None = None,
    previous_summary: str | None = None,
    env: Mapping[str, str] | None = None,
) -> str:
    """A compaction summary of ``conversation_text`` written by the configured LLM.

    Args:
        env: where to read :attr:`LLMConfig.api_key_env` (default: ``os.environ``).

    Raises:
        LLMError: the key is missing, the endpoint failed or timed out, or the answer has no text.
    """
    parts = []
    if previous_summary:
        parts.append(f"<previous-summary>\n{redact_secrets(previous_summary)}\n</previous-summary>")
    parts.append(f"<conversation>\n{_fit(conversation_text, config.max_input_chars)}\n</conversation>")
    system = summary_prompt(focus=focus, previous_summary=previous_summary)
    summary = _complete(config, system, "\n\n".join(parts), max_tokens=config.max_tokens, env=env).strip()
    if not summary:
        raise LLMError(f"{config.model} returned an empty summary")
    return summary


def enrichment_prompt(existing: Sequence[str] = ()) -> str:
    """The decision definition, the refine rules and good/bad examples (docs/checkpoints.md, LLM enrichment)."""
    listed = "\n".join(f"- {d}" for d in existing) if existing else "(none yet)"
    return "\n".join(
        [
            "You maintain the list of decisions of a coding agent's session.",
            f"Existing decisions:\n{listed}",
            "Refine these existing decisions:",
            "- REMOVE entries that are not actual decisions (conversational text, questions, narrative)",
            "- Deduplicate semantically similar entries (keep the cleaner version)",
            "- Clarify wording to be concise, action-oriented statements",
            "- Add any decisions from recent context that are missing",
            "- Keep decisions you cannot verify as resolved — but DO remove entries that are clearly not "
            "decisions (e.g., starts with \"You're right\" or \"Ohoho\")",
            "An entry is a DECISION if it records: a choice made, an approach selected, a trade-off accepted, or "
            "a direction confirmed. Conversational acknowledgments, questions, and narrative descriptions are "
            "NOT decisions.",
            'GOOD decisions: "Use atomicWriteFile for checkpoint re-write to bypass dedup", '
            '"Merge strategy: LLM decisions + preserved heuristics via set-diff"',
            "BAD (not decisions): \"You're right, I overcomplicated it\", \"- I need to send him a plan\", "
            '"Ohoho. Claude Code Remote Control"',
            f"Answer with ONLY a JSON array of strings, one decision each, at most {_MAX_DECISION_CHARS} "
            "characters, no secrets.",
        ]
    )


_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")


def _parse_decisions(text: str) -> tuple[str, ...]:
    body = _FENCE.sub("", text.strip())
    items: Iterable[Any]
    try:
        parsed = orjson.loads(body)
    except orjson.JSONDecodeError:
        parsed = None
    if isinstance(parsed, Mapping):
        parsed = parsed.get("decisions")
    if isinstance(parsed, list):
        items = parsed
    else:
        items = (_BULLET.sub("", line) for line in body.splitlines() if _BULLET.match(line))
    cleaned = (" ".join(str(i).split())[:_MAX_DECISION_CHARS] for i in items if isinstance(i, str))
    return dedupe(c for c in cleaned if c)[:_MAX_DECISIONS]


def enrich_decisions(
    config: LLMConfig,
    conversation_text: str,
    *,
    existing: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
) -> tuple[str, ...]:
    """Decisions the LLM finds in ``conversation_text``, refining ``existing`` ones.

    Raises:
        LLMError: as :func:`summarize_with_llm`.
    """
    user = f"Recent conversation:\n{_fit(conversation_text, config.max_input_chars)}"
    answer = _complete(config, enrichment_prompt(existing), user, max_tokens=ENRICH_MAX_TOKENS, env=env)
    return _parse_decisions(answer)


def merge_enriched(enriched: Iterable[str], heuristic: Iterable[str]) -> tuple[str, ...]:
    """LLM decisions first, then each heuristic one only when no kept decision already states it."""
    return merge_unique(enriched, heuristic)[:_MAX_DECISIONS]
