"""Candidate decision lines of an agent response, each described by named features.

A response is split into prose lines (code fences, block quotes and tables are context, never candidates);
each line, each later sentence of a line that opens with a commitment, and each list item is a candidate. A
candidate's features say what kind of evidence it carries (:mod:`engine.capture.decision_markers`): a label, a choice
verb, a first-person commitment or an exploratory step, a hedge, its place in a list or after a code fence, its
position, and what the user's reply points at. :mod:`engine.capture.decisions` scores candidates with weights fit on
labelled responses. Questions, statements that something is still open, either-or statements, bare headers
and choices named only by position ("the second option") are never candidates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.capture import decision_markers as m
from engine.capture.dedup import fold
from engine.capture.language.phrases import PhraseFamilies, words
from engine.capture.response_lines import Line, parse, sentences

__all__ = ["Candidate", "candidates"]

_KV_BULLET = re.compile(r"^(?:[-*+•]|\d{1,2}[.)])\s+\*\*(?P<key>[^*]{1,60}?):?\*\*:?\s*(?P<value>.*)$")
_BOLD_LED = re.compile(r"^(?:(?:[-*+•]|\d{1,2}[.)])\s+)?\*\*[^*]+\*\*")
_MAX_CANDIDATES = 120
_COMMITTING = ("choice", "intent", "commit", "the_x_is")
_GATES = ("undecided", "either_or", "ordinal_reference", "label_empty")
_INTERJECTION_WORDS = 5


_QUESTION_MARKS = ("?", "？")
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]+")
_OTHER_LETTERS = re.compile(r"[^\W\d_A-Za-z\u00c0-\u024f]+")


_CODE_OR_LINK = re.compile(r"`[^`]*`|\S+://\S+|\S+@\S+")


def _unjudgeable(text: str) -> bool:
    """True for a line with no letters ("---") or whose prose is mostly outside the Latin script: the marker
    families know English, Serbian (Latin), German and Spanish, so such a line is never reported."""
    if text.isascii():
        return _LATIN.search(text) is None
    prose = _CODE_OR_LINK.sub(" ", text)
    latin = sum(len(run) for run in _LATIN.findall(prose))
    other = sum(len(run) for run in _OTHER_LETTERS.findall(prose))
    return latin + other == 0 or latin < 0.7 * (latin + other)


def _gated(features: dict[str, float]) -> bool:
    """Never a decision: an open or either-or statement, a bare header, "the second option", or a
    first-person step that only gathers information ("I'll check the logs", "Proveriću ...")."""
    if any(name in features for name in _GATES):
        return True
    return "explore" in features and not any(name in features for name in _EXPLICIT)


def _interjection(sentence: str) -> bool:
    """A short sentence with no commitment in it: "You're right, sorry.", "Ok.", "Good catch!"."""
    key = fold(sentence)
    return len(words(key)) <= _INTERJECTION_WORDS and not m.INTENT.match(key) and not m.CHOICE.match(key)


@dataclass(frozen=True, slots=True)
class Candidate:
    """One line or sentence that might state the response's decision."""

    text: str
    """The cleaned text (list markers, bold and heading hashes removed), as it would be reported."""
    features: dict[str, float]
    """Named feature values; absent features are 0."""


def _commitment(key: str) -> tuple[str, str]:
    """("intent" | "commit" | "", the words after the first-person marker) for a folded line start."""
    intent = m.INTENT.match(key)
    if intent:
        return "intent", intent.group("rest")
    for pattern in (m.SR_FUTURE, m.SR_1PL, m.SR_1SG):
        found = pattern.match(key)
        if found:
            name = "verb" if found.group("verb") else "verb2"
            if found.group(name) not in m.SR_NOT_VERBS:
                return "commit", key[found.start(name) :]
    for pattern, stop in ((m.DE_1P, m.DE_NOT_COMMIT), (m.ES_1PL, m.ES_NOT_VERBS), (m.ES_1SG, m.ES_NOT_VERBS)):
        found = pattern.match(key)
        if found and found.group("verb") not in stop:
            return "commit", key[found.start("verb") :]
    found = m.EN_WE_PRESENT.match(key)
    return ("commit", key[found.start("verb") :]) if found else ("", "")


