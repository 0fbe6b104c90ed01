"""Mechanical extraction from conversation text: decisions, real user messages, open items, learnings.

SPEC §4 and seed 001 issues 1 and 3. No LLM: each function is a text heuristic that prefers returning
nothing over returning noise, and its docstring says what it catches and what it misses. The seed's exact
rules stay available (``*_seed``) so ``bench/quality.py`` can report both.
"""

from __future__ import annotations

import re

from engine.capture.dedup import dedupe, extract_keywords, fold

__all__ = [
    "DECISION_MAX_CHARS",
    "extract_decision_from_response",
    "extract_decision_from_response_seed",
    "extract_learnings",
    "extract_open_items",
    "is_real_user_message",
    "is_real_user_message_seed",
    "strip_envelope",
]

DECISION_MAX_CHARS = 200
"""Cap, in characters, on a captured decision, open item or learning (seed 001)."""

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_LIST_MARK = re.compile(r"^(?:[-*+•]|\d+[.)])\s+")
_HEADING = re.compile(r"^#{1,6}\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")


def _wordlist(text: str) -> tuple[str, ...]:
    return tuple(text.split())


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


def _clean(line: str) -> str:
    """A line without list markers, emphasis markers or heading hashes, whitespace collapsed."""
    line = _LIST_MARK.sub("", _HEADING.sub("", line.strip()))
    return " ".join(line.replace("**", "").replace("__", "").split())


# --- decisions: seed 001 rules, verbatim -------------------------------------------------------------

_SEED_TIER1 = re.compile(r"^(Decision:|Plan:|Approach:|Going with|Chose|Choosing)", re.I)
_SEED_TIER2 = re.compile(
    r"^(I'll|We'll|Let's|I will|We will|I'm going to|We're going to"
    r"|The approach is|The plan is|The fix is|The solution is)",
    re.I,
)
_SEED_BOLD_BULLET = re.compile(r"^[-*]\s+\*\*[^*]+\*\*")
_SEED_LIST = re.compile(r"^(?:[-*]\s|\d+\.\s)")
_SEED_FILLER = re.compile(r"^(you're right|ohoho|haha|hmm|well,|okay so|sure,|yeah|ok |ah |oh )", re.I)
_SEED_VERBS = _wordlist(
    "use add remove replace create implement switch move keep skip merge split export import change fix "
    "update deploy persist store read write inject filter track chose decided"
)
_SEED_VERB = re.compile(r"\b(?:" + "|".join([*_SEED_VERBS, "going with"]) + r")\b", re.I)


def _seed_passes(line: str) -> bool:
    """Seed quality gate; "a colon after a keyword" is read as a letter directly followed by ``:``."""
    if _SEED_FILLER.match(line) or line.endswith("?"):
        return False
    return bool(
        _SEED_VERB.search(line) or line.startswith("**") or re.match(r"^[-*]\s", line) or re.search(r"[^\W\d]:", line)
    )


def extract_decision_from_response_seed(text: str) -> str | None:
    """Seed 001 issue 1 exactly: four tiers over non-code lines, per-line quality gate, first best match.

    The line is returned as written (bullets and bold kept), truncated to 200 characters.
    """
    best: tuple[int, int, int, str] | None = None
    for index, line in enumerate(_prose_lines(text)):
        if not line:
            continue
        rank = 0
        if _SEED_TIER1.match(line):
            tier = 1
        elif _SEED_TIER2.match(line):
            tier = 2
        elif line.startswith("**") or _SEED_BOLD_BULLET.match(line):
            tier = 3
        elif _SEED_LIST.match(line) and (verb := _SEED_VERB.search(line)):
            tier = 4
            rank = 0 if len(line[: verb.start()].split()) < 5 else 1  # verb within the first five words
        else:
            continue
        if _seed_passes(line) and (best is None or (tier, rank, index) < best[:3]):
            best = (tier, rank, index, line)
    return _truncate(best[3]) if best else None


# --- decisions: default rules -------------------------------------------------------------------------
# Patterns run on folded text (lower case, no diacritics), so "Rešenje" and "resenje" both match.

