"""Mechanical extraction from conversation text: decisions, real user messages, open items, learnings.

No LLM: each function is a text heuristic that prefers returning nothing over returning noise, and its
docstring says what it catches and what it misses. Decisions are scored by a small logistic model whose
weights are committed in :mod:`engine.capture.weights` (docs/checkpoints.md, "Decisions").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from engine.capture import weights as capture_weights
from engine.capture.decision_features import candidates
from engine.capture.dedup import dedupe, extract_keywords, fold
from engine.capture.response_lines import clean

__all__ = [
    "DECISION_MAX_CHARS",
    "DEFAULT_MODEL",
    "DecisionModel",
    "extract_decision_from_response",
    "extract_learnings",
    "extract_open_items",
    "is_open_item_line",
    "is_real_user_message",
    "prose_lines",
    "rank_decisions",
    "strip_envelope",
]

DECISION_MAX_CHARS = 200
"""Cap, in characters, on a captured decision, open item or learning."""

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_LIST_MARK = re.compile(r"^(?:[-*+•]|\d+[.)])\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")


def _truncate(text: str, limit: int = DECISION_MAX_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def prose_lines(text: str) -> list[str]:
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


# --- decisions ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DecisionModel:
    """Weights of the logistic decision scorer (see :mod:`engine.capture.decision_features` for the feature names)."""

    weights: Mapping[str, float]
    bias: float
    threshold: float
    """Log-odds a response's best candidate must reach to be reported."""

    def score(self, features: Mapping[str, float]) -> float:
        """Log-odds that a candidate with ``features`` is the response's decision."""
        weights = self.weights
        return self.bias + sum(weights.get(name, 0.0) * value for name, value in features.items())


DEFAULT_MODEL = DecisionModel(capture_weights.DECISION_WEIGHTS, capture_weights.DECISION_BIAS,
                              capture_weights.DECISION_THRESHOLD)
"""The committed model, fit by ``python -m bench.fit_capture`` on the labelled responses in ``tests/data``."""


def rank_decisions(
    text: str, user_reply: str | None = None, model: DecisionModel = DEFAULT_MODEL
) -> list[tuple[float, str]]:
    """Every candidate decision of ``text`` with its score, best first (ties keep text order)."""
    scored = [(model.score(c.features), -i, c.text) for i, c in enumerate(candidates(text, user_reply))]
    scored.sort(reverse=True)
    return [(score, line) for score, _, line in scored]


def extract_decision_from_response(
    text: str, user_reply: str | None = None, model: DecisionModel = DEFAULT_MODEL
) -> str | None:
    """The decision an agent response states, or ``None``; capped at 200 characters.

    Every prose line, later sentence and list item outside code fences, quotes and tables is a candidate
    (:func:`engine.capture.decision_features.candidates`); a logistic model weighs what each carries -- labels
    (``Decision:``, ``Proposal:``, ``Chosen:``, ``Outcome:``, ``Odluka:``, ``Entscheidung:``, ``Decisión:``),
    choice verbs and first-person commitments in English, Serbian, German and Spanish ("Going with",
    "Koristićemo", "Ich buche", "Reservo"), against exploration and preparation ("I'll take heap snapshots
    first", "Proveriću"), follow-up chores ("I'll write this up as an ADR"), hedges, and its place: a key-value
    bullet in a list whose other entries are still open, a standalone line after a list of alternatives or
    after a code fence, step 1 of a plan the user answers with "start now". The best candidate is reported
    when its score reaches the model's threshold, unless the response also leaves it open (an item under "Next
    steps:", a TODO); then the next candidate may be. Questions, statements that something is still open,
    either-or statements and choices named only by position ("the second option") are never reported.

    Args:
        text: the agent response.
        user_reply: the user's reply, when known; it lets "start now" or "let me think" count.
        model: the scorer; the committed one unless a benchmark is fitting its own.

    Misses: decisions only in the user's reply, decisions spread over several lines, and markers the
    families do not list (the optional LLM enricher is the way to get more).
    """
    # A line the same response leaves open ("Next steps: 1. Delete the old code") is a proposal, not a decision:
    # reporting it as both made one item current and open at once (seen on pi's before-compaction fixture).
    open_items: set[str] | None = None  # read only once a candidate passes: most responses have none
    for score, line in rank_decisions(text, user_reply, model):
        if score < model.threshold:
            return None
        if open_items is None:
            open_items = {" ".join(item.split()) for item in extract_open_items(text)}
        if _truncate(" ".join(line.split())) not in open_items:
            return _truncate(line)
    return None


# --- real user messages -------------------------------------------------------------------------------

