"""Sessions whose names and text try to drive the terminal: markup with click actions, OSC 52 / OSC 0, CSI, C1
and bidi controls, newlines (issue 25, classes 1–4 and 8; docs/hostile-input.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from engine.text.terminal import BIDI_CONTROLS
from tests.adversarial._harness import Conversation, openclaw_store
from tests.engine._transcripts import HEADER

OSC52 = "\x1b]52;c;SGVsbG8=\x07"
"""Writes "Hello" to the clipboard (BEL-terminated)."""
OSC52_ST = "\x1b]52;c;SGVsbG8=\x1b\\"
"""The same, terminated by ESC \\ (Rich strips BEL, not ESC)."""
OSC0 = "\x1b]0;pwned-title\x07"
"""Sets the window title."""
CSI = "\x1b[2J"
"""Clears the screen."""
C1 = "\x9b31m"
"""A CSI on its own (C1 0x9b)."""
BIDI = "\u202eexe.txt\u202c \u2066x\u2069"
ESCAPES = f"{OSC52}{OSC52_ST}{OSC0}{CSI}{C1}{BIDI}"

ACTION = "[@click=app.screenshot('pwned')]"
"""A Textual click action: parsed as markup, one click saves a screenshot wherever the argument says."""
MARKUP = f"{ACTION}click me[/] [b]bold[/b] [link='https://example.invalid']link[/link]"
BROKEN_MARKUP = ("gpt-5[/]", "compose [port=8080:80]", "draft [WIP]")
"""Names that raise MarkupError or lose ``[WIP]`` when parsed as markup."""

CONTROL_CHARACTERS = frozenset(chr(c) for c in [*range(0x20), 0x7F, *range(0x80, 0xA0), 0x2028, 0x2029]) | \
    BIDI_CONTROLS
"""What must never reach a terminal raw from session data (newline included: where a line is meant)."""


def raw_controls(text: str, *, newlines: bool = False) -> list[str]:
    """The control characters in ``text`` (``newlines``: newline and tab allowed, as between lines of output)."""
    allowed = {"\n", "\t"} if newlines else set()
    return sorted({repr(ch) for ch in text if ch in CONTROL_CHARACTERS and ch not in allowed})


def hostile_conversation(value: str, *, model: str | None = None, tool: str | None = None,
                         tag: str = "", tokens: int = 1000) -> Conversation:
    """Two turns whose messages, tool name and model hold ``value`` (``model``/``tool``: those names instead;
    ``tag`` prefixes the entry ids, so calls of several such sessions are not one request counted once)."""
    conversation = Conversation()
    conversation.turn(1, f"please look {value}", f"Decision: use {value} from now on", call={"command": value},
                      output=f"tool said {value}", tokens=tokens)
    conversation.turn(2, f"and {value}?", f"TODO: check {value}\nDone for now.", call={"path": value},
                      output=f"again {value}", tokens=tokens)
    for entry in conversation.entries:
        entry["id"] = tag + entry["id"]
        entry["parentId"] = entry["parentId"] and tag + entry["parentId"]
        message: dict[str, Any] = entry.get("message", {})
        if message.get("role") == "assistant":
            message["model"] = model if model is not None else f"claude {value}"
            message["provider"] = f"anthropic {value}"
            for part in message["content"]:
                if part["type"] == "toolCall":
                    part["name"] = tool if tool is not None else f"bash{value}"
        if message.get("role") == "toolResult":
            message["toolName"] = tool if tool is not None else f"read{value}"
    return conversation


def hostile_store(state: Path, sessions: dict[str, tuple[Conversation, str]]) -> Path:
    """An OpenClaw store holding ``key → (conversation, cwd)``; returns its sessions directory."""
    directory = openclaw_store(state, {key: conversation for key, (conversation, _) in sessions.items()})
    # openclaw_store writes one header for all: give each transcript its own working directory.
    store = orjson.loads((directory / "sessions.json").read_bytes())
    for key, (_, cwd) in sessions.items():
        path = directory / f"{store[key]['sessionId']}.jsonl"
        lines = path.read_bytes().split(b"\n", 1)
        header = orjson.loads(lines[0])
        path.write_bytes(orjson.dumps({**header, **HEADER, "id": header["id"], "cwd": cwd}) + b"\n" + lines[1])
    return directory
