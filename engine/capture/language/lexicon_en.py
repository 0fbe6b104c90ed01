"""English working vocabulary for duplicate detection: synonym groups, abbreviations, function words.

``GROUPS`` (read from ``lexicon_en.txt``) has one concept per line: ``concept: word word multi_word``. Words are
base forms in lower case; :mod:`engine.capture.language.canonical` adds their inflections (``-s``, ``-ed``,
``-ing``, ...) and reads ``multi_word`` as the phrase "multi word". Two words that share a concept are the same
word for comparison; a word may sit in several groups ("book" is a reservation and a thing you read).
``ABBREVIATIONS`` expand before lookup. Opposite actions and negation are in
:mod:`engine.capture.language.polarity`; the Serbian side of every concept in
:mod:`engine.capture.language.lexicon_sr`.
"""

from __future__ import annotations

from importlib import resources


def _set(words: str) -> frozenset[str]:
    """The whitespace-separated words of ``words``."""
    return frozenset(words.split())


def _read(name: str) -> str:
    """A lexicon data file of this package without its comment lines."""
    text = resources.files(__package__ or "engine.capture.language").joinpath(name).read_text(encoding="utf-8")
    return "\n".join(line for line in text.splitlines() if line.strip() and not line.startswith("#"))


GROUPS = _read("lexicon_en.txt")

ABBREVIATIONS = {
    "ci/cd": "continuous integration continuous delivery",
    "tls/ssl": "tls",
    "ssl/tls": "tls",
    "a/c": "aircon",
    "w/o": "without",
    "w/": "with ",
    "1:1": "one on one",
    "p.m.": "pm",
    "a.m.": "am",
}
"""Abbreviations written with punctuation, replaced before the text is split into words."""

STOP_WORDS = _set(
    "the a an is are was were be been being to and or in for with that this of i we it he she they you my our "
    "will would have has had do does did can could should may might shall also just now then so if but "
    "there here all every each any some across per via by from into onto about as at on than these those "
    "its your their his her him them us me let let's i'll we'll you'll i'm we're you're i've we've i'd we'd "
    "it's that's what which who whom whose when where how out up too very please want wants going gonna "
    "able really maybe still already again get gets got getting make makes made doing "
    "always every everything everyone other another our own same both more most such only"
)
"""Function words dropped before comparison. Light verbs of policy statements are in ``LIGHT``."""

LIGHT = _set("adopt need start")
"""Concepts that may match but whose absence is not a difference ("Adopt X" / "We follow X")."""

PRONOUNS = _set("him her them he she they his hers their theirs")
PERSON_CONCEPTS = _set(
    "customer team user kid mother father grandmother grandfather aunt uncle friend neighbour teacher "
    "doctor dentist pediatrician plumber electrician mechanic repairman accountant lawyer landlord contractor "
    "nanny supplier agency developer admin"
)
"""Concepts a pronoun can stand for, besides a person's name."""

NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "fifteen": "15", "twenty": "20",
    "thirty": "30", "forty": "40", "fifty": "50", "hundred": "100",
}
"""Number words read as numbers (ordinals stay words: "third quarter" is read as Q3 by the value reader)."""
