"""Hand-built pi sessions, one per mismatch class of issue 11 (and a few shapes pi's tests check).

Lines are written the way pi writes them (``JSON.stringify``: no spaces, UTF-8), except where a case is about
another writer's whitespace.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

_T0 = 1_780_000_000_000


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def _usage(total: int) -> dict[str, Any]:
    output = min(50, total)
    return {
        "input": total - output,
        "output": output,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": total,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }


class PiFile:
    """A pi v3 session built entry by entry; ids are ``e001``, ``e002``… in order of creation."""

    def __init__(self, *, version: int | None = 3, header: bool = True) -> None:
        self.lines: list[dict[str, Any] | str] = []
        self.leaf: str | None = None
        self.n = 0
        self.ms = _T0
        if header:
            h: dict[str, Any] = {"type": "session", "id": "0199aaaa-0000-7000-8000-000000000001"}
            if version is not None:
                h = {"type": "session", "version": version, "id": h["id"]}
            h |= {"timestamp": _iso(self.ms), "cwd": "/tmp/project"}
            self.lines.append(h)

    def _entry(self, kind: str, **fields: Any) -> str:
        self.n += 1
        self.ms += 1000
        entry_id = f"e{self.n:03d}"
        self.lines.append({"type": kind, "id": entry_id, "parentId": self.leaf, "timestamp": _iso(self.ms), **fields})
        self.leaf = entry_id
        return entry_id

    def message(self, message: dict[str, Any]) -> str:
        return self._entry("message", message={**message, "timestamp": self.ms + 1000})

    def user(self, text: str) -> str:
        return self.message({"role": "user", "content": [{"type": "text", "text": text}]})

    def assistant(self, text: str, total: int, *, stop: str = "stop", tool_calls: list[dict[str, Any]] | None = None,
                  usage: dict[str, Any] | None = None) -> str:
        content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        content += tool_calls or []
        return self.message({
            "role": "assistant", "content": content, "api": "openai-completions", "provider": "fake",
            "model": "fake-model", "usage": usage if usage is not None else _usage(total), "stopReason": stop,
        })

    def tool_result(self, call_id: str, name: str, text: str) -> str:
        return self.message({"role": "toolResult", "toolCallId": call_id, "toolName": name,
                             "content": [{"type": "text", "text": text}], "isError": False})

    def bash(self, command: str, output: str, *, exclude: bool = False) -> str:
        msg: dict[str, Any] = {"role": "bashExecution", "command": command, "output": output, "exitCode": 0,
                               "cancelled": False, "truncated": False}
        if exclude:
            msg["excludeFromContext"] = True
        return self.message(msg)

    def custom_message(self, text: str, custom_type: str = "note") -> str:
        return self._entry("custom_message", customType=custom_type, content=text, display=True)

    def compaction(self, first_kept: str, summary: str, tokens_before: int, **extra: Any) -> str:
        return self._entry("compaction", summary=summary, firstKeptEntryId=first_kept, tokensBefore=tokens_before,
                           **extra)

    def label(self, target: str, label: str | None) -> str:
        fields: dict[str, Any] = {"targetId": target}
        if label is not None:
            fields["label"] = label
        return self._entry("label", **fields)

    def branch_summary(self, from_id: str, summary: str) -> str:
        return self._entry("branch_summary", fromId=from_id, summary=summary)

    def model_change(self, provider: str, model_id: str) -> str:
        return self._entry("model_change", provider=provider, modelId=model_id)

    def thinking(self, level: str) -> str:
        return self._entry("thinking_level_change", thinkingLevel=level)

    def goto(self, entry_id: str | None) -> None:
        """Continue from ``entry_id``: the next entry starts a branch there."""
        self.leaf = entry_id

    def raw(self, line: str) -> None:
        self.lines.append(line)

    def write(self, path: Path, *, spaces: bool = False) -> Path:
        seps = (", ", ": ") if spaces else (",", ":")
        text = "".join(
            (line if isinstance(line, str) else json.dumps(line, separators=seps, ensure_ascii=False)) + "\n"
            for line in self.lines
        )
        path.write_text(text, encoding="utf-8")
        return path


def words(n: int, seed: str = "w") -> str:
    """About ``n`` pi tokens of text (4 characters each)."""
    return (f"{seed}{seed}{seed} " * n)[: 4 * n]


def cut_after_compaction(path: Path) -> Path:
    """#1: the kept messages of an earlier compaction are where pi's next cut search starts."""
    f = PiFile()
    f.user(words(300, "a"))
    f.assistant(words(300, "b"), 900)
    u2 = f.user(words(900, "c"))
    f.assistant(words(900, "d"), 2600)
    f.compaction(u2, "## Goal\nearlier work", 2600)
    f.user(words(200, "e"))
    f.assistant(words(200, "f"), 2200)
    f.user(words(100, "g"))
    f.assistant(words(100, "h"), 2500)
    return f.write(path)


