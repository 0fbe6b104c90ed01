"""The seed baseline: the first capture heuristics, kept verbatim so benchmarks can compare against them.

Nothing in ``engine/`` uses these. Decision extraction: four marker tiers over non-code lines with a per-line
gate, first best match. Real-user filter: rejects checkpoint data, two summary and two gauge prefixes. Semantic
duplicates: normalized equality, keyword Jaccard >= 0.5 when the keyword union has >= 3 words, or containment of
a >= 10-character normalized string in the other.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from engine.capture.dedup import normalize


def _set(words: str) -> frozenset[str]:
    """The whitespace-separated words of ``words``."""
    return frozenset(words.split())

DECISION_MAX_CHARS = 200
SEED_THRESHOLD = 0.5
"""The seed's keyword Jaccard threshold."""

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def _truncate(text: str, limit: int = DECISION_MAX_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _prose_lines(text: str) -> list[str]:
    """Stripped lines of ``text`` with fenced code blocks blanked out (an unclosed fence runs to the end)."""
    out: list[str] = []
    fence = ""
    for raw in text.splitlines():
        opener = _FENCE.match(raw)
        if not fence:
            fence = opener.group(1) if opener else ""
            out.append("" if opener else raw.strip())
        else:
            stripped = raw.strip()
            if opener and set(stripped) == {fence[0]} and len(stripped) >= len(fence):
                fence = ""
            out.append("")
    return out


# --- decisions ----------------------------------------------------------------------------------------------

_TIER1 = re.compile(r"^(Decision:|Plan:|Approach:|Going with|Chose|Choosing)", re.I)
_TIER2 = re.compile(
    r"^(I'll|We'll|Let's|I will|We will|I'm going to|We're going to"
    r"|The approach is|The plan is|The fix is|The solution is)",
    re.I,
)
_BOLD_BULLET = re.compile(r"^[-*]\s+\*\*[^*]+\*\*")
_LIST = re.compile(r"^(?:[-*]\s|\d+\.\s)")
_FILLER = re.compile(r"^(you're right|ohoho|haha|hmm|well,|okay so|sure,|yeah|ok |ah |oh )", re.I)
_VERBS = sorted(
    _set(
        "use add remove replace create implement switch move keep skip merge split export import change fix "
        "update deploy persist store read write inject filter track chose decided"
    )
)
_VERB = re.compile(r"\b(?:" + "|".join([*_VERBS, "going with"]) + r")\b", re.I)


def _passes(line: str) -> bool:
    """The seed's quality gate; "a colon after a keyword" is read as a letter directly followed by ``:``."""
    if _FILLER.match(line) or line.endswith("?"):
        return False
    return bool(
        _VERB.search(line) or line.startswith("**") or re.match(r"^[-*]\s", line) or re.search(r"[^\W\d]:", line)
    )


def extract_decision_from_response_seed(text: str) -> str | None:
    """Four tiers over non-code lines, a per-line quality gate, first best match.

    The line is returned as written (bullets and bold kept), truncated to 200 characters.
    """
    best: tuple[int, int, int, str] | None = None
    for index, line in enumerate(_prose_lines(text)):
        if not line:
            continue
        rank = 0
        if _TIER1.match(line):
            tier = 1
        elif _TIER2.match(line):
            tier = 2
        elif line.startswith("**") or _BOLD_BULLET.match(line):
            tier = 3
        elif _LIST.match(line) and (verb := _VERB.search(line)):
            tier = 4
            rank = 0 if len(line[: verb.start()].split()) < 5 else 1  # verb within the first five words
        else:
            continue
        if _passes(line) and (best is None or (tier, rank, index) < best[:3]):
            best = (tier, rank, index, line)
    return _truncate(best[3]) if best else None


def is_real_user_message_seed(text: str) -> bool:
    """Rejects checkpoint data, two summary prefixes and two gauge prefixes; everything else is real."""
    if "<checkpoint-data" in text or "schema: openclaw/checkpoint" in text:
        return False
    if text.startswith(("Summary unavailable", "This summary covers")):
        return False
    return not text.startswith(("Token utilization:", "## Token Gauge"))


# --- semantic duplicates ------------------------------------------------------------------------------------

SEED_STOP_WORDS = _set(
    # English, then Serbian (Latin script).
    "the a an is are was were be been being to and or in for with that this of i we it he she they you my our "
    "need should will must have has had do does did can could would not no but if so then "
    "je su sam si smo ste i ili ali a da ne za na u sa od do iz taj ta to ovo ono ja ti on ona mi vi oni "
    "treba moze mora ce"
)


def extract_keywords_seed(text: str) -> frozenset[str]:
    """Whitespace-split normalized text without the seed's stop words and words under 3 characters."""
    return frozenset(w for w in normalize(text).split() if w not in SEED_STOP_WORDS and len(w) >= 3)


def _jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    sa, sb = set(a), set(b)
    union = sa | sb
    return len(sa & sb) / len(union) if union else 0.0


def is_semantic_duplicate_seed(a: str, b: str, threshold: float = SEED_THRESHOLD) -> bool:
    """Three tiers: normalized equality, keyword Jaccard (|union| >= 3), 10-character substring."""
    na, nb = normalize(a), normalize(b)
    if na == nb:
        return True
    ka, kb = extract_keywords_seed(a), extract_keywords_seed(b)
    if len(ka | kb) >= 3 and _jaccard(ka, kb) >= threshold:
        return True
    shorter, longer = sorted((na, nb), key=len)
    return len(shorter) >= 10 and shorter in longer