def _label_features(key: str, f: dict[str, float]) -> str:
    """Features of a leading ``Label:``; returns the text after it (``key`` when there is none)."""
    label = m.LABEL.match(key)
    if not label or len(label.group("label").split()) > 4:
        return key
    name = label.group("label").strip()
    if m.DECISION_LABEL.match(name):
        f["label_decision"] = 1
    elif m.PROPOSAL_LABEL.match(name):
        f["label_proposal"] = 1
    elif m.ANALYSIS_LABEL.match(name):
        f["label_analysis"] = 1
    else:
        f["label_generic"] = 1
    body = label.group("rest")
    if not body:
        f["label_empty"] = 1
    return body


def _marker_features(key: str, tokens: list[str], found: set[str], f: dict[str, float]) -> None:
    """Features of one folded candidate head ``key`` (its first sentence) with its words ``tokens`` and the
    phrase families ``found`` in them."""
    body = _label_features(key, f)
    if "undecided" in found or m.OPEN_VALUE.match(body):
        f["undecided"] = 1
    if m.CHOICE.match(key) or (body is not key and m.CHOICE.match(body)):
        f["choice"] = 1
    if m.THE_X_IS.match(key):
        f["the_x_is"] = 1
    if m.CONCLUSION.match(key):
        f["conclusion"] = 1
    kind, rest = _commitment(body)
    if kind:
        f[kind] = 1
        if m.EXPLORE.match(rest):
            f["explore"] = 1
    elif m.EXPLORE.match(body):
        f["explore_step"] = 1
    if m.CONDITIONAL.match(key):
        f["conditional"] = 1
    if m.FILLER.match(key):
        f["filler"] = 1
    if m.PAST_REPORT.match(body) and "choice" not in f:
        f["past_report"] = 1
    for name in found & _HEAD_FAMILIES:
        f[name] = 1
    if len(tokens) < 4:
        f["short"] = 1
    elif len(tokens) > 30:
        f["long"] = 1


_FAMILIES = PhraseFamilies(
    {
        "recommend": m.RECOMMEND,
        "standing": m.STANDING,
        "chore": m.CHORE,
        "also": m.ALSO,
        "preparatory": m.PREPARATORY,
        "hedge": m.HEDGE,
        "either_or": m.EITHER_OR,
        "ordinal_reference": m.ORDINAL_REFERENCE,
        "done": m.DONE,
        "you": m.YOU,
        "undecided": m.UNDECIDED,
        "doc_explore": m.DOC_EXPLORE,
    }
)
"""Every phrase family, searched in one pass per line (and per later sentence)."""
_HEAD_FAMILIES = frozenset(
    ["recommend", "standing", "chore", "also", "preparatory", "hedge", "either_or", "ordinal_reference", "done", "you"]
)
"""The families that are features of a candidate under their own name."""


def _reply_features(reply: str | None) -> dict[str, float]:
    if reply is None:
        return {"reply_none": 1}
    key = fold(reply.strip())
    f: dict[str, float] = {}
    if m.REPLY_START.search(key):
        f["reply_start"] = 1
    if m.REPLY_DEFER.search(key):
        f["reply_defer"] = 1
    elif m.REPLY_REJECT.search(key):
        f["reply_reject"] = 1
    elif m.REPLY_AFFIRM.search(key):
        f["reply_affirm"] = 1
    return f


def _document_features(prose: list[Line], found: list[set[str]], bold_led: int) -> dict[str, float]:
    """Features every candidate of a response shares; ``found`` holds the phrase families of each prose line."""
    f: dict[str, float] = {}
    if prose and any("?" in ln.text for ln in prose if ln.para == prose[-1].para):
        f["doc_question_end"] = 1
    if bold_led >= 2:
        f["doc_many_bold"] = 1
    if any("undecided" in families or m.OPEN_VALUE.match(ln.key) for ln, families in zip(prose, found, strict=True)):
        f["doc_undecided"] = 1
    if any("doc_explore" in families for families in found):
        f["doc_explore"] = 1
    return f


def _header_of(lines: list[Line], index: int) -> int:
    """Index of the line introducing the list that contains ``lines[index]`` (a non-item line ending in ":"),
    or -1."""
    j = index
    while j > 0 and lines[j - 1].kind == "item" and lines[j - 1].group == lines[index].group:
        j -= 1
    if j and lines[j - 1].kind != "item" and lines[j - 1].text.endswith(":"):
        return j - 1
    return -1


