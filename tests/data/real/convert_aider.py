#!/usr/bin/env python3
"""Convert one session of an Aider chat log (`.aider.chat.history.md`) to pi JSONL v3.

Aider appends every run to one markdown file: `# aider chat started at YYYY-MM-DD HH:MM:SS` opens a run, lines
starting `####` are what the user typed, lines starting `>` are what Aider itself printed (start-up banner, prompts
such as "Add file to the chat?", token counts, "Applied edit to …", "Commit …", shell output), and everything else
is the model's reply. README.md in this folder gives the mapping. Usage:

    convert_aider.py HISTORY.md OUT.jsonl --session "2024-08-20 14:08:19" [--occurrence N] [--cwd D] [--id ID]
"""

from __future__ import annotations

import argparse
import re
from datetime import UTC, datetime

from convert import ZERO_USAGE, FenceState, Writer, _hid

START_RE = re.compile(r"^# aider chat started at (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})\s*$")
MODEL_RE = re.compile(r"^> (?:Main model|Models?): (\S+) with ")
COMMAND_RE = re.compile(r"^#### ?/[a-z][a-z-]*(?:\s|$)")
THINK_RE = re.compile(r"^</?thinking-content-[0-9a-f]+>\s*$")


class AiderWriter(Writer):
    """Aider names models the litellm way (`deepseek/deepseek-coder`); the prefix is the provider."""

    def assistant(
        self, content: list[dict], model: str | None = None, usage: dict | None = None, ts: datetime | None = None
    ) -> None:
        super().assistant(content, model, usage, ts)
        msg = self.entries[-1]["message"]
        name = msg["model"]
        msg["provider"] = name.split("/", 1)[0] if "/" in name else "aider"
        msg["api"] = "aider-chat"


def _session_lines(path: str, started: str, occurrence: int = 1) -> list[str]:
    # Aider can log two runs that start in the same second (a launch that exits at once, then the real one);
    # `occurrence` picks the Nth run with that start time.
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out: list[str] | None = None
    seen = 0
    for line in lines:
        m = START_RE.match(line)
        if m:
            if out is not None:
                break
            if m.group(1) == started:
                seen += 1
                if seen == occurrence:
                    out = []
            continue
        if out is not None:
            out.append(line)
    if out is None:
        raise SystemExit(f"no session started at {started!r} in {path}")
    return out


def _unprefix(line: str, prefix: str) -> str:
    # Aider ends each logged line with two spaces (a markdown line break); that is layout, not text.
    body = line[len(prefix) :]
    body = body[1:] if body.startswith(" ") else body
    return body[:-2] if body.endswith("  ") else body.rstrip()


def _blocks(lines: list[str]) -> list[tuple[str, list[str]]]:
    """Runs of ("user" | "aider" | "reply", lines). Blank lines stay with the run they sit in; `####`/`>` lines
    inside a fence the model opened are part of the reply."""
    runs: list[tuple[str, list[str]]] = []
    fence = FenceState()
    for line in lines:
        in_reply = bool(runs) and runs[-1][0] == "reply"
        # Inside a fence the model opened, `####`/`>` lines are its own text, unless the line carries Aider's
        # two-space line ending: then the reply was cut off (^C) with its fence still open.
        if in_reply and fence.inside and not (line.startswith("####") and line.endswith("  ")):
            kind = "reply"
        elif line.startswith("####"):
            kind = "user"
        elif line.startswith(">"):
            kind = "aider"
        elif not line.strip() and runs:
            kind = runs[-1][0]
        else:
            kind = "reply"
        if kind == "reply":
            if not in_reply:
                fence = FenceState()
            fence.feed(line)
        # A slash command is one line of its own: old Aider logs put a blank line after every typed line, so
        # `/clear` then `/drop` would otherwise read as one two-line message.
        command = kind == "user" and bool(COMMAND_RE.match(line))
        follows_command = bool(runs) and runs[-1][0] == "user" and bool(COMMAND_RE.match(runs[-1][1][0]))
        if runs and runs[-1][0] == kind and not command and not (kind == "user" and follows_command and line.strip()):
            runs[-1][1].append(line)
        else:
            runs.append((kind, [line]))
    return runs


def _reply_content(lines: list[str]) -> list[dict]:
    content: list[dict] = []
    buf: list[str] = []
    thinking = False
    for line in lines:
        if THINK_RE.match(line):
            text = "\n".join(buf).strip("\n")
            if text.strip():
                content.append({"type": "thinking", "thinking": text} if thinking else {"type": "text", "text": text})
            buf, thinking = [], not line.startswith("</")
            continue
        buf.append(line)
    text = "\n".join(buf).strip("\n")
    if text.strip():
        content.append({"type": "thinking", "thinking": text} if thinking else {"type": "text", "text": text})
    return content


def convert_aider(src: str, started: str, cwd: str, session_id: str | None = None, occurrence: int = 1) -> Writer:
    start = datetime.strptime(started, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
    w = AiderWriter(session_id or _hid(src, started, n=32), start, cwd, "aider-unknown")
    model = None
    for kind, lines in _blocks(_session_lines(src, started, occurrence)):
        if kind == "user":
            text = "\n".join(_unprefix(ln, "####") if ln.startswith("####") else ln for ln in lines).strip("\n")
            if text.strip():
                w.user(text)
        elif kind == "aider":
            for ln in lines:
                m = MODEL_RE.match(ln)
                if m:
                    model = m.group(1)
            text = "\n".join(_unprefix(ln, ">") if ln.startswith(">") else ln for ln in lines).strip("\n")
            if not text.strip():
                continue
            call = "aider-" + _hid(w.header["id"], len(w.entries), n=12)
            first = next(t for t in text.split("\n") if t.strip())
            w.assistant(
                [{"type": "toolCall", "id": call, "name": "aider", "arguments": {"summary": first}}],
                model,
                dict(ZERO_USAGE),
            )
            w.tool_result(call, "aider", text)
        else:
            content = _reply_content(lines)
            if content:
                w.assistant(content, model, dict(ZERO_USAGE))
    return w


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--session", required=True, help="the `aider chat started at` time of the run to convert")
    ap.add_argument("--occurrence", type=int, default=1, help="which run with that start time (1 = the first)")
    ap.add_argument("--cwd", default="/unknown")
    ap.add_argument("--id", default=None, help="session id for the header (default: hash of path and start)")
    a = ap.parse_args()
    convert_aider(a.src, a.session, a.cwd, a.id, a.occurrence).dump(a.out)


if __name__ == "__main__":
    main()
