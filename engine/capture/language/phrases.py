"""Find any of a set of word sequences in tokenised text.

Faster than a regex alternation of the same phrases: one-word phrases are a set intersection, longer ones are
tried only where their first word occurs. A phrase is words separated by spaces; a word ending in ``*``
matches any word that starts with it; ``...`` matches any run of words (possibly none).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

__all__ = ["PhraseFamilies", "Phrases", "words"]

_WORD = re.compile(r"\w+(?:'\w+)?")


def words(text: str) -> list[str]:
    """The words of ``text`` (letters, digits, ``_`` and one inner apostrophe: "don't")."""
    return _WORD.findall(text)


def _follows(tokens: Sequence[str], start: int, rest: tuple[str, ...]) -> bool:
    """True if ``rest`` matches ``tokens`` from ``start`` on (not necessarily to the end)."""
    if not rest:
        return True
    head, tail = rest[0], rest[1:]
    if head == "...":
        return any(_follows(tokens, j, tail) for j in range(start, len(tokens) + 1))
    if start >= len(tokens):
        return False
    token = tokens[start]
    ok = token.startswith(head[:-1]) if head.endswith("*") else token == head
    return ok and _follows(tokens, start + 1, tail)


class Phrases:
    """A set of phrases (see the module docstring), written as ``|``-separated lists."""

    __slots__ = ("_firsts", "_heads", "_multi", "_prefixes", "_singles", "_stems")

    def __init__(self, *groups: str) -> None:
        singles: set[str] = set()
        self._multi: dict[str, list[tuple[str, ...]]] = {}
        self._stems: list[tuple[str, tuple[str, ...]]] = []
        for group in groups:
            for phrase in group.split("|"):
                parts = tuple(phrase.split())
                if not parts:
                    continue
                first, rest = parts[0], parts[1:]
                if first.endswith("*"):
                    self._stems.append((first[:-1], rest))
                elif rest:
                    self._multi.setdefault(first, []).append(rest)
                else:
                    singles.add(first)
        self._singles = frozenset(singles)
        self._firsts = frozenset(self._multi)
        self._prefixes = tuple(stem for stem, _ in self._stems)
        if any(len(stem) < 3 for stem in self._prefixes):
            raise ValueError("a stem needs at least three letters")
        self._heads = frozenset(stem[:3] for stem in self._prefixes)

    def search(
        self, tokens: Sequence[str], token_set: Collection[str] | None = None, heads: Collection[str] | None = None
    ) -> bool:
        """True if any phrase occurs in ``tokens``.

        Args:
            token_set: ``set(tokens)``, when the caller has it (several families share one).
            heads: ``{t[:3] for t in tokens}``, likewise.
        """
        present = token_set if token_set is not None else frozenset(tokens)
        if not self._singles.isdisjoint(present):
            return True
        if not self._firsts.isdisjoint(present):
            for i, token in enumerate(tokens):
                rests = self._multi.get(token)
                if rests is not None and any(_follows(tokens, i + 1, rest) for rest in rests):
                    return True
        if self._prefixes and not self._heads.isdisjoint(heads if heads is not None else {t[:3] for t in tokens}):
            for i, token in enumerate(tokens):
                if token.startswith(self._prefixes) and any(
                    token.startswith(stem) and _follows(tokens, i + 1, rest) for stem, rest in self._stems
                ):
                    return True
        return False

    def starts(self, tokens: Sequence[str]) -> bool:
        """True if a phrase starts at the first word."""
        if not tokens:
            return False
        first = tokens[0]
        if first in self._singles:
            return True
        if any(_follows(tokens, 1, rest) for rest in self._multi.get(first, ())):
            return True
        return any(first.startswith(stem) and _follows(tokens, 1, rest) for stem, rest in self._stems)


class PhraseFamilies:
    """Several named :class:`Phrases` searched in one pass over the words."""

    __slots__ = ("_multi", "_prefix", "_singles")

    def __init__(self, families: dict[str, Phrases]) -> None:
        self._singles: dict[str, set[str]] = {}
        self._multi: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        self._prefix: dict[str, list[tuple[str, tuple[str, ...], str]]] = {}
        for name, family in families.items():
            for word in family._singles:
                self._singles.setdefault(word, set()).add(name)
            for first, rests in family._multi.items():
                self._multi.setdefault(first, []).extend((rest, name) for rest in rests)
            for stem, rest in family._stems:
                self._prefix.setdefault(stem[:3], []).append((stem, rest, name))

    def found(self, tokens: Sequence[str]) -> set[str]:
        """Names of the families with a phrase in ``tokens``."""
        names: set[str] = set()
        present = set(tokens)
        for word in present.intersection(self._singles):
            names |= self._singles[word]
        firsts = present.intersection(self._multi)
        heads = {token[:3] for token in present}.intersection(self._prefix)
        if firsts or heads:
            for i, token in enumerate(tokens):
                if token in firsts:
                    for rest, name in self._multi[token]:
                        if name not in names and _follows(tokens, i + 1, rest):
                            names.add(name)
                if token[:3] in heads:
                    for stem, rest, name in self._prefix[token[:3]]:
                        if name not in names and token.startswith(stem) and _follows(tokens, i + 1, rest):
                            names.add(name)
        return names