_METADATA_BLOCK = re.compile(r"^[^\n]*\(untrusted metadata\):[ \t]*\n```[^\n]*\n.*?\n```[ \t]*$", re.M | re.S)
_MESSAGE_ID = re.compile(r"^\[message_id: [^\]\n]*\][ \t]*$", re.M)
_TIMESTAMP = re.compile(r"^\[(?:[A-Z][a-z]{2} )?\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}(?::\d{2})?(?: [^\]\n]{1,24})?\]\s*")
_INJECTED_MARKERS = ("<checkpoint-data", "schema: openclaw/checkpoint", 'schema: "openclaw/checkpoint"')
_INJECTED_PREFIX = re.compile(
    r"^(?:The conversation history before this point was compacted|The following is a summary of a branch"
    r"|Summary unavailable|This summary covers|This session is being continued from a previous conversation"
    r"|Token utilization:|## Token Gauge|\[Context: \d{1,3}% \||Pre-compaction memory flush"
    r"|\[OpenClaw heartbeat poll\]|Read HEARTBEAT\.md|\[Bootstrap pending\]|\[Subagent Context\]"
    r"|(?:NO_REPLY|HEARTBEAT_OK)\s*$)"
)


def strip_envelope(text: str) -> str:
    """The user's own words: ``text`` without OpenClaw's envelope.

    Removes ``Sender (untrusted metadata):`` blocks, paragraphs of ``System: [...]`` event lines, ``[message_id:
    ...]`` lines and a leading ``[Wed 2026-05-06 16:13 GMT+5:30]`` timestamp.
    """
    text = _MESSAGE_ID.sub("", _METADATA_BLOCK.sub("", text))
    paragraphs = [p for p in re.split(r"\n[ \t]*\n", text) if not p.lstrip().startswith("System: [")]
    return _TIMESTAMP.sub("", "\n\n".join(paragraphs).strip()).strip()


def is_real_user_message(text: str) -> bool:
    """True if the text of a ``user``-role message was typed by a person, not injected by the runtime.

    Rejects: checkpoint data (``<checkpoint-data``, checkpoint schema), compaction and branch summaries (pi's
    "The conversation history before this point was compacted", OpenClaw's "Summary unavailable", Claude
    Code's "This session is being continued"), gauge lines (``[Context: 81% | ...]``, "Token utilization:"),
    heartbeat polls and prompts (``[OpenClaw heartbeat poll]``, "Read HEARTBEAT.md"), bootstrap and
    sub-agent context, the pre-compaction memory flush, bare ``NO_REPLY``/``HEARTBEAT_OK``, and messages that
    are only envelope (``System: [...]`` events, sender metadata, timestamps). A message with ``System:``
    lines *and* user text is real; use :func:`strip_envelope` for its text.

    Misses: injections this list does not know (it must grow with the runtimes), and a person who pastes one
    of these markers on purpose is treated as injected. Empty text (an image-only message) is ``False``:
    there is nothing to quote. The caller checks the role.
    """
    if any(marker in text for marker in _INJECTED_MARKERS):
        return False
    body = strip_envelope(text)
    return bool(body) and not _INJECTED_PREFIX.match(body)


# --- open items ---------------------------------------------------------------------------------------

_OPEN_LABEL = re.compile(
    r"^(?:todo|to do|fixme|next steps?|next|open questions?|open items?|follow[- ]?ups?|blocked on|blockers?"
    r"|pending|still to do|action items?|sledec[ia] kora(?:k|ci)|otvorena pitanja|otvoreno pitanje"
    r"|preostalo|jos treba)\s*[:–-]\s*(?P<rest>.*)$"
)
# A line ending in ":" that announces open work ("Here's what is still open:") heads a list of items.
_OPEN_HEADER = re.compile(
    r"\b(?:still open|open items?|open questions?|outstanding|remaining|pending|todos?|to do|next steps?"
    r"|follow[- ]?ups?|blocked|otvoren\w*|preostal\w*|sledec\w* kora\w*)\b[^:]*:$"
)
_CHECKBOX = re.compile(r"^[-*+]\s+\[ \]\s+(?P<rest>\S.*)$")


def _questions(line: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(line) if s.endswith("?") and len(extract_keywords(s)) >= 3]


def is_open_item_line(line: str) -> bool:
    """Whether ``line`` states open work by its form: an unchecked task box or a ``TODO:``-style label with text
    (a line that is an open item is never also a decision)."""
    if _CHECKBOX.match(line):
        return True
    label = _OPEN_LABEL.match(fold(clean(line)))
    return bool(label and label.group("rest"))