_LABELS = (
    "decision|plan|plana|approach|recommendation|verdict|solution|fix"  # English (and Serbian "plan(a)")
    "|odluka|pristup|preporuka|predlog|resenje"  # Serbian
    "|entscheidung|ansatz|empfehlung|vorschlag|losung"  # German
    "|enfoque|recomendacion|propuesta|solucion"  # Spanish ("decision", "plan" as in English)
)
_LABEL = re.compile(
    r"^(?:here'?s |here is |this is |evo |so )?(?:(?:my|our|the|final|moj|moja|nas|nasa|unser|unsere|"
    r"der|die|el|la|mi|nuestra|nuestro) )?(?:" + _LABELS + r")\s*:\s*(?P<rest>.*)$"
)
_CHOICE = re.compile(
    r"^(?:(?:(?:i|we)(?:'ve| have|'m| am|'re| are|'ll| will)? |let's )?(?:going|go|went|gone) with"
    r"|(?:(?:i|we)(?:'ve| have)? )?(?:chose|choosing|picked|selected|settled on|opted for|opting for"
    r"|decided (?:to|on|that))"
    r"|(?:idemo|idem|krecemo) (?:sa|s|na)|uzimamo|biramo|izabrali smo|odlucili smo|odlucio sam|odlucila sam"
    r"|wir (?:nehmen|entscheiden uns|haben uns fur)|vamos con|nos quedamos con|elegimos|optamos por"
    r"|decidimos)\b"
)
_THE_X_IS = re.compile(
    r"^(?:(?:the|our|my|die|der|el|la|nase|nas|moje|moj) )?(?:approach|plan|fix|solution|decision|choice"
    r"|recommendation|resenje|pristup|odluka|predlog|preporuka|losung|ansatz|entscheidung|solucion|enfoque)"
    r" (?:is|will be|je|ist|es)\b"
)
_INTENT = re.compile(
    r"^(?:i'll|i will|we'll|we will|let's|let us|i'm going to|we're going to|i am going to|we are going to"
    r"|ich werde|wir werden|voy a|vamos a) (?:also |then |now |just |first |probably )?(?P<rest>.*)$"
)
# Intent to gather information, to wait or to talk is not a decision ("Let's see what the logs say").
_EXPLORATORY = re.compile(
    r"^(?:see|check|look|investigate|find|figure|dig|verify|confirm|try|test|report|ping|ask|think|wait"
    r"|explore|review|need|have|be|explain|show|walk|describe|summarize|clarify|answer|outline|pull|fetch"
    r"|grab|gather|collect|read|let you|keep (?:you|an eye)|take a (?:look|step|closer)|get back|follow up"
    r"|circle back|go (?:through|over))\b"
)
_ORDINAL_REFERENCE = re.compile(
    r"\b(?:first|second|third|last|other|prva|druga|treca|poslednja|erste|zweite|primera|segunda) "
    r"(?:option|one|approach|choice|opcija|varijanta|opcion|option)\b|\boption [a-c1-3]\b"
)
_FILLER = re.compile(
    r"^(?:you're right|ohoho|haha|hmm|well,|okay|ok\b|sure|yeah|ah\b|oh\b|sorry|thanks|great|done|got it|aha)"
)
_BOLD_LED = re.compile(r"^(?:[-*+]\s+)?\*\*[^*]+\*\*")
_ACTION_STEMS = _wordlist(
    "use add remov replac creat implement switch mov keep skip merg split export import chang fix updat "
    "deploy persist stor writ inject filter track chos chose migrat drop delet enabl disabl upgrad install "
    "configur renam refactor rewrit roll ship run adopt introduc"
)
_ACTION = re.compile(r"\b(?:" + "|".join(_ACTION_STEMS) + r")(?:e|es|ed|d|s|ing|ting|ping)?\b")


def _good_decision(text: str) -> bool:
    """Quality gate: a self-contained statement with content, not a question, not filler."""
    key = fold(text)
    return bool(
        text
        and not text.endswith("?")
        and not _FILLER.match(key)
        and not _ORDINAL_REFERENCE.search(key)
        and len(extract_keywords(text)) >= 2
    )


def _tier(key: str) -> int:
    """Priority of a cleaned, folded line as a decision statement (0 = not one)."""
    if _LABEL.match(key) or _CHOICE.match(key):
        return 1
    if _THE_X_IS.match(key):
        return 2
    intent = _INTENT.match(key)
    if intent and not _EXPLORATORY.match(intent.group("rest")):
        return 3
    return 0


