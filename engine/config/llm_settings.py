"""The LLM settings value and its parsing from the ``llm:`` config section.

Kept apart from :mod:`engine.llm.client` so that reading a config file never imports httpx.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["NEEDS_LLM", "LLMConfig", "llm_config_from"]

NEEDS_LLM = "needs an `llm:` section in the config file (kind, base_url, model, api_key_env)"
"""How a command or key that needs the LLM says what is missing (completes "--enrich …")."""


@dataclass(frozen=True, slots=True)
class LLMConfig:
    """Where and how to reach the optional LLM."""

    kind: Literal["openai", "anthropic"]
    base_url: str
    """``https://api.openai.com/v1``, ``https://openrouter.ai/api/v1`` (OpenAI-compatible, ``/chat/completions``
    is appended) or ``https://api.anthropic.com`` (``/v1/messages`` is appended unless it ends in ``/v1``)."""
    model: str
    api_key_env: str
    """Name of the environment variable holding the key (never the key itself)."""
    timeout: float = 60.0
    """Seconds for the whole request."""
    max_tokens: int = 2048
    """Answer budget of the summarizer."""
    max_input_chars: int = 400_000
    """Longer conversation text keeps its most recent part (about 100k tokens by default)."""
    temperature: float | None = 0.0
    """``None`` omits it (OpenAI's reasoning models accept only their default)."""
    max_tokens_field: str = "max_tokens"
    """OpenAI-compatible only: ``max_completion_tokens`` for OpenAI's reasoning models (gpt-5, o-series)."""


def llm_config_from(data: Mapping[str, Any]) -> LLMConfig:
    """An :class:`LLMConfig` from the ``llm:`` section of the config file.

    Raises:
        ValueError: a required key is missing or has the wrong type (the message names it).
    """
    kind = data.get("kind", "openai")
    if kind not in ("openai", "anthropic"):
        raise ValueError(f"llm.kind must be 'openai' or 'anthropic', got {kind!r}")
    for name in ("base_url", "model", "api_key_env"):
        if not isinstance(data.get(name), str) or not data[name]:
            raise ValueError(f"llm.{name} is required (a string)")
    timeout = data.get("timeout", 60.0)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float):
        raise ValueError("llm.timeout must be a number of seconds")
    return LLMConfig(
        kind=kind, base_url=data["base_url"], model=data["model"], api_key_env=data["api_key_env"],
        timeout=float(timeout),
    )
