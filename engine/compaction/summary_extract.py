"""What a summarized span adds to the summary: decisions, constraints, open TODOs, blockers, completions,
pending user asks, exact identifiers, and the split turn's context. No LLM.

Every text is redacted (:func:`engine.capture.redact.redact_secrets`) before anything is extracted from it, so
no item or identifier can hold part of a secret that redacting the finished summary would no longer recognise.
The rules, per message (the capture heuristics of :mod:`engine.capture.decisions`, applied line by line so that
every marked statement counts, not only the best one):

* assistant text — a decision per line that states one (``Decision:``, ``Going with``, ``We'll …``, ``The fix
  is …``); open items (``TODO:``, ``Next steps:``, ``- [ ]``, questions left for the user); ``Blocked on: …``
  lines as blockers; completion lines (``Done: …``, ``Completed: …``, ``Fixed: …``, ``Resolved: …``, ``✅ …``,
  ``- [x] …``), which resolve the TODOs and asks they match;
* user text (real messages only, envelope stripped) — corrections and standing preferences as constraints
  (``Don't …``, ``Always …``, ``From now on …``); the message itself as a pending ask when it carries at least
  three content words and is not only such a preference; an item the ledger clipped shows more of the message's
  leading whole sentences and then its later sentences that set direction (:func:`with_directions`);
* the agent's closing message of a turn (the user speaks next) — the first items of a list under a header of its
  own that name a file, flag or symbol, as done work; any agent sentence that restates a user's rule ("according
  to your instructions …") as a context item;
* identifiers (:mod:`engine.compaction.identifiers`) from user and assistant text, and paths and URLs from tool
  call arguments and shell commands — never from tool output, which is mostly noise.

Items are whole: an extractor's 200-character cut is undone from the source line, and a long ask is shortened to
its leading whole sentences with a pointer to the entry that holds it verbatim.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from engine.capture.acts import read_user_turn
from engine.capture.decisions import (
    is_real_user_message,
    strip_envelope,
)
from engine.capture.envelopes import user_words
from engine.capture.ledger import Ledger, fold_agent, fold_user, ledger_at_end
from engine.capture.redact import redact_obj, redact_secrets
from engine.capture.tool_answers import fold_answers, tool_answers
from engine.capture.whole_text import ELLIPSIS, flatten, whole_sentences
from engine.compaction.identifiers import (
    OPENCLAW_AUDIT_IDENTIFIERS,
    OPENCLAW_AUDIT_MESSAGES,
    audit_identifiers,
    extract_identifiers,
    reported_commits,
    state_commands,
)
from engine.compaction.item_wording import whole_short_message
from engine.compaction.span_text import MessageParts, SpanMessage, short_tool_call

__all__ = ["ASK_CHARS", "SpanFact", "SpanFacts", "TurnContext", "redacted_parts", "span_facts", "turn_context"]

_OUTPUT_ROLES: Final = ("toolResult", "bashExecution")
_AUDIT_MARGIN: Final = 4
"""Extra identifiers kept beyond OpenClaw's twelve: text and tool calls of one message are read in block order
there, here text first, so the twelfth may differ by a few."""
ASK_CHARS: Final = 400
"""A pending ask longer than this keeps its leading whole sentences and points at its entry."""
_LOCATION_KEYS: Final = frozenset({"path", "file_path", "filePath", "file", "url", "uri", "cwd", "directory", "dir"})
_USER_LEAD_CHARS: Final = 800
"""How much of a long user message a summary item shows as whole sentences (the ledger's item shows 300
characters): the user's own words are what later turns are measured against."""
_DIRECTION_CHARS: Final = 500
"""How much of a long user message's later direction (instructions, rules, deferrals) a clipped item adds."""
_DIRECTING: Final = re.compile(
    r"\b(?:let'?s|let us|please|keep|for now|i(?:'d| would) like|we should|we(?:'ll| will) (?:use|keep|go))\b",
    re.IGNORECASE,
)
"""Sentences that direct the work although capture reads no instruction in them ("I think let's keep the header
for now"): a clipped user item keeps them too."""
_RESTATED_RULE: Final = re.compile(
    r"\b(?:you said|you asked (?:me )?(?:to|not to|for)|(?:according to|per|following) your (?:instructions?"
    r"|preferences?|rules?|request)|as you (?:requested|asked|said|instructed|prefer(?:red)?)"
    r"|since you (?:wanted|want|asked|said|prefer))\b",
    re.IGNORECASE,
)
"""The agent restating a rule the user set ("According to your instructions, I should avoid using '&&'")."""
_REPORT_ITEMS: Final = 6
_REPORT_ITEM_CHARS: Final = 240
"""A closing message's list under its own header: the first items, each short enough to be one fact (a long
item is an explanation, not a thing built)."""
_REPORT_CHARS: Final = 360
"""The longest part of such a list kept as one item (header and items; a longer list is kept in parts): the
summary's budget is shared with every other item, and at 480 the longer items left out other identifiers."""
_PLUGIN_COMMAND: Final = re.compile(r"<command-name>\s*(/[\w.-]+:[\w.-]+)\s*</command-name>")
"""A plugin's slash command the user ran (``/kitchen:recipe``), which the envelope strip removes: it names the
skill that shaped the turn; the client's own commands (``/clear``, ``/model``) name nothing in the work."""
_SUBAGENT_TOOLS: Final = frozenset({"Task", "Agent"})
"""Claude Code's tools that run a sub-agent: the result is that agent's report, prose written for this one."""
_SUBAGENT_IDENTIFIERS: Final = 3
"""Identifiers kept from the head of a sub-agent's report, where it names what it found or did (``GitSyncService``
in ``/apps/api/src/services/git-sync.ts``; the decision ``dec-feb24b59`` it recorded); a long report names a
hundred more, which would crowd the session's own out of the summary's budget."""
_SUBAGENT_TRAILER: Final = re.compile(r"^agentId: ", re.MULTILINE)
"""Claude Code's trailer under a sub-agent's report (its id for resuming, its usage): harness, not the report."""
_SHORT_ARGUMENT: Final = 200
"""Tool-call arguments up to this many characters are read for paths and URLs whatever their name."""
_FENCE: Final = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_DONE: Final = re.compile(
    r"^(?:[-*+]\s+\[[xX]\]\s+|✅\s*|done[.!]\s+|(?:done|completed|fixed|finished|resolved|shipped)\s*[:–—-]\s+)"
    r"(?P<rest>\S.*[^:])$",
    re.IGNORECASE,
)
_BLOCKED: Final = re.compile(
    r"^(?:[-*+]\s+)?(?:\*\*)?(?:blocked(?: on| by)?|blocker)(?:\*\*)?\s*[:–—-]\s*(?P<rest>\S.*)$", re.IGNORECASE
)
_MARKER: Final = re.compile(r"^(?:[-*+•]\s+|\d+[.)]\s+)")
_DONE_HEADER: Final = re.compile(
    r"^(?:\*\*|#+\s*)?(?:done[.!]|(?:completed|done|finished|accomplished|changes made|what (?:was|i) (?:done|did)"
    r"|summary of changes)\b[^:]*:(?:\*\*)?$)",
    re.IGNORECASE,
)
"""A report of finished work: ``Done.``/``Done!`` opening a message, or a ``Completed:`` header; the list
items after it are completions."""
_OPEN_WORK: Final = re.compile(
    r"\b(?:remaining|still|open|todo|to do|next|pending|left|outstanding|follow[- ]?ups?|blocked)\b", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class SpanFact:
    """One item the span states."""

    kind: str
    """``decisions``, ``constraints``, ``todos``, ``blocked``, ``asks``, ``done`` (a completion statement, matched
    loosely), ``closed`` (a request the conversation closed: it closes that very item) or ``context`` (a rule the
    agent restates as the user's)."""
    text: str
    entry_id: str
    order: int
    """Position of its message in the span."""


@dataclass(frozen=True, slots=True)
class TurnContext:
    """pi's split-turn block: the turn's request and what happened before the cut."""

    request: str
    progress: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SpanFacts:
    """Everything the span contributes, in message order."""

    facts: tuple[SpanFact, ...] = ()
    identifiers: tuple[tuple[str, str], ...] = ()
    """``(identifier, entry id)`` in order of first appearance."""
    goal: str = ""
    status: tuple[str, ...] = ()
    texts: tuple[str, ...] = ()
    """The redacted text of each user and assistant message, for counting references."""
    turn: TurnContext | None = None
    audit_ids: tuple[str, ...] = ()
    """The tokens holding the first identifiers OpenClaw's quality audit looks for (a few more, for margin)."""
    latest_user: str = ""
    """The last real user message of the span, envelope stripped."""


def redacted_parts(parts: MessageParts) -> MessageParts:
    """``parts`` with secrets redacted in its text, command and tool-call arguments (thinking left out).

    Tool output (``toolResult``, ``bashExecution`` text) is the bulk of a span and nothing but the audit's
    identifier scan reads it: it is left as is here and redacted by that scan, message by message, as far as
    the scan goes (:func:`span_facts`).
    """
    calls = tuple((name, redact_obj(args)) for name, args in parts.tool_calls)
    output = parts.role in _OUTPUT_ROLES
    return replace(parts, text=parts.text if output else redact_secrets(parts.text), thinking="", tool_calls=calls,
                   command=redact_secrets(parts.command) if parts.command is not None else None)


def _prose(text: str) -> list[str]:
    """Stripped lines outside code fences."""
    out: list[str] = []
    fence = ""
    for raw in text.splitlines():
        opener = _FENCE.match(raw)
        if fence:
            if opener and raw.strip().startswith(fence):
                fence = ""
            continue
        if opener:
            fence = opener.group(1)
            continue
        if raw.strip():
            out.append(raw.strip())
    return out


def _clean(line: str) -> str:
    return flatten(_MARKER.sub("", line).replace("**", ""))


def _locations(arguments: Mapping[str, Any]) -> list[str]:
    texts: list[str] = []
    commands: list[str] = []
    for key, value in arguments.items():
        if not isinstance(value, str):
            continue
        if (key in _LOCATION_KEYS or key in ("command", "cmd")) and len(value) <= 4000:
            texts.append(value)
            commands += state_commands(value) if key in ("command", "cmd") else []
        elif len(value) <= _SHORT_ARGUMENT:
            # A short argument under another name (a tool's ``summary`` or ``pattern``) still names the file it
            # works on; long ones (file content, edits) are code, whose paths are imports, not the session's.
            texts.append(value)
    return commands + extract_identifiers(texts, locations_only=True)


class _Report:
    """A closing message's list under a header of its own, kept as one item: the header and its short items.

    An agent states one decision across the list ("Now the script has flexible options:" / "Default behavior:
    inline images" / "`--use-files-api`: uploads"); as separate items, or only the items that name something,
    the summary keeps the flag without the default it departs from. docs/compaction.md, Retention on real
    sessions, round 3."""

    def __init__(self) -> None:
        self.header = ""
        self.items: list[str] = []
        self.named = False

    def open(self, line: str, entry_id: str, order: int) -> list[SpanFact]:
        """Start the list under ``line``; the facts of the list it ends."""
        # A heading right under a header that has no items yet ("… from 2 sources:" / "## Causes:") keeps the
        # header that says what the list is about.
        if self.header and not self.items and line.lstrip().startswith("#"):
            return []
        closed = self.close(entry_id, order)
        self.header = _last_sentence(line)
        return closed

    def add(self, item: str, line: str, entry_id: str, order: int) -> list[SpanFact]:
        """Add a short item; the facts of the part of the list it does not fit in with (a long list is kept as
        several items, the header on the first)."""
        if len(item) > _REPORT_ITEM_CHARS:
            return []
        closed: list[SpanFact] = []
        if self.items and len(self.header) + sum(len(i) + 2 for i in self.items) + len(item) > _REPORT_CHARS:
            header = self.header
            closed = self.close(entry_id, order)
            self.header = "" if closed else header
        self.items.append(item)
        self.named = self.named or bool(extract_identifiers([line]))
        return closed

    def close(self, entry_id: str, order: int) -> list[SpanFact]:
        """The list as one done item when an item names a file, flag or symbol (else an explanation)."""
        items, named, header = self.items, self.named, self.header
        self.header, self.items, self.named = "", [], False
        if not named:
            return []
        return [SpanFact("done", f"{header} {'; '.join(items)}".strip(), entry_id, order)]


def _last_sentence(line: str) -> str:
    """The header's own sentence ("Perfect! Now it has options:" -> "Now it has options:"), heading marks and bold
    removed."""
    text = _clean(line.lstrip("#").strip())
    cut = max(text.rfind(". "), text.rfind("! "), text.rfind("? "))
    return text[cut + 2:] if cut >= 0 else text


def _assistant_facts(text: str, entry_id: str, order: int, *, closing: bool = False) -> list[SpanFact]:
    """Completions and blockers of one agent message; ``closing``: the message ends the agent's turn (the user
    speaks next), so a list under any header of its own ("The script now supports:") reports what was built."""
    facts: list[SpanFact] = []
    reporting = False
    loose = 0  # items left to take under a header of the closing message's own (0: a completion header's list)
    report = _Report()
    for line in _prose(text):
        for sentence in _RESTATED_RULE.finditer(line):
            said = _sentence_around(line, sentence.start(), sentence.end())
            if said and not said.endswith("?"):
                facts.append(SpanFact("context", f"Agent, restating the user: {said}", entry_id, order))
        is_item = bool(_MARKER.match(line))
        if _DONE_HEADER.match(line):
            facts += report.close(entry_id, order)
            reporting, loose = True, 0
            continue
        if closing and not is_item and line.endswith((":", ":**")) and not _OPEN_WORK.search(line) \
                and "?" not in line:
            facts += report.open(line, entry_id, order)
            reporting, loose = True, _REPORT_ITEMS
            continue
        if reporting and is_item:
            item = _clean(line)
            if loose == 0:
                facts.append(SpanFact("done", item, entry_id, order))
            else:
                facts += report.add(item, line, entry_id, order)
                loose -= 1
                reporting = loose > 0
                if not reporting:
                    facts += report.close(entry_id, order)
            continue
        if reporting and not line.startswith("#"):
            # A heading keeps the report going; another list header or prose ends it.
            reporting = line.endswith((":", ":**")) and not _OPEN_WORK.search(line)
            facts += report.close(entry_id, order)
        done = _DONE.match(line)
        blocked = _BLOCKED.match(line)
        if done or blocked:
            rest = _clean((done or blocked).group("rest"))  # type: ignore[union-attr]
            facts.append(SpanFact("done" if done else "blocked", rest, entry_id, order))
    facts += report.close(entry_id, order)
    return facts


def _sentence_around(line: str, start: int, end: int) -> str:
    """The whole sentence of ``line`` that holds ``line[start:end]``, cleaned of list markers and bold."""
    left = max(line.rfind(". ", 0, start), line.rfind("! ", 0, start), line.rfind("? ", 0, start))
    right = min((i for i in (line.find(". ", end), line.find("! ", end), line.find("? ", end)) if i >= 0),
                default=len(line) - 1)
    return _clean(line[left + 2 if left >= 0 else 0:right + 1])


def with_directions(item: str, message: str) -> str:
    """A user item the ledger clipped (``… ``) as the message's leading whole sentences (up to
    :data:`_USER_LEAD_CHARS`), then the later whole sentences that set direction: instructions, standing rules
    and deferrals, not questions. A long message often asks first and sets its rules last ("… Also, let's keep
    the header for now"); the clipped lead alone would lose them."""
    if not item.endswith(ELLIPSIS) or not message:
        return item
    shown = flatten(item.removesuffix(ELLIPSIS))
    full = flatten(message)
    if not full.startswith(shown):
        return item  # the item is a paste's prose or a rewording, not the message's lead
    longer = whole_sentences(message, _USER_LEAD_CHARS).removesuffix(ELLIPSIS).rstrip()
    lead, extra, used = longer if len(longer) > len(shown) and full.startswith(longer) else shown, [], 0
    for sentence in read_user_turn(message, False).sentences:
        directing = sentence.instruction or sentence.preference or sentence.deferral or _DIRECTING.search(
            sentence.text)
        if not directing or sentence.question:
            continue
        text = flatten(sentence.text)
        start = full.find(text)
        if start < 0 or start + len(text) <= len(lead) or used + len(text) > _DIRECTION_CHARS:
            continue
        if start < len(lead):
            lead = full[:start + len(text)]  # the cut fell inside this sentence: show it to its end
        else:
            extra.append(text)
        used += len(text)
    if lead == shown and not extra:
        return item
    rest = full[len(lead):].strip()
    said = " … ".join([lead, *extra])
    return said if not rest or (extra and full.endswith(extra[-1])) else f"{said} {ELLIPSIS}"


def _closing_messages(span: Sequence[SpanMessage]) -> set[int]:
    """Positions of the agent messages after which a real user message comes next (tool results between)."""
    closing: set[int] = set()
    last_agent: int | None = None
    for order, s in enumerate(span):
        if s.parts.role == "assistant" and s.parts.text.strip():
            last_agent = order
        elif s.parts.role == "user" and is_real_user_message(s.parts.text) and last_agent is not None:
            closing.add(last_agent)
            last_agent = None
    return closing


def turn_context(prefix: Sequence[SpanMessage]) -> TurnContext:
    """pi's split-turn block for the turn prefix ``prefix`` (whole sentences, tool calls without long values)."""
    first = next((s for s in prefix if s.parts.role in ("user", "bashExecution", "custom")), None)
    request = ""
    if first is not None:
        text = strip_envelope(first.parts.text) if first.parts.role == "user" else (first.parts.command or
                                                                                    first.parts.text)
        request = whole_sentences(text, 600)
        if request.endswith(ELLIPSIS):
            request += f" (full text: entry {first.message.entry_id})"
    progress: list[str] = []
    for s in prefix:
        if s.parts.role != "assistant":
            continue
        if s.parts.text.strip():
            line = whole_sentences(s.parts.text, 300)
            progress.append(line + f" (full text: entry {s.message.entry_id})" if line.endswith(ELLIPSIS) else line)
        progress += [short_tool_call(name, args) for name, args in s.parts.tool_calls]
    return TurnContext(request, tuple(progress))


def span_facts(span: Sequence[SpanMessage], *, turn_start: int | None = None, audit: bool = False) -> SpanFacts:
    """The facts of ``span`` (its parts must already be redacted: :func:`redacted_parts`); with ``audit``, also
    the identifiers OpenClaw's quality audit will look for."""
    facts: list[SpanFact] = []
    identifiers: dict[str, str] = {}
    texts: list[str] = []
    goal = ""
    # The user's side comes from the same ledger as the checkpoint (docs/capture.md): one set of items.
    ledger = Ledger()
    said: dict[str | None, str] = {}
    orders: dict[str | None, int] = {}
    last_when: str | None = None
    closing = _closing_messages(span)
    for order, s in enumerate(span):
        parts, entry_id = s.parts, s.message.entry_id
        if parts.role == "user":
            if not is_real_user_message(parts.text):
                continue
            text = strip_envelope(parts.text)
            texts.append(text)
            said[entry_id] = text
            words = user_words(text)
            if words:
                last_when = s.message.entry.timestamp or last_when
                ledger = fold_user(ledger, words, last_when, entry_id)
                orders[entry_id] = order
            found = extract_identifiers([text]) + _PLUGIN_COMMAND.findall(parts.text)
        elif parts.role == "assistant":
            texts.append(parts.text)
            orders[entry_id] = order
            ledger = fold_agent(ledger, parts.text, bool(parts.tool_calls), s.message.entry.timestamp, entry_id)
            facts += _assistant_facts(parts.text, entry_id, order, closing=order in closing)
            found = extract_identifiers([parts.text])
            for _name, args in parts.tool_calls:
                found += _locations(args)
        elif parts.role in _OUTPUT_ROLES:
            # The user's pick in the agent's multiple-choice question comes back as this tool's result: the
            # checkpoint folds it as a confirmed decision (engine/capture/state.py), so the summary does too.
            pairs = tool_answers(parts.tool_name, parts.text)
            if pairs:
                last_when = s.message.entry.timestamp or last_when
                ledger = fold_answers(ledger, [(redact_secrets(q), redact_secrets(a)) for q, a in pairs], last_when,
                                      entry_id)
                orders[entry_id] = order
            # A tool's output is data, not the session's words; only the commits git (or aider) reports it made
            # are read from it: a continuation needs them to push, revert or cite (docs/compaction.md).
            reported = "] " in parts.text or "Commit " in parts.text or " -> " in parts.text
            found = reported_commits(redact_secrets(parts.text)) if reported else []
            if parts.tool_name in _SUBAGENT_TOOLS:
                # Tool output is not redacted when the span is built (redacted_parts): the report is, here.
                report = redact_secrets(_SUBAGENT_TRAILER.split(parts.text, 1)[0])
                found += extract_identifiers([report])[:_SUBAGENT_IDENTIFIERS]
            if parts.role == "bashExecution" and parts.command:
                found = [*state_commands(parts.command),
                         *extract_identifiers([parts.command], locations_only=True), *found]
        else:
            continue
        for identifier in found:
            identifiers.setdefault(identifier, entry_id)
    last_agent = next((s.message.entry_id for s in reversed(span) if s.parts.role == "assistant"), "")
    captured = ledger_at_end(ledger, last_when)
    per_message = Counter(item.entry_id for item in captured)
    for item in captured:
        source = item.entry_id or last_agent  # the agent's closing question is said by its last message
        order = orders.get(source, len(span))
        if item.text.endswith(ELLIPSIS) and source in said:
            item = replace(item, text=with_directions(item.text, said[source]))
        elif source in said and per_message[item.entry_id] == 1:
            item = replace(item, text=whole_short_message(item.text, said[source]))
        if item.text.endswith(ELLIPSIS):
            item = replace(item, text=f"{item.text} (full text: entry {source})")
        if item.kind == "decision":
            facts.append(SpanFact("decisions", item.text, source, order))
        elif item.kind == "constraint":
            facts.append(SpanFact("constraints", item.text, source, order))
        elif item.source in ("request", "question"):
            facts.append(SpanFact("closed" if item.done else "asks", item.text, source, order))
        elif not item.done:
            facts.append(SpanFact("todos", item.text, source, order))
        if not goal and item.source == "request":
            goal = item.text
    facts.sort(key=lambda f: f.order)
    status: list[str] = []
    latest = next((strip_envelope(s.parts.text) for s in reversed(span)
                   if s.parts.role == "user" and is_real_user_message(s.parts.text)), "")
    last = span[-1] if span else None
    if last is not None and last.parts.role == "assistant" and last.parts.tool_calls:
        name, args = last.parts.tool_calls[-1]
        status.append(f"Last step before the cut: {short_tool_call(name, args)}")
    turn = turn_context(span[turn_start:]) if turn_start is not None else None
    audited = audit_identifiers(_audit_texts(span), OPENCLAW_AUDIT_IDENTIFIERS + _AUDIT_MARGIN) if audit else []
    return SpanFacts(tuple(facts), tuple(identifiers.items()), goal, tuple(status), tuple(texts), turn,
                     tuple(audited), latest)


def _audit_texts(span: Sequence[SpanMessage]) -> Iterator[str]:
    """The text OpenClaw's audit reads: the text blocks (no thinking, no tool-call arguments) of the last
    :data:`OPENCLAW_AUDIT_MESSAGES` summarized messages (an earlier compaction's summary is not one of them; a
    branch summary is, without text: it has no content blocks); tool output redacted."""
    messages = [s.parts for s in span if s.parts.role != "compactionSummary"]
    for parts in messages[-OPENCLAW_AUDIT_MESSAGES:]:
        if parts.role != "branchSummary":
            yield redact_secrets(parts.text) if parts.role in _OUTPUT_ROLES else parts.text