def extract_decision_from_response(text: str) -> str | None:
    """The decision an agent response states, or ``None`` (seed 001 issue 1, default rules).

    Tiers, best first, over lines outside code fences, block quotes and tables: (1) labels and choice verbs --
    ``Decision:``/``Plan:``/``Approach:``/``My recommendation:``, ``Going with``/``went with``/``Chose``/
    ``decided to``, with Serbian, German and Spanish equivalents (``Rešenje:``, ``Idemo sa``, ``Uzimamo``,
    ``Entscheidung:``, ``Vamos con``); a bare ``Plan:``/``Here's the plan:`` header yields the line after it;
    (2) ``The fix/solution/approach/plan is ...``; (3) ``I'll``/``We'll``/``Let's`` + a verb that is not
    exploratory (``Let's see``, ``I'll check``, ``I'll report back`` are skipped); (4) a bold heading or
    bold-led bullet with an action verb, only when it is the response's single bold-led line (several are a
    comparison of options or a glossary). Within a tier the first line wins. The result has list and bold
    markers removed and must pass a gate: not a question, not filler, at least two content words, and not an
    ordinal reference such as "the second option" that means nothing out of context. A marker may also open a
    later sentence of a line ("You're right, sorry. I'll revert ..."); then that sentence is the result.
    Capped at 200 characters.

    Misses: decisions phrased without a marker ("Thursday works, booked"), choices made by reference to an
    option list, future tense in languages that mark it on the verb (Serbian "uradiću"), and anything that is
    only in the user's reply. Plain action-verb bullets are not used (seed tier 4): in practice they are
    advice, summaries of finished work or option lists far more often than decisions.
    """
    lines = _prose_lines(text)
    bold_led = sum(1 for line in lines if _BOLD_LED.match(line))
    best: tuple[int, int, int, str] | None = None
    for index, line in enumerate(lines):
        if not line or line.startswith((">", "|")):
            continue
        cleaned = _clean(line)
        # The whole line first, then each later sentence ("You're right, sorry. I'll revert ...").
        for order, sentence in enumerate([cleaned, *_SENTENCE_END.split(cleaned)[1:]]):
            key = fold(sentence)
            tier = _tier(key)
            label = _LABEL.match(key) if order == 0 else None
            candidate = sentence
            if label and not label.group("rest"):
                # A header such as "Plan:" introduces the decision on the next prose line.
                following = next((ln for ln in lines[index + 1 :] if ln and not ln.startswith((">", "|"))), "")
                candidate = _clean(following)
            elif not tier and order == 0 and bold_led == 1 and _BOLD_LED.match(line) and _ACTION.search(key):
                tier = 4
            if tier and _good_decision(candidate) and (best is None or (tier, index, order) < best[:3]):
                best = (tier, index, order, candidate)
    return _truncate(best[3]) if best else None


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
    """The user's own words: ``text`` without OpenClaw's envelope (reference/FORMATS.md §3.5).

    Removes ``Sender (untrusted metadata):`` blocks, paragraphs of ``System: [...]`` event lines, ``[message_id:
    ...]`` lines and a leading ``[Wed 2026-05-06 16:13 GMT+5:30]`` timestamp.
    """
    text = _MESSAGE_ID.sub("", _METADATA_BLOCK.sub("", text))
    paragraphs = [p for p in re.split(r"\n[ \t]*\n", text) if not p.lstrip().startswith("System: [")]
    return _TIMESTAMP.sub("", "\n\n".join(paragraphs).strip()).strip()


def is_real_user_message_seed(text: str) -> bool:
    """Seed 001 issue 3 exactly: rejects checkpoint data, two summary prefixes and two gauge prefixes."""
    if "<checkpoint-data" in text or "schema: openclaw/checkpoint" in text:
        return False
    if text.startswith(("Summary unavailable", "This summary covers")):
        return False
    return not text.startswith(("Token utilization:", "## Token Gauge"))


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
    lines = _prose_lines(text)
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
        cleaned = _clean(box.group("rest") if box else line)
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
        elif is_item or index >= start:
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
    """Sentences in which the user corrects the agent or states a standing preference (seed 000 §5.3).

    Catches: replies opening with a correction ("no, use X", "actually ...", "that's wrong", "I said ...",
    Serbian "ne, ...", "zapravo ...") when the agent had not just asked a question (then "no" is an answer,
    not a correction); and any sentence opening with a standing instruction ("don't ...", "never ...",
    "always ...", "from now on ...", "I prefer ...", Serbian "nemoj", "uvek", "ubuduće"). Injected messages
    (see :func:`is_real_user_message`) give nothing; envelopes are stripped; each learning is the user's
    sentence, capped at 200 characters.

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
        correction = position == 0 and not asked and _CORRECTION.match(key)
        if (correction and len(extract_keywords(sentence)) >= 2) or _STANDING.match(key):
            found.append(sentence)
    return dedupe(_truncate(s) for s in found)
