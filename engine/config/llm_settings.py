"""The LLM settings value and its parsing from the ``llm:`` config section.

Kept apart from :mod:`engine.llm.client` so that reading a config file never imports httpx.
"""

from __future__ import annotations

import ipaddress
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

from engine.config.values import show

__all__ = ["NEEDS_LLM", "LLMConfig", "check_base_url", "llm_config_from"]

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
    allow_insecure_http: bool = False
    """Accept a plain ``http://`` ``base_url`` on a non-loopback host (the key and the redacted context would
    cross the network unencrypted); loopback ``http://`` is always accepted."""


def _is_loopback(host: str) -> bool:
    if host.lower() in ("localhost", "localhost.localdomain") or host.lower().endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_base_url(url: str, *, allow_insecure_http: bool = False) -> str:
    """``url`` if it is an ``https://`` URL, or ``http://`` on loopback (or with the opt-in).

    Raises:
        ValueError: another scheme, no host, or plain HTTP to another host without the opt-in.
    """
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.scheme not in ("http", "https") or not host:
        raise ValueError(f"llm.base_url must be an https:// URL with a host, got {show(url)}")
    if parts.username or parts.password:
        raise ValueError("llm.base_url must not carry credentials; name the key's variable in llm.api_key_env")
    if parts.scheme == "http" and not _is_loopback(host) and not allow_insecure_http:
        raise ValueError(
            f"llm.base_url {show(url)} is plain http:// to {host}: the API key and the conversation would travel "
            "unencrypted. Use https://, a loopback address, or set llm.allow_insecure_http: true"
        )
    return url


def llm_config_from(data: Mapping[str, Any]) -> LLMConfig:
    """An :class:`LLMConfig` from the ``llm:`` section of the config file.

    Raises:
        ValueError: a required key is missing or has the wrong type (the message names it).
    """
    kind = data.get("kind", "openai")
    if kind not in ("openai", "anthropic"):
        raise ValueError(f"llm.kind must be 'openai' or 'anthropic', got {show(kind)}")
    for name in ("base_url", "model", "api_key_env"):
        if not isinstance(data.get(name), str) or not data[name]:
            raise ValueError(f"llm.{name} is required (a string)")
    timeout = data.get("timeout", 60.0)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not math.isfinite(timeout) \
            or not 0 < timeout <= 3600:
        raise ValueError(f"llm.timeout must be a number of seconds in (0, 3600], got {show(timeout)}")
    insecure = data.get("allow_insecure_http", False)
    if not isinstance(insecure, bool):
        raise ValueError(f"llm.allow_insecure_http must be true or false, got {show(insecure)}")
    known = {"kind", "base_url", "model", "api_key_env", "timeout", "allow_insecure_http"}
    unknown = sorted(str(key) for key in data if key not in known)
    if unknown:
        raise ValueError(f"llm.{unknown[0]} is not a known key (known: {', '.join(sorted(known))})")
    return LLMConfig(
        kind=kind, base_url=check_base_url(data["base_url"], allow_insecure_http=insecure), model=data["model"],
        api_key_env=data["api_key_env"], timeout=float(timeout), allow_insecure_http=insecure,
    )