def _referenced_items(lines: list[Line], families: list[set[str]], groups: dict[int, list[int]]) -> set[int]:
    """List items that a later recommendation or choice names by position ("my pick is the second option")."""
    found: set[int] = set()
    for i, line in enumerate(lines):
        if "ordinal_reference" not in families[i]:
            continue
        key = line.key
        if not ("recommend" in families[i] or m.CHOICE.match(key) or m.THE_X_IS.match(key)
                or m.LABEL.match(key) or m.INTENT.match(key)):
            continue
        ordinal = m.ORDINAL.search(key)
        if ordinal is None:
            continue
        word = ordinal.group("word") or ordinal.group("num") or ""
        n = m.ORDINAL_INDEX.get(word[:3] if len(word) > 1 else word, 0)
        before = [g for g, items in groups.items() if items[-1] < i]
        if n and before and n <= len(groups[before[-1]]):
            found.add(groups[before[-1]][n - 1])
    return found


def _kv_undecided(line: Line) -> bool:
    kv = _KV_BULLET.match(line.raw)
    if kv is None:
        return False
    value = fold(kv.group("value").lstrip("—–-: "))
    return m.UNDECIDED.search(words(value)) or bool(m.OPEN_VALUE.match(value))


def _item_features(
    lines: list[Line], families: list[set[str]], index: int, group: list[int], kv_open: list[bool],
    f: dict[str, float],
) -> None:
    """Features of a list item from its list: its place, the list header, key-value siblings."""
    line = lines[index]
    f["item"] = 1
    if group[0] == index:
        f["first_item"] = 1
    if line.number:
        f["numbered"] = 1
    h = _header_of(lines, index)
    if h >= 0:
        header = lines[h]
        asks = any(t.startswith(("question", "pitanj", "frage", "pregunt")) for t in header.tokens)
        if asks or "undecided" in families[h]:
            f["under_questions"] = 1
        elif m.OPTIONS_HEADER.search(header.key):
            f["under_options"] = 1
        elif m.PLAN_HEADER.search(header.key):
            f["under_plan"] = 1
        elif m.REPORT_HEADER.search(header.key):
            f["under_report"] = 1
        if "preparatory" in families[h]:
            f["under_explore"] = 1
    if _KV_BULLET.match(line.raw):
        f["kv"] = 1
        if any(kv_open[j] for j in group if j != index):
            f["kv_partial"] = 1
    elif _BOLD_LED.match(line.raw):
        f["bold_led"] = 1
    f["list_explore_share"] = sum(1 for j in group if m.EXPLORE.match(lines[j].key)) / len(group)


def _interactions(f: dict[str, float]) -> None:
    """Products of features whose meaning depends on each other (the model is linear)."""
    for a, b in _PAIRS:
        if a in f and b in f:
            f[f"{a}*{b}"] = f[a] * f[b]
    if "first_item" in f and "under_plan" in f and "reply_affirm" in f:
        f["first_item*under_plan*reply_affirm"] = 1
    f.pop("first_para", None)
    f.pop("last_para", None)


_PAIRS = (
    ("first_item", "under_plan"),
    ("first_item", "reply_start"),
    ("kv", "kv_partial"),
    ("after_fence", "commit"),
    ("after_fence", "intent"),
    ("after_fence", "choice"),
    ("intent", "explore"),
    ("commit", "explore"),
    ("standalone", "after_list"),
    ("conclusion", "standalone"),
    ("one_sentence", "after_list"),
    ("heading", "first_para"),
    ("last_para", "intent"),
    ("last_para", "commit"),
    ("first_para", "past_report"),
    ("doc_question_end", "intent"),
    ("doc_question_end", "reply_affirm"),
    ("label_decision", "doc_question_end"),
    ("label_decision", "reply_affirm"),
    ("label_decision", "reply_reject"),
    ("first_item", "under_explore"),
    ("explore_step", "under_plan"),
    ("doc_explore", "first_item"),
)


