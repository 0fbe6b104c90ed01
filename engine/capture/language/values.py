"""Dates, times, weekdays, months and numbers in one notation, whatever language or format they came in.

"3/3", "March 3", "3rd of March" and "3. marta" all read as ``d:03-03``; "18h", "18:00" and "6 pm" as
``t:18:00``; "Thu" and "četvrtak" as ``wd:4``; "Q3" and "third quarter" as ``q:3``; "50k" as ``n:50000``.
Where a format is ambiguous the value is the set of its readings ("3/4" is ``d:03-04`` or ``d:04-03``; "at 6"
is ``t:06:00`` or ``t:18:00``), and two values are the same when their sets meet.
"""

from __future__ import annotations

import re
from collections.abc import Sequence


def _set(words: str) -> frozenset[str]:
    """The whitespace-separated words of ``words``."""
    return frozenset(words.split())

__all__ = ["MONTHS", "WEEKDAYS", "read_value"]


def _table(spec: str) -> dict[str, int]:
    table: dict[str, int] = {}
    for number, line in enumerate(spec.strip().splitlines(), start=1):
        for word in line.split():
            table[word] = number
    return table


MONTHS = _table(
    """
    january jan januar januara januaru enero
    february feb februar februara februaru febrero
    march mar mart marta martu marz maerz marzo
    april apr aprila aprilu abril
    may maj maja maju mai mayo
    june jun juna junu juni junio
    july jul jula julu juli julio
    august aug avgust avgusta avgustu agosto
    september sep sept septembar septembra septembru septiembre
    october oct oktobar oktobra oktobru oktober octubre
    november nov novembar novembra novembru noviembre
    december dec decembar decembra decembru dezember diciembre
    """
)
"""Folded month names and abbreviations (English, Serbian, German, Spanish) -> month number."""
_AMBIGUOUS_MONTHS = _set("may mar maj maja maju mai jan dec sep")
"""Month words that are also ordinary words or names; read as months only next to a day number."""

WEEKDAYS = _table(
    """
    monday mon mondays ponedeljak ponedeljka ponedeljkom ponedeljku montag lunes
    tuesday tue tues tuesdays utorak utorka utorkom utorku dienstag martes
    wednesday wed wednesdays sreda srede sredu sredom mittwoch miercoles
    thursday thu thur thurs thursdays cetvrtak cetvrtka cetvrtkom cetvrtku donnerstag jueves
    friday fri fridays petak petka petkom petku freitag viernes
    saturday saturdays subota subote subotu subotom samstag sabado
    sunday sundays nedelja nedelje nedelju nedeljom sonntag domingo
    """
)
"""Folded weekday names -> 1 (Monday) .. 7 (Sunday). Serbian "nedelja" is also a week."""

_ORDINAL_DAY = re.compile(r"^(\d{1,2})(?:st|nd|rd|th|\.)?$")
_NUMERIC_DATE = re.compile(r"^(\d{1,2})([./])(\d{1,2})(?:[./](?:\d{2,4})?\.?)?$")
_ISO_DATE = re.compile(r"^\d{4}-(\d{2})-(\d{2})$")
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})$")
_HOUR = re.compile(r"^(\d{1,2})(h|am|pm)$")
_NUMBER = re.compile(r"^(\d+(?:[.,]\d+)*)(%|k|m|[^\W\d_]{1,3})?$")
_QUARTER = re.compile(r"^q([1-4])$")
_ORDINAL_WORDS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
_AT = _set("at u um a by")
_MERIDIEM = _set("am pm")


def _date(month: int, day: int) -> set[str]:
    return {f"d:{month:02d}-{day:02d}"} if 1 <= month <= 12 and 1 <= day <= 31 else set()


def _day(token: str) -> int:
    found = _ORDINAL_DAY.match(token)
    return int(found.group(1)) if found and 1 <= int(found.group(1)) <= 31 else 0


