"""Model windows and list prices from one maintained data file (docs/models.md).

``model_catalog.json`` beside this module is generated from LiteLLM's model table by
``scripts/refresh_model_catalog.py``; it records its source and the date it was taken. Windows and prices are looked
up here and nowhere else: :mod:`engine.accounting.windows` and :mod:`engine.session.cost` both call :func:`lookup`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

__all__ = ["CatalogEntry", "CatalogInfo", "catalog_info", "lookup"]

_DATA = Path(__file__).with_name("model_catalog.json")
_PATH_PREFIX = re.compile(r"^(?:[a-z0-9_.-]+/)+")
_DATE_SUFFIX = re.compile(r"[-@](?:20\d{6}|20\d{2}-\d{2}-\d{2})$")
_CLAUDE_DOTTED = re.compile(r"(?<=\d)\.(?=\d)")
_CLAUDE_FAMILY_FIRST = re.compile(r"^claude-(\d(?:-\d)?)-(opus|sonnet|haiku)\b")
_ONE_MILLION_SUFFIX = re.compile(r"\[1m\]$|-1m$")
_SEPARATORS = ("-", ":", "@")


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    """One model's row: its window and list prices (USD per million tokens; ``None`` = not listed)."""

    id: str
    """The catalogue id the model id was matched to."""
    window: int | None
    """Maximum input tokens."""
    input: float | None
    output: float | None
    cache_read: float | None
    cache_write_5m: float | None
    cache_write_1h: float | None

    @property
    def priced(self) -> bool:
        """Whether input and output rates are both listed (the least a price needs)."""
        return self.input is not None and self.output is not None


@dataclass(frozen=True, slots=True)
class CatalogInfo:
    """Where the catalogue comes from, for labels such as ``catalog:litellm 1.110.2 (2026-11-27)``."""

    source: str
    retrieved: str
    models: int

    @property
    def label(self) -> str:
        """Short provenance label shown beside a window or price taken from the catalogue."""
        version = self.source.split(" (", 1)[0]
        return f"catalog:{version} ({self.retrieved})"


@cache
def _load() -> tuple[CatalogInfo, dict[str, tuple[object, ...]]]:
    doc = json.loads(_DATA.read_text(encoding="utf-8"))
    models = {str(k): tuple(v) for k, v in doc["models"].items()}
    return CatalogInfo(str(doc["source"]), str(doc["retrieved"]), len(models)), models


def catalog_info() -> CatalogInfo:
    """Provenance of the catalogue (loaded once per process)."""
    return _load()[0]


def _number(value: object) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < 1e12:
        return float(value)
    return None


def _entry(key: str, row: tuple[object, ...], window_override: int | None) -> CatalogEntry:
    window = _number(row[0])
    prices = [_number(v) for v in row[1:6]]
    return CatalogEntry(key, window_override or (int(window) if window is not None else None), *prices)


def _candidates(model: str) -> list[str]:
    name = _PATH_PREFIX.sub("", model.strip().lower())
    names = [name]
    if name.startswith("claude"):
        dashed = _CLAUDE_DOTTED.sub("-", name)
        # "claude-4-opus" and "claude-3-5-sonnet" are the older family-last spellings of "claude-opus-4".
        swapped = _CLAUDE_FAMILY_FIRST.sub(lambda m: f"claude-{m.group(2)}-{m.group(1)}", dashed)
        names += [dashed, swapped]
    undated = [_DATE_SUFFIX.sub("", n) for n in names]
    return list(dict.fromkeys(names + undated))


@lru_cache(maxsize=1024)
def lookup(model: str | None) -> CatalogEntry | None:
    """The catalogue row for a model id as agents record it, or ``None`` when the catalogue has no such model.

    Matching, most specific first: the id itself (lower-cased, without a ``vendor/`` path, Claude's dotted and
    family-last spellings normalised, a date suffix dropped); else the newest dated release of an undated id
    (``claude-opus-4-1`` → ``claude-opus-4-1-20250805``); else the longest catalogue id with a version
    number that the model id extends (``claude-opus-4-6-thinking`` → ``claude-opus-4-6``). A ``[1m]`` suffix
    (Claude Code's 1M-context variant) sets the window to 1,000,000.
    """
    if not model:
        return None
    _, models = _load()
    text = model.strip().lower()
    window_override = 1_000_000 if _ONE_MILLION_SUFFIX.search(text) else None
    text = _ONE_MILLION_SUFFIX.sub("", text)
    names = _candidates(text)
    for name in names:
        if name in models:
            return _entry(name, models[name], window_override)
    for name in names:
        dated = sorted(k for k in models if k.startswith(name) and _DATE_SUFFIX.fullmatch(k[len(name):]))
        if dated:  # an undated alias names the newest release
            return _entry(dated[-1], models[dated[-1]], window_override)
    for name in names:
        extended = (k for k in models if len(name) > len(k) and name.startswith(k) and name[len(k)] in _SEPARATORS)
        best = max((k for k in extended if any(c.isdigit() for c in k)), key=len, default=None)
        if best is not None:
            return _entry(best, models[best], window_override)
    return None
