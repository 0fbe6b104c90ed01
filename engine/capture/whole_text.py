"""Shortening text without cutting a word: whole sentences first, then whole words, then an ellipsis.

Captured items (decisions, open items, learnings) and summary items are stored and shown whole; when a limit
still applies (a pasted log in a user message, a topic line), the cut falls between sentences or between
words, never inside one, and says so with ``…``.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["ELLIPSIS", "clip_words", "flatten", "whole_item", "whole_sentences"]

ELLIPSIS: Final = "…"
_SENTENCE_END: Final = re.compile(r"(?<=[.!?])\s+(?=\S)")
_MARKUP: Final = re.compile(r"^(?:#{1,6}\s+|[-*+•]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)")


def flatten(text: str) -> str:
    """Whitespace collapsed to single spaces."""
    return " ".join(text.split())


def clip_words(text: str, limit: int) -> str:
    """``text`` on one line, at most ``limit`` characters, cut at a word boundary with ``…`` when too long.

    A single word longer than the limit is kept whole (a path or URL is worth more whole than cut).
    """
    flat = flatten(text)
    if len(flat) <= limit:
        return flat
    cut = flat.rfind(" ", 0, max(1, limit - 1) + 1)
    if cut <= 0:
        first = flat.split(" ", 1)[0]
        return first if first == flat else first + " " + ELLIPSIS
    return flat[:cut].rstrip(" ,;:-–—") + " " + ELLIPSIS


def whole_sentences(text: str, limit: int) -> str:
    """The leading whole sentences of ``text`` that fit ``limit`` characters (one line), ``…`` if any were left out.

    When even the first sentence is longer than ``limit`` it is cut at a word boundary (:func:`clip_words`).
    """
    flat = flatten(text)
    if len(flat) <= limit:
        return flat
    kept: list[str] = []
    size = 0
    for sentence in _SENTENCE_END.split(flat):
        extra = len(sentence) + (1 if kept else 0)
        if size + extra > limit - 2:
            break
        kept.append(sentence)
        size += extra
    if not kept:
        return clip_words(flat, limit)
    return " ".join(kept) + " " + ELLIPSIS


def whole_item(extracted: str, source: str, limit: int = 1000) -> str:
    """``extracted`` made whole again when an extractor cut it (it ends in ``…``): the sentence of ``source`` it
    starts, up to the sentence end (or the end of the line), at most ``limit`` characters (word boundary).

    Extractors clean the line first (list markers, bold), so the match is done on cleaned, flattened lines.
    ``extracted`` is returned unchanged when it was not cut or cannot be found in ``source``.
    """
    if not extracted.endswith(ELLIPSIS):
        return extracted
    prefix = flatten(extracted[: -len(ELLIPSIS)])
    if not prefix:
        return extracted
    for raw in source.splitlines():
        line = flatten(_MARKUP.sub("", raw.strip()).replace("**", "").replace("__", ""))
        start = line.find(prefix)
        if start < 0:
            continue
        rest = line[start:]
        end = _SENTENCE_END.search(rest, len(prefix))
        whole = rest[: end.start()] if end else rest
        return clip_words(whole, limit)
    return extracted