def bash_excluded(path: Path) -> Path:
    """#2: ``!!`` commands stay in pi's context list and estimate; only the model request drops them."""
    f = PiFile()
    f.user(words(20))
    f.assistant(words(20), 121)
    f.bash("cat big.log", words(1000, "x"), exclude=True)
    f.bash("ls", words(2, "y"))
    return f.write(path)


def unknown_after_compaction(path: Path) -> Path:
    """#3: the newest valid assistant after the compaction reports zero usage, so pi's figure is unknown."""
    f = PiFile()
    u1 = f.user(words(100))
    f.assistant(words(100), 5000)
    f.compaction(u1, "## Goal\nsummary", 5000)
    f.user(words(30))
    f.assistant(words(30), 4000)
    f.user(words(30))
    f.assistant("", 0, usage=_usage(0) | {"input": 0, "output": 0, "totalTokens": 0})
    return f.write(path)


def zero_usage_tail(path: Path) -> Path:
    """#4: a zero-usage assistant (an OpenClaw mirror message) is the newest: pi and inspect use it, status must too."""
    f = PiFile()
    f.user(words(10))
    f.assistant(words(10), 111)
    f.user(words(10))
    f.assistant("mirrored reply", 0, usage=_usage(0) | {"input": 0, "output": 0, "totalTokens": 0})
    return f.write(path)


def split_on_own_turn_start(path: Path) -> Path:
    """#5: the cut lands on a bash execution that starts its own turn (empty prefix): pi says split."""
    f = PiFile()
    f.user(words(50))
    f.assistant(words(50), 200)
    f.bash("make test", words(2500, "z"))
    f.user(words(10))
    f.assistant(words(10), 2900)
    return f.write(path)


def headerless(path: Path) -> Path:
    """#8: no session header: pi loads nothing (and rewrites the file when it opens it)."""
    f = PiFile(header=False)
    f.user(words(500))
    f.assistant(words(500), 1200)
    return f.write(path)


def empty_file(path: Path) -> Path:
    """#9: an empty file is not a session."""
    path.write_text("")
    return path


def not_json(path: Path) -> Path:
    """#9: only non-JSON lines: not a session."""
    path.write_text("hello\nthis is not json\n{broken\n")
    return path


def hook_message_v3(path: Path) -> Path:
    """#9: ``hookMessage`` is a v1/v2 role; in a v3 file pi keeps it as is and counts it 0."""
    f = PiFile()
    f.user(words(10))
    f.assistant(words(10), 100)
    f.message({"role": "hookMessage", "customType": "x", "content": words(300), "display": True})
    return f.write(path)


def hook_message_v2(path: Path) -> Path:
    """#9, the other side: in a v2 file pi migrates ``hookMessage`` to ``custom`` and counts it."""
    f = PiFile(version=2)
    f.user(words(10))
    f.assistant(words(10), 100)
    f.message({"role": "hookMessage", "customType": "x", "content": words(300), "display": True})
    return f.write(path)


def unknown_role(path: Path) -> Path:
    """#9: a message with a role pi does not know is in its context list with 0 tokens."""
    f = PiFile()
    f.user(words(10))
    f.assistant(words(10), 100)
    f.message({"role": "telemetry", "content": words(200)})
    f.user(words(10))
    return f.write(path)


