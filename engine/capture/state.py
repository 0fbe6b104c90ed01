"""Incremental state capture from transcript entries, with no LLM (docs/checkpoints.md, State capture).

:func:`capture` folds new context entries into a :class:`CapturedState`: tools used, files read and modified,
tool failures, the last tool call, and the conversation ledger (:mod:`engine.capture.ledger`, docs/capture.md)
whose decisions, constraints (``learnings``) and open items the state lists, capped (50 decisions, 30 open items,
30 learnings, 100 tools, 100 files). User messages pass the harness filters first. The fold is pure: the same
entries give the same state, in one call or in several.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from engine.capture.decisions import is_real_user_message, strip_envelope
from engine.capture.envelopes import (
    after_harness,
    is_harness_reply,
    is_interrupt,
    loads_skill_text,
    user_words,
)
from engine.capture.ledger import Item, Ledger, fold_agent, fold_user, ledger_at_end
from engine.capture.redact import redact_secrets
from engine.capture.shape_acts import pending_from
from engine.capture.shell_files import shell_files
from engine.capture.tool_answers import ASKING_TOOLS, asked_questions, fold_answers, tool_answers
from engine.capture.whole_text import clip_words
from engine.stores.entries import Entry
from engine.stores.message_content import message_text

__all__ = [
    "MAX_DECISIONS",
    "MAX_FILES",
    "MAX_OPEN_ITEMS",
    "MAX_TOOLS",
    "CapturedDecision",
    "CapturedState",
    "Item",
    "LastToolCall",
    "ToolFailure",
    "capture",
    "params_summary",
]

MAX_DECISIONS = 50
MAX_TOOLS = 100
MAX_FILES = 100
MAX_OPEN_ITEMS = 30
MAX_LEARNINGS = 30
MAX_FAILURES = 20
MAX_ASKED = 20

_READ_TOOLS = frozenset({"read", "read_file", "view", "cat", "open", "grep", "glob", "ls", "find", "search"})
_WRITE_TOOLS = frozenset(
    {"write", "edit", "multiedit", "multi_edit", "write_file", "edit_file", "apply_patch", "str_replace", "create"}
)
_EXEC_TOOLS = frozenset({"exec", "bash", "shell", "run", "terminal", "process", "exec_command", "shell_command",
                         "local_shell"})
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.M)


@dataclass(frozen=True, slots=True)
class CapturedDecision:
    """A decision recognised in the transcript."""

    what: str
    when: str | None
    entry_id: str | None
    """The user reply that confirmed the decision (the agent response is the message before it)."""


@dataclass(frozen=True, slots=True)
class ToolFailure:
    """A tool call that reported ``isError``."""

    tool: str
    when: str | None
    entry_id: str | None
    message: str


@dataclass(frozen=True, slots=True)
class LastToolCall:
    """The most recent tool call, persisted so a checkpoint never says ``null`` wrongly.

    See docs/checkpoints.md, Tools and files.
    """

    name: str
    params_summary: str


@dataclass(frozen=True, slots=True)
class CapturedState:
    """Everything captured since the state was last reset (at the previous checkpoint).

    ``decisions``, ``open_items`` and ``learnings`` (the constraints) are views of :attr:`ledger` at the last
    entry captured (docs/capture.md): one set of items behind the checkpoint, the Decisions tab and summaries.
    """

    decisions: tuple[CapturedDecision, ...] = ()
    open_items: tuple[str, ...] = ()
    learnings: tuple[str, ...] = ()
    tools_used: tuple[str, ...] = ()
    files_read: tuple[str, ...] = ()
    files_modified: tuple[str, ...] = ()
    failures: tuple[ToolFailure, ...] = ()
    last_tool_call: LastToolCall | None = None
    last_agent_text: str = field(default="", repr=False)
    """Text of the latest agent response, kept to judge the next user reply."""
    last_entry_id: str | None = None
    last_line_no: int = 0
    """File line (or SQLite ``seq``) of the last entry captured: capture resumes after it."""
    entries_seen: int = 0
    real_user_messages: int = 0
    updated_at: str | None = None
    """Timestamp of the last entry captured."""
    ledger: Ledger = field(default_factory=Ledger, repr=False)
    """The conversation ledger the item lists are read from."""
    done_items: tuple[str, ...] = ()
    """Open items closed since the state was reset (a checkpoint drops earlier copies of them)."""
    command: str = ""
    """The slash command the last user-role record echoed ("/name args"): the next one, before the agent speaks, is
    that command's prompt, and the user's turn is the command."""
    skill_loaded: bool = False
    """The last tool result launched a skill: the next user-role record, before the agent speaks, is its text."""
    asked: tuple[tuple[str, str], ...] = ()
    """Codex ``request_user_input`` questions by id (redacted; the latest :data:`MAX_ASKED`): the answer arrives as a
    later tool result naming only the ids, often in a later capture when the user took time to answer."""

    def items(self) -> tuple[Item, ...]:
        """Every item, closed ones marked done, as of the last entry captured."""
        return ledger_at_end(self.ledger, self.updated_at)

    def to_dict(self) -> dict[str, Any]:
        return {
            "decisions": [{"what": d.what, "when": d.when, "entry_id": d.entry_id} for d in self.decisions],
            "open_items": list(self.open_items),
            "learnings": list(self.learnings),
            "tools_used": list(self.tools_used),
            "files_read": list(self.files_read),
            "files_modified": list(self.files_modified),
            "failures": [
                {"tool": f.tool, "when": f.when, "entry_id": f.entry_id, "message": f.message} for f in self.failures
            ],
            "last_tool_call": (
                {"name": self.last_tool_call.name, "params_summary": self.last_tool_call.params_summary}
                if self.last_tool_call
                else None
            ),
            "last_agent_text": self.last_agent_text[:4000],
            "last_entry_id": self.last_entry_id,
            "last_line_no": self.last_line_no,
            "entries_seen": self.entries_seen,
            "real_user_messages": self.real_user_messages,
            "updated_at": self.updated_at,
            "ledger": {
                "items": [_item_dict(i) for i in self.ledger.items],
                "agent_text": self.ledger.agent_text[-4000:],
                "agent_acted": self.ledger.agent_acted,
                "awaiting": self.ledger.awaiting,
                "unconfirmed": self.ledger.unconfirmed,
                "interrupted": self.ledger.interrupted,
                "stopped": self.ledger.stopped,
                "shape": self.ledger.shape.to_dict() if self.ledger.shape else None,
            },
            "done_items": list(self.done_items),
            "command": self.command[:400],
            "skill_loaded": self.skill_loaded,
            "asked": [[key, question[:1000]] for key, question in self.asked],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CapturedState:
        """Rebuild a state from :meth:`to_dict` output; unknown or mistyped fields fall back to defaults."""

        def strings(name: str) -> tuple[str, ...]:
            value = data.get(name)
            return tuple(str(x) for x in value if isinstance(x, str)) if isinstance(value, list) else ()

        decisions = tuple(
            CapturedDecision(str(d.get("what", "")), d.get("when"), d.get("entry_id"))
            for d in data.get("decisions") or []
            if isinstance(d, Mapping) and d.get("what")
        )
        failures = tuple(
            ToolFailure(str(f.get("tool", "")), f.get("when"), f.get("entry_id"), str(f.get("message", "")))
            for f in data.get("failures") or []
            if isinstance(f, Mapping)
        )
        last = data.get("last_tool_call")
        raw_ledger = data.get("ledger")
        # State saved before the ledger existed: its lists become the ledger's items, so nothing is lost.
        ledger = Ledger(tuple(
            [Item("decision", d.what, "confirmed", d.when, d.entry_id) for d in decisions]
            + [Item("constraint", text, "preference", None, None) for text in strings("learnings")]
            + [Item("open", text, "next_step", None, None) for text in strings("open_items")]))
        if isinstance(raw_ledger, Mapping):
            ledger = Ledger(
                tuple(_item(i) for i in raw_ledger.get("items") or [] if isinstance(i, Mapping) and i.get("text")),
                str(raw_ledger.get("agent_text") or ""),
                raw_ledger.get("agent_acted") is True,
                interrupted=raw_ledger.get("interrupted") is True,
                stopped=raw_ledger.get("stopped") is True,
                shape=pending_from(raw_ledger.get("shape")),
            )
            awaiting = raw_ledger.get("awaiting")
            if isinstance(awaiting, int) and not isinstance(awaiting, bool) and 0 <= awaiting < len(ledger.items):
                ledger = replace(ledger, awaiting=awaiting)
            unconfirmed = raw_ledger.get("unconfirmed")
            if isinstance(unconfirmed, int) and not isinstance(unconfirmed, bool) and (
                    0 <= unconfirmed < len(ledger.items)):
                ledger = replace(ledger, unconfirmed=unconfirmed)
        return cls(
            decisions=decisions,
            open_items=strings("open_items"),
            learnings=strings("learnings"),
            tools_used=strings("tools_used"),
            files_read=strings("files_read"),
            files_modified=strings("files_modified"),
            failures=failures,
            last_tool_call=LastToolCall(str(last.get("name", "")), str(last.get("params_summary", "")))
            if isinstance(last, Mapping)
            else None,
            last_agent_text=str(data.get("last_agent_text") or ""),
            last_entry_id=data.get("last_entry_id") if isinstance(data.get("last_entry_id"), str) else None,
            last_line_no=_whole(data.get("last_line_no")),
            entries_seen=_whole(data.get("entries_seen")),
            real_user_messages=_whole(data.get("real_user_messages")),
            updated_at=data.get("updated_at") if isinstance(data.get("updated_at"), str) else None,
            ledger=ledger,
            done_items=strings("done_items"),
            command=str(data.get("command") or "")[:400],
            skill_loaded=data.get("skill_loaded") is True,
            asked=tuple((pair[0][:200], pair[1][:1000]) for pair in data.get("asked") or [] if isinstance(pair, list)
                        and len(pair) == 2 and all(isinstance(x, str) for x in pair))[-MAX_ASKED:],
        )


def _optional(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _item_dict(item: Item) -> dict[str, Any]:
    return {"kind": item.kind, "text": item.text, "source": item.source, "when": item.when,
            "entry_id": item.entry_id, "done": item.done, "done_when": item.done_when}


def _item(data: Mapping[str, Any]) -> Item:
    kind = data.get("kind")
    return Item(kind if kind in ("decision", "constraint", "open") else "open", str(data.get("text")),
                str(data.get("source") or ""), _optional(data.get("when")), _optional(data.get("entry_id")),
                data.get("done") is True, _optional(data.get("done_when")))


def _whole(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def params_summary(arguments: Any, limit: int = 120) -> str:
    """A one-line summary of tool arguments: the path or command first, then other scalars."""
    if not isinstance(arguments, Mapping):
        return ""
    parts: list[str] = []
    for key in ("path", "file_path", "command", "query", "url", "pattern"):
        value = arguments.get(key)
        if isinstance(value, str) and value:
            parts.append(f"{key}={value}")
    for key, value in arguments.items():
        if len(parts) >= 4:
            break
        if key not in ("path", "file_path", "command", "query", "url", "pattern") and isinstance(
            value, str | int | float | bool
        ):
            text = str(value)
            parts.append(f"{key}={text[:40]}")
    return clip_words(" ".join(parts), limit)


def _add_unique(items: tuple[str, ...], new: Iterable[str], cap: int) -> tuple[str, ...]:
    out = list(items)
    for item in new:
        if item and item not in out:
            out.append(item)
    return tuple(out[-cap:])


def _tool_files(name: str, arguments: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    lowered = name.lower()
    path = arguments.get("path") or arguments.get("file_path") or arguments.get("filePath")
    read: list[str] = []
    written: list[str] = []
    if isinstance(path, str) and path:
        if lowered in _WRITE_TOOLS:
            written.append(path)
        elif lowered in _READ_TOOLS:
            read.append(path)
    patch = arguments.get("input")
    if lowered == "apply_patch" and isinstance(patch, str):  # Codex's patch names its files in its own headers
        written.extend(m.group(1).strip() for m in _PATCH_FILE.finditer(patch))
    command = arguments.get("command") or arguments.get("cmd")
    if isinstance(command, list) and all(isinstance(c, str) for c in command):
        # Codex's shell tool takes an argv: ["bash", "-lc", "cat README.md"] runs its last word.
        command = command[2] if len(command) == 3 and command[1] in ("-lc", "-c") else " ".join(command)
    if lowered in _EXEC_TOOLS and isinstance(command, str):
        shell_read, shell_written = shell_files(command)
        read.extend(shell_read)
        written.extend(shell_written)
    return read, written


def capture(
    state: CapturedState, entries: Iterable[Entry], load: Callable[[Entry], Mapping[str, Any]]
) -> CapturedState:
    """Fold ``entries`` (in path order) into ``state``; ``load`` re-reads an entry's JSON object.

    Only entries that matter are loaded: user and assistant messages and tool results with errors. User
    messages go through the harness filters (:func:`is_real_user_message`, :func:`user_words`) before the
    ledger reads them (docs/capture.md).
    """
    ledger = state.ledger
    tools, read, modified = state.tools_used, state.files_read, state.files_modified
    failures = list(state.failures)
    last_tool = state.last_tool_call
    agent_text = state.last_agent_text
    last_id, seen, updated = state.last_entry_id, state.entries_seen, state.updated_at
    last_line, users = state.last_line_no, state.real_user_messages
    command, skill_loaded = state.command, state.skill_loaded
    # Codex's request_user_input questions by id, for its answer (tool_answers); kept in the state, redacted, since
    # the answer usually comes in a later capture than the call.
    asked = dict(state.asked)
    for entry in entries:
        seen += 1
        last_id = entry.id or last_id
        last_line = max(last_line, entry.line_no)
        updated = entry.timestamp or updated
        if entry.role not in ("user", "assistant", "toolResult") or (
                entry.role == "assistant" and is_harness_reply(entry.model)):
            continue
        if entry.role == "toolResult":
            skill_loaded = loads_skill_text(entry.tool_name, entry.is_error)
        # A tool result matters for a failure or the user's answer; a Codex call item (a tool item that calls) for
        # its call.
        if entry.role == "toolResult" and not entry.is_error and entry.tool_name not in ASKING_TOOLS and (
                not entry.tool_calls):
            continue
        obj = load(entry)
        message = obj.get("message")
        if not isinstance(message, Mapping):
            continue
        content = message.get("content")
        calls = [b for b in content if isinstance(b, Mapping) and b.get("type") == "toolCall"] if isinstance(
            content, list) and (entry.role == "assistant" or entry.tool_calls) else []
        for block in calls:
            name = str(block.get("name") or "?")
            arguments = block.get("arguments")
            arguments = arguments if isinstance(arguments, Mapping) else {}
            tools = _add_unique(tools, [name], MAX_TOOLS)
            files_read, files_written = _tool_files(name, arguments)
            asked.update({key: redact_secrets(question)  # Codex's result names only the question ids
                          for key, question in asked_questions(name, arguments).items()})
            read = _add_unique(read, files_read, MAX_FILES)
            modified = _add_unique(modified, files_written, MAX_FILES)
            last_tool = LastToolCall(name, params_summary(arguments))
        if entry.role == "assistant":
            command, skill_loaded = "", False
            called = bool(calls)
            text = "\n".join(
                str(b.get("text") or "")
                for b in (content if isinstance(content, list) else [])
                if isinstance(b, Mapping) and b.get("type") == "text"
            )
            if entry.provider == "openclaw":
                text = ""  # OpenClaw's assistant text is its own bookkeeping, not a turn to answer
            if text.strip():
                agent_text = text
            # Items are shown (the Decisions tab) before any file is written: they are made of redacted text.
            ledger = fold_agent(ledger, redact_secrets(text), called, entry.timestamp, entry.id)
        elif entry.tool_calls and not entry.is_error:
            pass  # a Codex call item: its call is noted above
        elif entry.role == "toolResult" and not entry.is_error:
            # The user's choice in Claude Code's AskUserQuestion comes back as this tool's result (tool_answers).
            pairs = tool_answers(entry.tool_name, message_text(message), asked)
            ledger = fold_answers(ledger, [(redact_secrets(q), redact_secrets(a)) for q, a in pairs],
                                  entry.timestamp, entry.id)
        elif entry.role == "toolResult":
            failures.append(ToolFailure(entry.tool_name or "?", entry.timestamp, entry.id,
                                        clip_words(message_text(message)[:4000], 200)))
            failures = failures[-MAX_FAILURES:]
        else:
            text = message_text(message)
            instead, command = after_harness(text, command, skill_loaded)  # docs/capture.md, Harness text
            skill_loaded = False
            if instead is not None:
                if instead:
                    users += 1
                    ledger = fold_user(ledger, redact_secrets(instead), entry.timestamp, entry.id)
                    agent_text = ""
                continue
            if not is_real_user_message(text):
                continue
            if is_interrupt(text):
                ledger = replace(ledger, interrupted=True)  # the next words answer what the user stopped
                continue
            words = user_words(strip_envelope(text))
            if not words:
                continue
            users += 1
            ledger = fold_user(ledger, redact_secrets(words), entry.timestamp, entry.id)
            agent_text = ""
    state = replace(
        state,
        tools_used=tools,
        files_read=read,
        files_modified=modified,
        failures=tuple(failures),
        last_tool_call=last_tool,
        last_agent_text=agent_text,
        last_entry_id=last_id,
        last_line_no=last_line,
        entries_seen=seen,
        real_user_messages=users,
        updated_at=updated,
        ledger=ledger,
        command=command,
        skill_loaded=skill_loaded,
        asked=tuple(asked.items())[-MAX_ASKED:],
    )
    return with_item_views(state)


def with_item_views(state: CapturedState) -> CapturedState:
    """``state`` with ``decisions``, ``open_items``, ``learnings`` and ``done_items`` read from its ledger."""
    items = state.items()
    decisions = tuple(CapturedDecision(i.text, i.when, i.entry_id) for i in items if i.kind == "decision")
    return replace(
        state,
        decisions=decisions[-MAX_DECISIONS:],
        open_items=tuple(i.text for i in items if i.kind == "open" and not i.done)[-MAX_OPEN_ITEMS:],
        learnings=tuple(i.text for i in items if i.kind == "constraint")[-MAX_LEARNINGS:],
        done_items=tuple(i.text for i in items if i.kind == "open" and i.done)[-MAX_OPEN_ITEMS:],
    )
