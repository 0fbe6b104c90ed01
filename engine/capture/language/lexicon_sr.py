"""Serbian (Latin script, folded) side of the vocabulary in :mod:`engine.capture.language.lexicon_en`.

``GROUPS`` (read from ``lexicon_sr.txt``) maps each concept to Serbian forms, one concept per line:
``concept: stem* form multi_word``. A form ending in ``*`` is a stem that any inflection extends ("racun*"
covers račun, računa, računu, računi); the longest matching stem wins, so "kupi*" (buy) never swallows
"kupatilo" (bathroom). Forms are folded: no diacritics ("č" -> "c", "đ" -> "d"). Verbs are listed by the stems
their aspects and tenses use ("zakaz*", "zakazuj*"). A Serbian word with no entry is compared by its stem and,
for loanwords, by spelling ("kalkulator" / "calculator", see
:func:`engine.capture.language.canonical.cognate_key`).
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


GROUPS = _read("lexicon_sr.txt")

STOP_WORDS = _set(
    "je su sam si smo ste i ili ali a da za na u sa od do iz taj ta to ovo ono ja ti on ona mi vi oni s po pri "
    "kod prema kroz o k ka ovaj ova ovi ove ovu tu tom toga te li jos sve svi svih sva svaki svaka svako kao sto "
    "kako gde kada kad zato pa onda sad sada vec samo jer nego one se bi bih bismo ce cu cemo cete moram "
    "moramo mozemo moze mogu biti bude budu zbog oko uz ako dok kroz posle pre pred iza"
)
PRONOUNS = _set("njega nju ga mu joj ih im njemu njoj njima on ona oni one njen njegov njihov je")
"""Object pronouns ("je" only after an infinitive: "Pitati je ...")."""
NUMBER_WORDS = {
    "jedan": "1", "jedna": "1", "jedno": "1", "dva": "2", "dve": "2", "tri": "3", "cetiri": "4", "pet": "5",
    "sest": "6", "sedam": "7", "osam": "8", "devet": "9", "deset": "10", "dvadeset": "20", "trideset": "30",
}