def spaced_json(path: Path) -> Path:
    """#10: written by a non-JavaScript writer, with a space after every colon and comma."""
    f = PiFile()
    for i in range(3):
        u = f.user(words(50, f"u{i}"))
        f.assistant(words(50), 300 + i)
        f.compaction(u, f"summary {i}", 300 + i)
    f.user(words(10))
    f.assistant(words(10), 400)
    return f.write(path, spaces=True)


def tree_and_labels(path: Path) -> Path:
    """Branches, labels (one set then cleared), a branch summary, model and thinking changes."""
    f = PiFile()
    f.model_change("fake", "fake-model")
    f.thinking("high")
    u1 = f.user(words(10, "a"))
    a1 = f.assistant(words(10, "b"), 100)
    f.user(words(10, "c"))
    f.assistant(words(10, "d"), 150)
    f.label(u1, "start")
    f.label(a1, "tmp")
    f.label(a1, None)
    f.goto(a1)
    f.branch_summary(a1, "## Abandoned\ntried c/d")
    f.user(words(10, "e"))
    f.thinking("low")
    f.assistant(words(10, "f"), 180)
    return f.write(path)


def error_and_aborted(path: Path) -> Path:
    """Aborted and error assistants are skipped for usage; the cut still counts their text."""
    f = PiFile()
    f.user(words(10))
    f.assistant(words(10), 300)
    f.user(words(10))
    f.assistant("", 0, stop="error", usage=_usage(0) | {"input": 0, "output": 0, "totalTokens": 0})
    f.user(words(10))
    f.assistant(words(5), 200, stop="aborted")
    return f.write(path)


def bom_crlf_and_torn_lines(path: Path) -> Path:
    """A byte-order mark, CRLF line ends, a malformed line and a torn last line: pi skips what does not parse."""
    f = PiFile()
    f.user(words(10))
    f.assistant(words(10), 150)
    f.raw('{"type":"message","id":"broken"')
    f.user(words(10))
    f.assistant(words(10), 180)
    text = "".join(
        (line if isinstance(line, str) else json.dumps(line, separators=(",", ":"))) + "\r\n" for line in f.lines
    )
    path.write_bytes(b"\xef\xbb\xbf" + text.encode() + b'{"type":"message","id":"torn","parentId":"e004"')
    return path


def _tool_call(f: PiFile, call_id: str, arguments: Any, usage: dict[str, Any] | None = None) -> str:
    message: dict[str, Any] = {
        "role": "assistant", "content": [{"type": "toolCall", "id": call_id, "name": "plot", "arguments": arguments}],
        "api": "openai-completions", "provider": "fake", "model": "fake-model", "stopReason": "toolUse",
    }
    if usage is not None:
        message["usage"] = usage
    return f.message(message)


def float_arguments_no_usage(path: Path) -> Path:
    """Issue 26: tool-call arguments holding floats, and no usage anywhere, so the estimate is chars/4 of every
    message. pi measures ``JSON.stringify(arguments)``, which prints ``1.0`` as ``1``, ``1e21`` as ``1e+21``,
    ``1.5e-7`` as is and ``-0.0`` as ``0``; the float list decides whether the cut at 2,000 lands on the call."""
    f = PiFile()
    f.user(words(300, "a"))
    _tool_call(f, "c1", {"values": [1.0] * 600, "scale": 1e21, "eps": 1.5e-7, "zero": -0.0, "ratio": 0.1})
    f.tool_result("c1", "plot", words(100, "r"))
    _tool_call(f, "c2", 3.0)
    f.tool_result("c2", "plot", words(5, "s"))
    f.user(words(1500, "u"))
    return f.write(path)


def usage_missing_fields(path: Path) -> Path:
    """Issue 26: the newest usage has no ``totalTokens`` and lacks ``cacheRead``/``cacheWrite``: pi's sum is NaN
    (its estimate and tokensBefore print as null), while it still has a figure (not unknown)."""
    f = PiFile()
    f.user(words(300, "a"))
    f.assistant(words(300, "b"), 900)
    f.user(words(2100, "c"))
    f.assistant(words(10, "d"), 0, usage={"input": 3000, "output": 20})
    f.user(words(10, "e"))
    return f.write(path)