def _hours(hour: int, minute: int, meridiem: str) -> set[str]:
    if meridiem == "pm" and hour < 12:
        hour += 12
    elif meridiem == "am" and hour == 12:
        hour = 0
    if not 0 <= hour <= 24 or not 0 <= minute < 60:
        return set()
    if meridiem or hour > 12 or hour == 0:
        return {f"t:{hour:02d}:{minute:02d}"}
    return {f"t:{hour:02d}:{minute:02d}", f"t:{hour + 12:02d}:{minute:02d}"}


def _number(text: str) -> str:
    found = _NUMBER.match(text)
    if not found:
        return f"n:{text}"
    digits, suffix = found.group(1), found.group(2) or ""
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+", digits):
        digits = digits.replace(",", "")
    if suffix in ("k", "m") and digits.replace(".", "", 1).isdecimal():
        value = float(digits) * (1000 if suffix == "k" else 1_000_000)
        return f"n:{value:g}" if value != int(value) else f"n:{int(value)}"
    if suffix == "%":
        return f"pct:{digits}"
    if suffix == "s" and digits.isdecimal() and int(digits) >= 100:
        return f"n:{digits}"  # "HTTP 500s", "the 1990s": a plural, not seconds
    return f"n:{digits}{suffix}"


def read_value(words: Sequence[str], i: int) -> tuple[frozenset[str], int] | None:
    """The value starting at folded word ``words[i]`` and how many words it spans, or ``None``.

    Args:
        words: folded words of the text, as split by :mod:`engine.capture.language.canonical`.
        i: the index to read from.
    """
    word = words[i]
    after = words[i + 1] if i + 1 < len(words) else ""
    before = words[i - 1] if i else ""
    if word in MONTHS:
        day = _day(after)
        if day:
            return frozenset(_date(MONTHS[word], day)), 2
        if word not in _AMBIGUOUS_MONTHS:
            return frozenset({f"m:{MONTHS[word]:02d}"}), 1
        return None
    if word in WEEKDAYS:
        number = WEEKDAYS[word]
        found = {f"wd:{number}"} | ({"week"} if word.startswith("nedelj") else set())
        return frozenset(found), 1
    if found_iso := _ISO_DATE.match(word):
        return frozenset(_date(int(found_iso.group(1)), int(found_iso.group(2)))), 1
    found_date = _NUMERIC_DATE.match(word)
    if found_date and (found_date.group(2) == "/" or word.endswith(".") or word.count(".") == 2):
        a, b = int(found_date.group(1)), int(found_date.group(3))
        readings = _date(a, b) | _date(b, a) if found_date.group(2) == "/" else _date(b, a)
        return frozenset(readings), 1
    if found_clock := _CLOCK.match(word):
        meridiem = after if after in _MERIDIEM else ""
        readings = _hours(int(found_clock.group(1)), int(found_clock.group(2)), meridiem or "h")
        return frozenset(readings), 2 if meridiem else 1
    if found_hour := _HOUR.match(word):
        return frozenset(_hours(int(found_hour.group(1)), 0, found_hour.group(2))), 1
    if quarter := _QUARTER.match(word):
        return frozenset({f"q:{quarter.group(1)}"}), 1
    if word in _ORDINAL_WORDS and after in ("quarter", "kvartal", "kvartala", "quartal"):
        return frozenset({f"q:{_ORDINAL_WORDS[word]}"}), 2
    if word[:1].isdigit():
        day = _day(word)
        if day and after in MONTHS:
            return frozenset(_date(MONTHS[after], day)), 2
        if day and after == "of" and i + 2 < len(words) and words[i + 2] in MONTHS:
            return frozenset(_date(MONTHS[words[i + 2]], day)), 3
        if day and word.endswith(("st", "nd", "rd", "th")):
            return frozenset({f"day:{day}"}), 1
        if after in _MERIDIEM and word.isdecimal():
            return frozenset(_hours(int(word), 0, after)), 2
        if before in _AT and word.isdecimal() and int(word) <= 24:
            return frozenset(_hours(int(word), 0, "")), 1
        return frozenset({_number(word)}), 1
    return None