def candidates(text: str, reply: str | None = None) -> list[Candidate]:
    """Every candidate decision in ``text`` with its features (see the module docstring).

    Args:
        text: the agent response.
        reply: the user's reply to it, when known; ``None`` leaves the reply features out. A reply that defers
            ("let me think", "javim ti sutra", "ich überlege noch") leaves no candidate: in every labelled
            response such a reply meant nothing was decided.
    """
    reply_features = _reply_features(reply)
    if "reply_defer" in reply_features:
        return []  # "let me think", "ask Jovana first": nothing the response proposed is taken yet
    lines = parse(text)
    prose_index = [i for i, ln in enumerate(lines) if ln.kind in ("text", "item", "bold", "heading")]
    prose = [lines[i] for i in prose_index]
    families = [_FAMILIES.found(ln.tokens) for ln in lines]
    kv_open = [ln.kind == "item" and _kv_undecided(ln) for ln in lines]
    bold_led = sum(1 for ln in lines if _BOLD_LED.match(ln.raw))
    prose_families = [families[i] for i in prose_index]
    shared = _document_features(prose, prose_families, bold_led) | reply_features
    groups: dict[int, list[int]] = {}
    para_size: dict[int, int] = {}
    for i, ln in enumerate(lines):
        para_size[ln.para] = para_size.get(ln.para, 0) + 1
        if ln.kind == "item":
            groups.setdefault(ln.group, []).append(i)
    referenced = _referenced_items(lines, families, groups) if groups else set()
    paragraphs = len({ln.para for ln in prose})
    out: list[Candidate] = []
    for i in prose_index:
        line = lines[i]
        if not line.text or line.text.endswith((":", "：")) or _unjudgeable(line.text):
            continue
        if m.ANNOUNCEMENT.match(line.key):
            continue  # a header in prose form; what it announces comes after it
        f = dict(shared)
        if paragraphs >= 3:
            # Where a line sits says something only in a response with a beginning, a middle and an end,
            # and only together with what the line says (see _interactions).
            if line.para == prose[0].para:
                f["first_para"] = 1
            if line.para == prose[-1].para:
                f["last_para"] = 1
        if line.after_fence:
            f["after_fence"] = 1
        previous = lines[i - 1] if i else None
        if previous is not None and previous.para != line.para and previous.kind in ("item", "table"):
            f["after_list"] = 1
        if para_size[line.para] == 1 and line.kind in ("text", "bold"):
            f["standalone"] = 1
        if line.kind in ("bold", "heading"):
            f["heading"] = 1
        if line.kind == "item":
            _item_features(lines, families, i, groups[line.group], kv_open, f)
        if i in referenced:
            f["referenced"] = 1
        parts = sentences(line.text)
        # A line that opens with a short interjection ("You're right, sorry. I'll revert ...") is, after it,
        # a one-sentence statement like any other.
        opening = 0
        while opening < len(parts) - 1 and _interjection(parts[opening]):
            opening += 1
        for order, sentence in enumerate(parts[:4]):
            features = dict(f)
            key = line.key if len(parts) == 1 else fold(sentence)
            if order:
                features["later_sentence" if order > opening else "after_interjection"] = 1
                features.pop("heading", None)
            if "standalone" in f and order >= opening and len(parts) == opening + 1:
                features["one_sentence"] = 1
            tokens = line.tokens if len(parts) == 1 else words(key)
            _marker_features(key, tokens, families[i] if len(parts) == 1 else _FAMILIES.found(tokens), features)
            if order and not any(name in features for name in _COMMITTING):
                continue
            asks = sentence.endswith(_QUESTION_MARKS) or (not order and line.text.endswith(_QUESTION_MARKS))
            if asks or _gated(features):
                continue
            _interactions(features)
            out.append(Candidate(sentence if order else line.text, features))
            if len(out) >= _MAX_CANDIDATES:
                break
        if len(out) >= _MAX_CANDIDATES:
            break
    _context_features(out)
    return out


_EXPLICIT = ("label_decision", "label_proposal", "choice", "the_x_is", "recommend")


def _context_features(found: list[Candidate]) -> None:
    """Mark candidates that compete with an explicitly marked one elsewhere in the response."""
    explicit = [i for i, c in enumerate(found) if any(name in c.features for name in _EXPLICIT)]
    if not explicit:
        return
    for i, c in enumerate(found):
        if i not in explicit or len(explicit) > 1:
            c.features["other_explicit"] = 1