def usage_missing_after_compaction(path: Path) -> Path:
    """Issue 26: after a compaction, the newest assistant's usage is ``{}``: NaN is not above zero, so pi calls the
    figure unknown; its estimate is NaN as well."""
    f = PiFile()
    u1 = f.user(words(100, "a"))
    f.assistant(words(100, "b"), 5000)
    f.compaction(u1, "## Goal\nsummary", 5000)
    f.user(words(2100, "c"))
    f.assistant(words(30, "d"), 0, usage={})
    return f.write(path)


def last_entry_without_id(path: Path) -> Path:
    """Issue 26: the last entry has no ``id``. pi's leaf id is then undefined: its context still walks back from
    that entry, but its branch is empty (no cut point, no compaction seen by getContextUsage)."""
    f = PiFile()
    u1 = f.user(words(300, "a"))
    f.assistant(words(300, "b"), 900)
    f.compaction(u1, "## Goal\nsummary", 900)
    f.user(words(2100, "c"))
    f.assistant(words(10, "d"), 3000)
    f.lines.append({"type": "message", "parentId": f.leaf, "timestamp": _iso(f.ms + 1000),
                    "message": {"role": "user", "content": [{"type": "text", "text": words(50, "z")}],
                                "timestamp": f.ms + 2000}})
    return f.write(path)


def last_entry_null_id(path: Path) -> Path:
    """Issue 26, the other spelling: the last entry's ``id`` is JSON ``null``. pi's leaf id is then null, not
    undefined, and its context is empty."""
    f = PiFile()
    f.model_change("fake", "fake-model")
    f.user(words(300, "a"))
    f.assistant(words(300, "b"), 900)
    f.lines.append({"type": "message", "id": None, "parentId": f.leaf, "timestamp": _iso(f.ms + 1000),
                    "message": {"role": "user", "content": [{"type": "text", "text": words(50, "z")}],
                                "timestamp": f.ms + 2000}})
    return f.write(path)


def cut_before_previous_compaction(path: Path) -> Path:
    """Issue 26: the cut at 2,000 lands among the messages an earlier compaction kept (before that compaction on
    the path); pi folds the earlier summary into the new one and keeps only messages."""
    f = PiFile()
    f.user(words(300, "a"))
    f.assistant(words(300, "b"), 700)
    u2 = f.user(words(600, "c"))
    f.assistant(words(600, "d"), 1900)
    f.user(words(600, "e"))
    f.assistant(words(600, "f"), 3100)
    f.compaction(u2, "## Goal\nearlier work", 3100)
    f.user(words(300, "g"))
    f.assistant(words(300, "h"), 3500)
    return f.write(path)


EDGE_CASES: dict[str, Callable[[Path], Path]] = {
    "01-cut-after-compaction": cut_after_compaction,
    "02-bash-excluded": bash_excluded,
    "03-unknown-after-compaction": unknown_after_compaction,
    "04-zero-usage-tail": zero_usage_tail,
    "05-split-on-own-turn-start": split_on_own_turn_start,
    "08-headerless": headerless,
    "09-empty": empty_file,
    "09-not-json": not_json,
    "09-hook-message-v3": hook_message_v3,
    "09-hook-message-v2": hook_message_v2,
    "09-unknown-role": unknown_role,
    "10-spaced-json": spaced_json,
    "xx-tree-and-labels": tree_and_labels,
    "xx-error-and-aborted": error_and_aborted,
    "xx-bom-crlf-torn": bom_crlf_and_torn_lines,
    "26-float-arguments-no-usage": float_arguments_no_usage,
    "26-usage-missing-fields": usage_missing_fields,
    "26-usage-missing-after-compaction": usage_missing_after_compaction,
    "26-last-entry-without-id": last_entry_without_id,
    "26-last-entry-null-id": last_entry_null_id,
    "26-cut-before-previous-compaction": cut_before_previous_compaction,
}
"""Name → builder; the number is the mismatch class of issue 11 (xx: extra shapes; 26: issue 26's leftovers)."""


def build_all(directory: Path) -> dict[str, Path]:
    """Write every edge case into ``directory`` as ``<name>.jsonl``."""
    return {name: build(directory / f"{name}.jsonl") for name, build in EDGE_CASES.items()}