def extract_open_items(text: str) -> tuple[str, ...]:
    """Open items a message leaves behind, in order, deduplicated, each capped at 200 chars.

    Catches: unchecked task boxes (``- [ ] ...``); lines labelled ``TODO:``, ``FIXME:``, ``Next steps:``,
    ``Open question:``, ``Blocked on:``, ``Follow-up:`` (and Serbian ``Sledeći korak:``, ``Otvoreno
    pitanje:``); the list items under a bare label or under a header announcing open work ("Here's what is
    still open:", "evo šta je još otvoreno:"); and questions left for the user --
    question sentences in list items or in the last paragraph (at least three content words, so "Sound
    good?" is not an item). Code fences and block quotes are ignored.

    Misses: open work stated as plain prose ("the export command still reads from the API"), rhetorical
    questions in a final paragraph are kept, and questions in the middle of a response are not.
    """
    lines = prose_lines(text)
    start = max((i for i, ln in enumerate(lines) if ln), default=0)
    while start > 0 and lines[start - 1]:
        start -= 1  # first line of the last paragraph
    items: list[str] = []
    under_label = False
    for index, line in enumerate(lines):
        if not line:
            continue
        if line.startswith((">", "|")):
            under_label = False
            continue
        box = _CHECKBOX.match(line)
        is_item = bool(_LIST_MARK.match(line))
        cleaned = clean(box.group("rest") if box else line)
        label = None if box else _OPEN_LABEL.match(fold(cleaned))
        if label and label.group("rest"):
            items.append(re.sub(r"^.*?(?::|\s[–-])\s*", "", cleaned, count=1))
            under_label = False
            continue
        if not box and (label or _OPEN_HEADER.search(fold(cleaned))):
            under_label = True
            continue
        under_label = under_label and is_item
        if box or under_label:
            items.append(cleaned)
        elif is_item:
            # One list item is one point the agent raises, with its follow-up ("**Where does `feature_requests/`
            # live?** — Is it at the repo root …?", napoli-matcha d83): one item, not one per sentence.
            items.append(" ".join(_questions(cleaned)))
        elif index >= start:
            items.extend(_questions(cleaned))
    return dedupe(_truncate(item) for item in items if item)


# --- learnings ----------------------------------------------------------------------------------------

_CORRECTION = re.compile(
    r"^(?:no|nope|ne|wrong|actually|not like that|that's (?:wrong|not (?:right|what i))|i said|i told you"
    r"|instead|zapravo|u stvari|pogresno|nije tako|rekao sam|rekla sam)\b[\s,.!:;—–-]*"
)
_STANDING = re.compile(
    r"^(?:please )?(?:don't|do not|never|always|stop|avoid|from now on|going forward|in (?:the )?future"
    r"|i prefer|i'd rather|i would rather|make sure (?:to|you)|remember (?:to|that)"
    r"|nemoj|nemojte|nikad|nikada|uvek|ubuduce|od sada|radije|zapamti)\b"
)


def extract_learnings(user_text: str, prior_agent_text: str = "") -> tuple[str, ...]:
    """Sentences in which the user corrects the agent or states a standing preference.

    Catches: replies opening with a correction ("no, use X", "actually ...", "that's wrong", "I said ...",
    Serbian "ne, ...", "zapravo ...") when the agent had not just asked a question (then "no" is an answer,
    not a correction); and any sentence opening with a standing instruction ("don't ...", "never ...",
    "always ...", "from now on ...", "I prefer ...", Serbian "nemoj", "uvek", "ubuduće"). Injected messages
    (see :func:`is_real_user_message`) give nothing; envelopes are stripped; each learning is the user's
    sentence, capped at 200 characters.

    A correction phrased as a question ("actually, can you revert that?") is a request, not a learning.

    Misses: corrections without a marker ("you broke the component, try again"), preferences stated
    mid-sentence, and whether a correction is durable or only about the task at hand.
    """
    if not is_real_user_message(user_text):
        return ()
    body = strip_envelope(user_text)
    sentences = [" ".join(s.split()) for s in _SENTENCE_END.split(body) if s.strip()]
    asked = prior_agent_text.rstrip().endswith("?")
    found: list[str] = []
    for position, sentence in enumerate(sentences):
        key = fold(sentence)
        # "actually, can you revert that?" asks for a change; it states no rule to keep.
        correction = position == 0 and not asked and not sentence.endswith("?") and _CORRECTION.match(key)
        if (correction and len(extract_keywords(sentence)) >= 2) or _STANDING.match(key):
            found.append(sentence)
    return dedupe(_truncate(s) for s in found)
