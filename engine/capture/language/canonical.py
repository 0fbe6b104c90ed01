"""Short task or decision text -> canonical tokens, for duplicate detection.

Each word becomes a :class:`Token` with a set of *concepts*: words that mean the same share one (English
and Serbian synonyms from :mod:`~engine.capture.language.lexicon_en` and :mod:`~.lexicon_sr`, abbreviations
expanded). Dates, times, weekdays, months and numbers become values in one notation ("3/3", "March 3" and
"3. marta" are all ``d:03-03``). Negations and opposite actions are recorded as signs on axes ("don't show" and
"hide" are both ``show-``). Names and pronouns are marked so a pronoun can stand for a name. Everything is folded
(lower case, no diacritics) and nothing here decides duplication: :mod:`engine.capture.dedup` compares two
analyses.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

from engine.capture.language import lexicon_en as en
from engine.capture.language import lexicon_sr as sr
from engine.capture.language import polarity
from engine.capture.language.values import MONTHS, WEEKDAYS, read_value


def _set(words: str) -> frozenset[str]:
    """The whitespace-separated words of ``words``."""
    return frozenset(words.split())

__all__ = ["Analysis", "Token", "analyse", "cognate_key", "en_stem", "fold", "lookup_keys"]

_FOLD_EXTRA = str.maketrans({"đ": "d", "Đ": "D", "ł": "l", "ø": "o", "ß": "ss", "’": "'", "‘": "'"})
_COMBINING = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+")


def fold(text: str) -> str:
    """Lowercase ``text`` and strip diacritics (``š``->``s``, ``đ``->``d``) so spelling variants compare equal."""
    if text.isascii():
        return text.lower()
    return _COMBINING.sub("", unicodedata.normalize("NFKD", text.translate(_FOLD_EXTRA).lower())).lower()


CONTENT, LIGHT, VALUE, PRONOUN, NAME = range(5)
"""Token kinds: a content word, a light word (may match, never a difference), a value, a pronoun, a name."""


@dataclass(frozen=True, slots=True)
class Token:
    """One meaningful word (or phrase) of a text."""

    surface: str
    """Folded surface form (for phrases, words joined by ``_``)."""
    concepts: frozenset[str]
    """What the word means; two tokens sharing a concept are the same word."""
    kind: int
    stem: str
    """Stem of an unknown word (its surface for lexicon words and values), compared for inflections."""
    key: str = ""
    """:func:`cognate_key` of ``stem``, compared for loanwords."""
    lookup: tuple[str, ...] = ()
    """Keys under which the token can meet another (see :func:`lookup_keys`)."""


@dataclass(frozen=True, slots=True)
class Analysis:
    """A text as canonical tokens plus what they say about polarity."""

    tokens: tuple[Token, ...]
    axes: frozenset[tuple[str, int]]
    """Signed axes the text takes a position on ("show", -1) for "hide" or "don't show"."""
    negations: int
    """Negations not absorbed by an opposite-action word ("don't notify" -> 1)."""
    serbian: bool
    index: dict[str, tuple[int, ...]]
    """Token positions by :func:`lookup_keys`, so a comparison tries only tokens that could match."""
    signs: dict[str, frozenset[int]]
    """``axes`` by axis: the signs the text gives each axis it touches."""


def lookup_keys(token: Token) -> tuple[str, ...]:
    """Keys under which a token can meet another: its concepts and the first letters of its stem and spelling."""
    return token.lookup


def _index(tokens: tuple[Token, ...]) -> dict[str, tuple[int, ...]]:
    index: dict[str, list[int]] = {}
    for j, token in enumerate(tokens):
        for key in token.lookup:
            index.setdefault(key, []).append(j)
    return {key: tuple(js) for key, js in index.items()}


# --- lexicon tables ----------------------------------------------------------------------------------------

_IRREGULAR = {
    "bought": "buy", "sent": "send", "paid": "pay", "kept": "keep", "took": "take", "taken": "take",
    "brought": "bring", "made": "make", "gave": "give", "given": "give", "wrote": "write", "written": "write",
    "ran": "run", "began": "begin", "begun": "begin", "chose": "choose", "chosen": "choose", "told": "tell",
    "held": "hold", "left": "leave", "met": "meet", "built": "build", "sold": "sell", "found": "find",
    "spent": "spend", "hid": "hide", "hidden": "hide", "shown": "show", "drove": "drive", "flew": "fly",
    "went": "go", "gone": "go", "did": "do", "done": "do", "saw": "see", "seen": "see", "children": "child",
    "people": "person", "bigger": "big", "larger": "large", "smaller": "small", "better": "good",
}


def _inflections(word: str) -> set[str]:
    """English inflections of a base form (regular rules; good enough for lookup)."""
    forms = {word, word + "s", word + "es", word + "ed", word + "d", word + "ing"}
    if word.endswith("e"):
        forms.add(word[:-1] + "ing")
    if len(word) > 2 and word.endswith("y") and word[-2] not in "aeiou":
        forms |= {word[:-1] + "ies", word[:-1] + "ied"}
    if len(word) >= 3 and word[-1] not in "aeiouwxy" and word[-2] in "aeiou" and word[-3] not in "aeiou":
        forms |= {word + word[-1] + "ed", word + word[-1] + "ing", word + word[-1] + "er"}
    return forms


def _build_en() -> tuple[dict[str, frozenset[str]], dict[str, list[tuple[tuple[str, ...], str]]]]:
    words: dict[str, set[str]] = {}
    phrases: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for line in en.GROUPS.strip().splitlines():
        concept, _, forms = line.partition(":")
        for form in forms.split():
            parts = form.split("_")
            if len(parts) == 1:
                for inflected in _inflections(form):
                    words.setdefault(inflected, set()).add(concept)
            else:
                for first in _inflections(parts[0]):
                    phrases.setdefault(first, []).append((tuple(parts[1:]), concept))
    for irregular, base in _IRREGULAR.items():
        if base in words:
            words.setdefault(irregular, set()).update(words[base])
    for rests in phrases.values():
        rests.sort(key=lambda item: -len(item[0]))
    return {w: frozenset(c) for w, c in words.items()}, phrases


def _build_sr() -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]], list[tuple[str, str, str]]]:
    exact: dict[str, set[str]] = {}
    stems: dict[str, set[str]] = {}
    phrases: list[tuple[str, str, str]] = []
    for line in sr.GROUPS.strip().splitlines():
        concept, _, forms = line.partition(":")
        for form in forms.split():
            if "_" in form:
                first, second = form.split("_", 1)
                phrases.append((first, second.replace("_", " "), concept))
            elif form.endswith("*"):
                stems.setdefault(form[:-1], set()).add(concept)
            else:
                exact.setdefault(form, set()).add(concept)
    return (
        {w: frozenset(c) for w, c in exact.items()},
        {w: frozenset(c) for w, c in stems.items()},
        phrases,
    )


_EN_WORDS, _EN_PHRASES = _build_en()
_SR_EXACT, _SR_STEMS, _SR_PHRASE_LIST = _build_sr()
_SR_PHRASES: dict[str, list[tuple[str, str, str]]] = {}
for _phrase in _SR_PHRASE_LIST:
    _SR_PHRASES.setdefault(_phrase[0][:3], []).append(_phrase)
_SR_STEM_MAX = max(len(s) for s in _SR_STEMS)
_STOP = en.STOP_WORDS | sr.STOP_WORDS
_SERBIAN_HINTS = _set("da za na sa je se od iz kod ili ali sve svi kad kada jos treba moze mora smo su ce cu "
                           "nije ne bez kroz zbog prema u sam")
_TOKEN = re.compile(
    r"\d{4}-\d{2}-\d{2}|\d{1,2}[./]\d{1,2}[./](?:\d{2,4}\.?)?|\d{1,2}/\d{1,2}|\d{1,2}:\d{2}"
    r"|\d+(?:[.,]\d+)*(?:%|[^\W\d_]{1,3}\b)?|[^\W_]+(?:'[^\W_]+)?(?:[./](?=[^\W_])[^\W_]+)*"
)


def _sr_lookup(word: str) -> frozenset[str]:
    """Concepts of a folded Serbian word: an exact form, else the longest listed stem it starts with."""
    found = _SR_EXACT.get(word)
    if found is not None:
        return found
    for end in range(min(len(word), _SR_STEM_MAX), 2, -1):
        hit = _SR_STEMS.get(word[:end])
        if hit is not None:
            return hit
    return frozenset()


@functools.lru_cache(maxsize=8192)
def en_stem(word: str) -> str:
    """A light English stem: plural, past and progressive endings and ``-ly`` removed."""
    word = word.removesuffix("'s").removesuffix("'")
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    for suffix, repl in (("ies", "y"), ("ied", "y"), ("sses", "ss"), ("ches", "ch"), ("shes", "sh"), ("xes", "x")):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            return word[: -len(suffix)] + repl
    for suffix in ("ing", "ed", "ly", "s"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2 and not word.endswith(("ss", "us", "is")):
            stem = word[: -len(suffix)]
            if suffix in ("ing", "ed") and len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
                stem = stem[:-1]
            return stem
    return word


_SR_ENDINGS = ("ovima", "evima", "ama", "ima", "ovi", "ove", "ova", "om", "em", "og", "oj", "u", "a", "e", "i", "o")


def _sr_stem(word: str) -> str:
    for ending in _SR_ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            return word[: -len(ending)]
    return word


_COGNATE = (("cij", "ti"), ("sij", "si"), ("k", "c"), ("z", "s"), ("y", "i"), ("j", "i"), ("ph", "f"), ("th", "t"),
            ("w", "v"), ("x", "cs"), ("q", "c"))


@functools.lru_cache(maxsize=8192)
def cognate_key(word: str) -> str:
    """A spelling key under which loanwords and their sources agree ("kalkulator" and "calculator")."""
    for a, b in _COGNATE:
        word = word.replace(a, b)
    return re.sub(r"(.)\1+", r"\1", word)


_SERBIAN_WORD = re.compile(r"^\W*\w*?[čćšžđČĆŠŽĐ]|(?<!\w)[a-zčćšžđ]\w*?[čćšžđ]")
"""The first word or a lower-case word with a Serbian letter; a name inside a sentence ("Send Miloš the
contract") says nothing about the sentence's language."""


def _is_serbian(original: str, folded_words: list[str]) -> bool:
    if _SERBIAN_WORD.search(original):
        return True
    if any(w in _SERBIAN_HINTS for w in folded_words):
        return True
    return bool(folded_words) and folded_words[0].endswith(("ti", "ci")) and len(folded_words[0]) > 4


_LABEL = re.compile(
    r"^(?:decision|decided|plan|todo|to do|fixme|next steps?|open (?:item|question)|action items?|odluka|zadatak"
    r"|entscheidung|decision|tarea)\s*:\s*",
    re.I,
)
_BULLET = re.compile(r"^(?:(?:[-+*•]|\d+[.)])(?:\s+|$))+")
_ABBREVIATION = re.compile("|".join(re.escape(a) for a in sorted(en.ABBREVIATIONS, key=len, reverse=True)), re.I)
_FREE_SUFFIX = re.compile(r"(?<=[^\W_])-free\b", re.I)
_VERSION = re.compile(r"^v(\d+(?:\.\d+)*)$")
_SPLIT_ALNUM = re.compile(r"^([a-z]{2,})(\d+)$")
_MAX_WORDS = 64
_NEGATED_MARK = "\x00not"


def _prepare(text: str) -> str:
    """Markdown, list markers and a leading label removed; punctuated abbreviations spelled out."""
    text = " ".join(text.replace("*", " ").replace("`", "").split())
    text = _LABEL.sub("", _BULLET.sub("", text))
    text = _ABBREVIATION.sub(lambda found: " " + en.ABBREVIATIONS[found.group(0).lower()] + " ", text)
    return _FREE_SUFFIX.sub(" " + _NEGATED_MARK + " ", text)


def _split_words(text: str) -> tuple[list[str], list[bool]]:
    """Folded words and, for each, whether it was written with a capital (a name, unless it opens the text)."""
    folded: list[str] = []
    capital: list[bool] = []
    for original in _TOKEN.findall(text.replace(_NEGATED_MARK, " notfree "))[: _MAX_WORDS * 2]:
        word = fold(original).removesuffix("'s")
        version = _VERSION.match(word)
        if version:
            word = version.group(1)
        split = _SPLIT_ALNUM.match(word)
        if split and split.group(1) in _EN_WORDS:
            folded += [split.group(1), split.group(2)]
            capital += [False, False]
            continue
        folded.append(word)
        acronym = original.isupper() or (original[:-1].isupper() and original.endswith("s"))  # "SHAs", "PRs"
        if acronym and word.endswith("s") and len(word) > 2 and not original.isupper():
            folded[-1] = word[:-1]
        capital.append(original[:1].isupper() and not acronym)
    return folded, capital


def _phrase_at(words: list[str], i: int, serbian: bool) -> tuple[frozenset[str], int] | None:
    """Concepts of a multi-word phrase starting at ``words[i]`` and its length, if one does."""
    for rest, concept in _EN_PHRASES.get(words[i], ()):
        end = i + 1 + len(rest)
        if end <= len(words) and all(w == r or en_stem(w) == r for w, r in zip(words[i + 1 : end], rest, strict=True)):
            return frozenset({concept}), 1 + len(rest)
    if serbian and i + 1 < len(words):
        word, following = words[i], words[i + 1]
        for first, second, concept in _SR_PHRASES.get(word[:3], ()):
            if (word.startswith(first[:-1]) if first.endswith("*") else word == first) and (
                following.startswith(second[:-1]) if second.endswith("*") else following == second
            ):
                return frozenset({concept}), 2
    return None


def _word_concepts(word: str, serbian: bool) -> tuple[frozenset[str], str]:
    """(concepts, stem) of one folded word; an unknown word's only concept is its stem."""
    if serbian:
        serbian_hit = _sr_lookup(word)
        if serbian_hit:
            return serbian_hit, word
    found = _EN_WORDS.get(word)
    if found is not None:
        return found, word
    stem = en_stem(word)
    found = _EN_WORDS.get(stem)
    if found is not None:
        return found, stem
    stem = _sr_stem(word) if serbian else stem
    return frozenset({stem}), stem


@functools.lru_cache(maxsize=8192)
def analyse(text: str) -> Analysis:
    """Canonical tokens of ``text`` with its axes and negations (see the module docstring)."""
    prepared = _prepare(text)
    words, capital = _split_words(prepared)
    serbian = _is_serbian(prepared, words)
    tokens: list[Token] = []
    axes: set[tuple[str, int]] = set()
    pending = window = negations = 0
    i = 0
    while i < len(words) and len(tokens) < _MAX_WORDS:
        word = words[i]
        rolled_back = word == "roll" and words[i + 1 : i + 2] == ["back"]
        if word in polarity.NEGATORS or word in polarity.UNDO or word == "notfree" or rolled_back:
            pending, window = pending + 1, 3
            i += 2 if rolled_back else 1
            continue
        if word in polarity.NEGATED_FORMS:
            negations += 1
            word = polarity.NEGATED_FORMS[word]
        if word in en.NUMBER_WORDS and not _phrase_at(words, i, serbian):
            word = words[i] = en.NUMBER_WORDS[word]
        elif serbian and word in sr.NUMBER_WORDS:
            word = words[i] = sr.NUMBER_WORDS[word]
        value = read_value(words, i) if (word[:1].isdigit() and word not in _EN_WORDS) or word in MONTHS or (
            word in WEEKDAYS or word in ("q1", "q2", "q3", "q4", "first", "second", "third", "fourth")) else None
        if value is not None and value[0]:
            tokens.append(Token(word, value[0], VALUE, word, word, tuple(value[0])))
            i += value[1]
            continue
        phrase = _phrase_at(words, i, serbian)
        if phrase is not None:
            concepts, span = phrase
            stem, kind = "_".join(words[i : i + span]), CONTENT
        elif word in _STOP and not (word == "je" and serbian and i and words[i - 1].endswith(("ti", "ci"))):
            i += 1
            continue
        elif word in en.PRONOUNS or (serbian and word in sr.PRONOUNS):
            tokens.append(Token(word, frozenset(), PRONOUN, word, word))
            i += 1
            continue
        else:
            span = 1
            concepts, stem = _word_concepts(word, serbian)
            kind = CONTENT
            if capital[i] and i and not (concepts & _KNOWN):
                kind, concepts, stem = NAME, frozenset({word}), word
        if kind == CONTENT and concepts <= en.LIGHT:
            kind = LIGHT
        polar = [polarity.AXES[c] for c in concepts if c in polarity.AXES]
        if polar:
            flip = -1 if pending % 2 else 1
            pending = window = 0
            signed = {(axis, sign * flip) for axis, sign in polar}
            if not concepts.isdisjoint(polarity.KEEP_OPPOSITES):
                signed.add(("keep", -flip))
            axes |= signed
            concepts = concepts | {f"{axis}{'+' if sign > 0 else '-'}" for axis, sign in signed}
        elif pending:
            window -= 1
            if window <= 0:
                negations, pending = negations + pending, 0
        key = cognate_key(stem)
        lookup = (*concepts, "\x01" + stem[:3], "\x02" + key[:3])
        tokens.append(Token(words[i] if span == 1 else stem, concepts, kind, stem, key, lookup))
        i += span
    found = tuple(tokens)
    signs = {axis: frozenset(sign for name, sign in axes if name == axis) for axis, _ in axes}
    return Analysis(found, frozenset(axes), negations + pending, serbian, _index(found), signs)


_KNOWN = frozenset(c for concepts in _EN_WORDS.values() for c in concepts) | frozenset(
    c for concepts in (*_SR_EXACT.values(), *_SR_STEMS.values()) for c in concepts
)
"""Concepts from the lexicons: a capitalised word that has one is a word, not a name."""
