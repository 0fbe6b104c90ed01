"""Semantic duplicate detection for short decision and open-item strings (docs/checkpoints.md, "Deduplication").

It imports only its language tools (:mod:`engine.capture.language`) and fitted threshold, so capture and merge
code can both use it without cycles.

:func:`is_semantic_duplicate` compares two texts as canonical tokens (:mod:`engine.capture.language.canonical`): case,
diacritics, markdown, list markers and labels do not count; inflections, English and Serbian synonyms from a
curated lexicon, abbreviations (``DB``/``database``, ``k8s``/``Kubernetes``, ``PR``/``pull request``), dates and
times in any notation (``3/3``/``March 3``, ``Thu 18h``/``Thursday at 6 pm``) count as the same word, and a
pronoun can stand for a name ("call him" / "Call Jovan"). Then, in order:

* two texts that take opposite positions are different: one negates what the other says ("Don't retry
  failed webhooks"), or they put an action on opposite sides of an axis (enable/disable, merge/split,
  keep/delete, lock/unlock; "don't show" and "hide" are the *same* side);
* conflicting values or names are different (``30s``/``60s``, ``March``/``April``, Jovan/Jovana);
* two texts that repeat each other except for one slot in the same place are different ("Pay the phone
  bill" / "Pay the gas bill"; "Deprecate" / "Remove the v1 API");
* otherwise they are duplicates when one covers the other (at least two shared words and nothing extra on
  one side: "Book dentist" / "Book dentist appointment for Thursday"), or when the share of matched words
  reaches ``threshold``.

Light policy words ("adopt", "need", "start", "every") may match but are never a difference, so an action and
the rule it creates meet ("Adopt Conventional Commits" / "We follow Conventional Commits in every repo").

Misses: paraphrases that share no words and no lexicon entry, rules restated as a slogan, and any word the
lexicon does not know whose synonym sits in the differing slot. An added head noun reads as elaboration
("Refactor auth middleware" / "... middleware tests" is a false positive).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from engine.capture import weights as capture_weights
from engine.capture.language import lexicon_en, lexicon_sr, polarity
from engine.capture.language.canonical import CONTENT, LIGHT, NAME, PRONOUN, VALUE, Analysis, Token, analyse, fold

__all__ = [
    "DEFAULT_THRESHOLD",
    "NEGATORS",
    "STOP_WORDS",
    "dedupe",
    "extract_keywords",
    "fold",
    "is_semantic_duplicate",
    "jaccard",
    "merge_unique",
    "normalize",
]

DEFAULT_THRESHOLD = capture_weights.DEDUP_THRESHOLD
"""Share of matched words (matched / (matched + unmatched)) at or above which two texts that neither cover
the other are duplicates; fit on the labelled pairs (:mod:`engine.capture.weights`)."""

STOP_WORDS = lexicon_en.STOP_WORDS | lexicon_sr.STOP_WORDS
"""Function words (English and folded Serbian) that never count."""
NEGATORS = polarity.NEGATORS
"""Words that flip a statement."""

_MARKDOWN = re.compile(r"[*`]")
_BULLET = re.compile(r"^(?:(?:[-+•]|\d+[.)])(?:\s+|$))+")


@functools.lru_cache(maxsize=8192)
def normalize(text: str) -> str:
    """Drop ``*`` and backticks, collapse whitespace, strip leading bullets, lowercase.

    Idempotent: ``normalize(normalize(t)) == normalize(t)`` for every string.
    """
    collapsed = " ".join(_MARKDOWN.sub("", text).split())
    return _BULLET.sub("", collapsed).strip().lower()


def extract_keywords(text: str) -> frozenset[str]:
    """Folded content words of ``text``: stop words dropped, negators, names and values kept."""
    analysis = analyse(text)
    words = {t.surface for t in analysis.tokens if t.kind in (CONTENT, NAME, VALUE)}
    return frozenset(words | ({"not"} if analysis.negations else set()))


def jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    """``|a & b| / |a | b|`` of two word collections; 0.0 when both are empty."""
    sa, sb = set(a), set(b)
    union = sa | sb
    return len(sa & sb) / len(union) if union else 0.0


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _inflected(a: str, b: str) -> bool:
    """Same word in another inflection: ``users``/``user``, ``merged``/``merge``, ``bazu``/``baze``."""
    cp = _common_prefix(a, b)
    if cp >= 4 and len(a) - cp <= 3 and len(b) - cp <= 3:
        return True
    return cp >= 3 and min(len(a), len(b)) >= 4 and len(a) - cp <= 1 and len(b) - cp <= 1


def _cognate(ka: str, kb: str) -> bool:
    """Loanword and source ("kalkulator"/"calculator"), or a clipped form ("dev"/"developer"), by spelling key."""
    shorter = min(len(ka), len(kb))
    cp = _common_prefix(ka, kb)
    return (shorter >= 5 and cp >= 5 and cp >= 0.8 * shorter) or (cp == shorter >= 3 and len(ka) != len(kb))


def _level(a: Token, b: Token, cross: bool) -> int:
    """2 = the same word, 1 = an equivalent (synonym, inflection, spelling), 0 = different."""
    if a.kind == PRONOUN or b.kind == PRONOUN:
        return 0
    if not a.concepts.isdisjoint(b.concepts):
        return 2 if a.surface == b.surface or a.stem == b.stem else 1
    if a.kind == VALUE or b.kind == VALUE or (a.stem[:3] != b.stem[:3] and a.key[:3] != b.key[:3]):
        return 0
    if _has_digit(a.stem) or _has_digit(b.stem):
        return 0  # identifiers (app0/app1, T-41/T-42, v2/v3) are equal only when written the same
    if a.kind == NAME or b.kind == NAME:
        # Names inflect in Serbian ("Milošu"/"Miloš"), but within one language a different ending is a
        # different person (Jovan/Jovana).
        return 1 if cross and a.kind == b.kind == NAME and _inflected(a.stem, b.stem) else 0
    return 1 if _inflected(a.stem, b.stem) or _cognate(a.key, b.key) else 0


def _has_digit(word: str) -> bool:
    return any(ch.isdigit() for ch in word)


def _stands_for(other: Token) -> bool:
    """Whether a pronoun can stand for ``other``: a name or a person ("the client", "the contractors")."""
    return other.kind == NAME or bool(other.concepts & lexicon_en.PERSON_CONCEPTS)


@dataclass(frozen=True, slots=True)
class Comparison:
    """How two analysed texts line up; the basis of the duplicate decision."""

    pairs: tuple[tuple[int, int, int], ...]
    """Matched ``(index in a, index in b, level)``."""
    extra_a: tuple[int, ...]
    """Indices of unmatched content, name and value tokens of ``a`` (light words and pronouns never count)."""
    extra_b: tuple[int, ...]
    opposed: bool
    """The texts take opposite positions (negation or opposite actions)."""
    conflict: bool
    """Both texts have a value or a name the other lacks (``30s``/``60s``, Jovan/Jovana)."""
    one_slot: bool
    """The unmatched words form one run on each side, in the same place between matched words, and the rest
    is the same word for word (or the texts are in different languages)."""

    @property
    def matched(self) -> int:
        return len(self.pairs)

    @property
    def similarity(self) -> float:
        total = self.matched + len(self.extra_a) + len(self.extra_b)
        return self.matched / total if total else 0.0


def _opposed(a: Analysis, b: Analysis) -> bool:
    """One text negates the other, or they put an axis on opposite sides."""
    if a.negations % 2 != b.negations % 2:
        return True
    signs_b = b.signs
    return any(axis in signs_b and signs.isdisjoint(signs_b[axis]) for axis, signs in a.signs.items())


def _one_slot(extra_a: tuple[int, ...], extra_b: tuple[int, ...], pairs: tuple[tuple[int, int, int], ...]) -> bool:
    if not extra_a or not extra_b:
        return False
    if extra_a[-1] - extra_a[0] != len(extra_a) - 1 or extra_b[-1] - extra_b[0] != len(extra_b) - 1:
        return False
    before_a = sum(1 for i, _, _ in pairs if i < extra_a[0])
    before_b = sum(1 for _, j, _ in pairs if j < extra_b[0])
    return before_a == before_b


def compare(text_a: str, text_b: str) -> Comparison:
    """Align the canonical tokens of two texts (greedy: the same words first, then equivalents, then pronouns)."""
    a, b = analyse(text_a), analyse(text_b)
    ta, tb = a.tokens, b.tokens
    cross = a.serbian != b.serbian
    # Most pairs share neither a concept nor a first syllable: only the others are compared in full.
    levels: list[list[tuple[int, int]]] = []
    index = b.index
    for x in ta:
        tried: set[int] = set()
        for key in x.lookup:
            tried.update(index.get(key, ()))
        row = [(j, level) for j in sorted(tried) if (level := _level(x, tb[j], cross))]
        levels.append(row)
    partner_a, partner_b, level_a = [-1] * len(ta), [-1] * len(tb), [0] * len(ta)
    for wanted in (2, 1):
        for i, row in enumerate(levels):
            if partner_a[i] >= 0:
                continue
            for j, level in row:
                if level == wanted and partner_b[j] < 0:
                    partner_a[i], partner_b[j], level_a[i] = j, i, wanted
                    break
    if any(x.kind == PRONOUN for x in ta) or any(y.kind == PRONOUN for y in tb):
        for i, x in enumerate(ta):
            for j, y in enumerate(tb):
                if partner_a[i] >= 0 or partner_b[j] >= 0:
                    continue
                if (x.kind == PRONOUN and _stands_for(y)) or (y.kind == PRONOUN and _stands_for(x)):
                    partner_a[i], partner_b[j], level_a[i] = j, i, 1
    counted = (CONTENT, NAME, VALUE)
    extra_a = tuple(i for i, x in enumerate(ta) if partner_a[i] < 0 and x.kind in counted)
    extra_b = tuple(j for j, y in enumerate(tb) if partner_b[j] < 0 and y.kind in counted)
    conflict = any(ta[i].kind in (VALUE, NAME) for i in extra_a) and any(tb[j].kind in (VALUE, NAME) for j in extra_b)
    # Identifiers with digits left over on both sides (p95/p99, app0/app1) name different things.
    digits_a, digits_b = (any(_has_digit(ta[i].stem) for i in extra_a), any(_has_digit(tb[j].stem) for j in extra_b))
    conflict = conflict or (digits_a and digits_b)
    ordered = tuple((i, j, level_a[i]) for i, j in enumerate(partner_a) if j >= 0)
    # A single differing slot is a contrast when the rest is word for word the same (or a translation);
    # when the rest is itself reworded, the odd pair is more likely rewording too.
    literal = cross or all(level == 2 for _, _, level in ordered)
    one_slot = literal and _one_slot(extra_a, extra_b, ordered)
    return Comparison(ordered, extra_a, extra_b, _opposed(a, b), conflict, one_slot)


def _duplicate(a: str, b: str, threshold: float) -> bool:
    if normalize(a) == normalize(b):
        return True
    if _opposed(analyse(a), analyse(b)):
        return False
    c = compare(a, b)
    if c.conflict or not c.pairs:
        return False
    tokens = analyse(a).tokens
    content = sum(1 for i, _, _ in c.pairs if tokens[i].kind != LIGHT)
    if not c.extra_a or not c.extra_b:
        # One text covers the other; a single shared word is too little evidence.
        return content >= 2 or (content >= 1 and not c.extra_a and not c.extra_b)
    if c.one_slot:
        return False
    return c.similarity >= threshold


def is_semantic_duplicate(a: str, b: str, threshold: float = DEFAULT_THRESHOLD) -> bool:
    """True if ``a`` and ``b`` state the same decision or open item (symmetric; see the module docstring).

    Args:
        threshold: share of matched words needed when neither text covers the other.
    """
    # Canonical argument order makes the greedy alignment, and so the answer, symmetric.
    first, second = sorted((a, b), key=lambda s: (normalize(s), s))
    return _duplicate(first, second, threshold)


def dedupe(items: Iterable[str], is_duplicate: Callable[[str, str], bool] = is_semantic_duplicate) -> tuple[str, ...]:
    """Items in their original order, dropping any that duplicates an earlier kept item (keep-first)."""
    kept: list[str] = []
    for item in items:
        if not any(is_duplicate(prev, item) for prev in kept):
            kept.append(item)
    return tuple(kept)


def merge_unique(
    primary: Iterable[str],
    secondary: Iterable[str],
    is_duplicate: Callable[[str, str], bool] = is_semantic_duplicate,
) -> tuple[str, ...]:
    """``primary`` deduplicated, then each ``secondary`` item not covered by what is already kept.

    LLM-enriched decisions come first; heuristic ones are preserved only when new.
    """
    return dedupe((*primary, *secondary), is_duplicate)
