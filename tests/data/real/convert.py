#!/usr/bin/env python3
"""Convert real agent transcripts to pi JSONL v3 (header line, then `message` entries chained by id/parentId).

Inputs:
  * SpecStory markdown (`.specstory/history/*.md`): the legacy Cursor/Copilot form (`_**User**_` /
    `_**Assistant**_`), the Claude Code form (`_**Agent (claude-…)**_`, `Tool use: **Name** …`) and
    Markdown v2.x (`_**User (ts)**_`, `_**Agent (model … ts)**_`, `<tool-use …>`, `<think>`).
  * Claude Code JSONL (`~/.claude/projects/**/<uuid>.jsonl`).

Text is kept verbatim; see README.md in this folder for the rules. Usage: convert.py IN OUT [--model M] [--cwd D]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import re
import uuid
from datetime import UTC, datetime, timedelta

ROLE_RE = re.compile(r"^_\*\*(User|Agent|Assistant)(?:[:\s][^*]*?)?(?: \(([^)]*)\))?\*\*_\s*$")
TS_RE = re.compile(r"(\d{4}-\d{2}-\d{2})[ T_](\d{2})[:\-](\d{2})(?:[:\-](\d{2}))?Z?")
ZERO_USAGE = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
              "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


def _hid(*parts: object, n: int = 8) -> str:
    return hashlib.sha1("\x1f".join(map(str, parts)).encode()).hexdigest()[:n]


def _parse_ts(s: str | None) -> datetime | None:
    if not s:
        return None
    m = TS_RE.search(s)
    if not m:
        return None
    d, hh, mm, ss = m.groups()
    return datetime.strptime(f"{d} {hh}:{mm}:{ss or '00'}", "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)


LEGACY_TITLE_TS_RE = re.compile(r"\((\d{1,2})/(\d{1,2})/(\d{4}), (\d{1,2}):(\d{2}):(\d{2})(?: ([AP]M))?\)")


def _parse_legacy_title_ts(s: str) -> datetime | None:
    """Early SpecStory titles carry the exporter's locale: `(2/12/2025, 10:20:12 PM)` (US, month first) or
    `(25/02/2025, 04:16:49)` (24-hour, day first). The clock is local time of unknown zone; it is read as UTC."""
    m = LEGACY_TITLE_TS_RE.search(s)
    if not m:
        return None
    a, b, year, hh, mi, ss, ampm = m.groups()
    month, day = (int(a), int(b)) if ampm else (int(b), int(a))
    hour = int(hh) % 12 + (12 if ampm == "PM" else 0) if ampm else int(hh)
    return datetime(int(year), month, day, hour, int(mi), int(ss), tzinfo=UTC)


def _iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def _provider_for(model: str) -> tuple[str, str]:
    m = model.lower()
    if m.startswith("gpt") or "codex" in m or m.startswith("o3") or m.startswith("o4"):
        return "openai", "openai-responses"
    return "anthropic", "anthropic-messages"


class Writer:
    """Builds the pi v3 entry chain."""

    def __init__(self, session_id: str, start: datetime, cwd: str, default_model: str):
        self.entries: list[dict] = []
        self.parent: str | None = None
        self.clock = start
        self.default_model = default_model
        self.header = {"type": "session", "version": 3, "id": session_id, "timestamp": _iso(start), "cwd": cwd}

    def _tick(self, ts: datetime | None) -> datetime:
        self.clock = ts if ts and ts > self.clock else self.clock + timedelta(seconds=1)
        return self.clock

    def _push(self, message: dict, ts: datetime | None) -> None:
        t = self._tick(ts)
        message["timestamp"] = int(t.timestamp() * 1000)
        eid = _hid(self.header["id"], len(self.entries), message.get("role"))
        self.entries.append({"type": "message", "id": eid, "parentId": self.parent, "timestamp": _iso(t),
                             "message": message})
        self.parent = eid

    def user(self, text: str, ts: datetime | None = None) -> None:
        self._push({"role": "user", "content": [{"type": "text", "text": text}]}, ts)

    def assistant(self, content: list[dict], model: str | None = None, usage: dict | None = None,
                  ts: datetime | None = None) -> None:
        model = model or self.default_model
        provider, api = _provider_for(model)
        stop = "toolUse" if any(c["type"] == "toolCall" for c in content) else "stop"
        self._push({"role": "assistant", "content": content, "api": api, "provider": provider, "model": model,
                    "usage": usage or dict(ZERO_USAGE), "stopReason": stop}, ts)

    def tool_result(self, call_id: str, name: str, text: str, is_error: bool = False,
                    ts: datetime | None = None) -> None:
        self._push({"role": "toolResult", "toolCallId": call_id, "toolName": name,
                    "content": [{"type": "text", "text": text}], "isError": is_error}, ts)

    def dump(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as f:
            f.write(json.dumps(self.header, ensure_ascii=False) + "\n")
            for e in self.entries:
                f.write(json.dumps(e, ensure_ascii=False) + "\n")


# ---------------------------------------------------------------- SpecStory markdown

FENCE_RE = re.compile(r"^\s{0,3}(`{3,})(.*)$")


class FenceState:
    """CommonMark-style fence tracking: a fence opened by N backticks closes only at a bare run of >= N backticks.

    Cursor exports nest fences (a ````` ````diff ````` block that holds a ```` ```diff ```` line); a plain toggle
    would close the outer fence there and cut the transcript at role headers quoted inside it.
    """

    def __init__(self) -> None:
        self.open = 0

    def feed(self, line: str) -> bool:
        """Consume one line; True when the line is a fence marker (opening or closing)."""
        m = FENCE_RE.match(line)
        if not m:
            return False
        run, rest = len(m.group(1)), m.group(2).strip()
        if not self.open:
            self.open = run
            return True
        if run >= self.open and not rest:
            self.open = 0
            return True
        return False

    @property
    def inside(self) -> bool:
        return bool(self.open)


def _split_roles(lines: list[str]) -> list[tuple[str, str | None, list[str]]]:
    """[(role, header-parenthetical, body lines)] split at role headers that lie outside code fences."""
    blocks: list[tuple[str, str | None, list[str]]] = []
    fence = FenceState()
    prev = ""
    for line in lines:
        fence.feed(line)
        m = ROLE_RE.match(line)
        # SpecStory writes `---` before every role header; a header right after one starts a turn even when an
        # unbalanced fence in the previous turn (seen in a Cursor export) leaves the tracker "inside".
        if m and fence.inside and prev != "---":
            m = None
        if line.strip():
            prev = line.strip()
        if m:
            fence.open = 0
            # keep the whole header: "(model X, mode Agent)", "(claude-… ) (sidechain)", "(2026-01-03 12:46Z)"
            inner = line.strip()[3:-3].split(None, 1)
            blocks.append((m.group(1), inner[1] if len(inner) > 1 else None, []))
        elif blocks:
            blocks[-1][2].append(line)
    return blocks


def _split_segments(body: list[str]) -> list[list[str]]:
    """Cut an agent block at `---` lines outside code fences and outside <tool-use>/<details>/<think> blocks."""
    segs: list[list[str]] = [[]]
    fence = FenceState()
    depth = 0
    for line in body:
        fence.feed(line)
        s = line.strip()
        if not fence.inside:
            depth += len(re.findall(r"<(?:tool-use|details|think)\b", s))
            depth -= len(re.findall(r"</(?:tool-use|details|think)>", s))
            depth = max(depth, 0)
        if not fence.inside and depth == 0 and s == "---":
            segs.append([])
        else:
            segs[-1].append(line)
    return [s for s in segs if "\n".join(s).strip()]


def _tool_name_from_details(block: str) -> str:
    m = re.search(r"<summary>(.*?)</summary>", block, re.S)
    summ = (m.group(1) if m else "").lower()
    for key, name in (("searched codebase", "codebase_search"), ("grep", "grep_search"),
                      ("listed", "list_dir"), ("searched web", "web_search"), ("searched files", "file_search"),
                      ("read file", "read_file"), ("edit file", "edit_file")):
        if key in summ:
            return name
    return "details"


def _segment_items(seg: list[str]) -> list[tuple]:
    """Items of one agent segment: ('text', s) | ('thinking', s) | ('tool', name, args, result, is_error)."""
    items: list[tuple] = []
    text_buf: list[str] = []

    def flush():
        t = "\n".join(text_buf).strip()
        if t:
            items.append(("text", t))
        text_buf.clear()

    first = next((ln for ln in seg if ln.strip()), "")
    m = re.match(r"^Tool use: \*\*([^*]+)\*\*\s*(.*)$", first.strip())
    if m:  # Claude Code SpecStory form: the whole segment is one tool call and its result
        rest = "\n".join(seg[seg.index(first) + 1:]).strip()
        is_err = rest.startswith("Error:")
        items.append(("tool", m.group(1).strip(), {"summary": m.group(2).strip()}, rest or first.strip(), is_err))
        return items

    i, fence = 0, FenceState()
    while i < len(seg):
        line = seg[i]
        s = line.strip()
        fence.feed(line)
        if not fence.inside and (s.startswith("<tool-use") or s.startswith("<details") or s.startswith("<think")):
            tag = "tool-use" if s.startswith("<tool-use") else ("think" if s.startswith("<think") else "details")
            j = i
            while j < len(seg) and f"</{tag}>" not in seg[j]:
                j += 1
            block = "\n".join(seg[i:j + 1])
            flush()
            if tag == "think":
                inner = re.sub(r"^<think>\s*(<details>\s*<summary>.*?</summary>)?", "", block.strip(), flags=re.S)
                inner = re.sub(r"(</details>\s*)?</think>\s*$", "", inner, flags=re.S).strip()
                if inner:
                    items.append(("thinking", inner))
            else:
                if tag == "tool-use":
                    nm = re.search(r'data-tool-name="([^"]+)"', block)
                    name = nm.group(1) if nm else "tool"
                else:
                    name = _tool_name_from_details(block)
                sm = re.search(r"<summary>(.*?)</summary>", block, re.S)
                summ = re.sub(r"\s+", " ", sm.group(1)).strip() if sm else ""
                items.append(("tool", name, {"summary": summ}, block, False))
            i = j + 1
            continue
        if not fence.inside and re.match(r"^Read file: ", s):
            flush()
            items.append(("tool", "read_file", {"summary": s}, s, False))
            i += 1
            continue
        text_buf.append(line)
        i += 1
    flush()
    return items


def convert_specstory(src: str, default_model: str, cwd: str) -> Writer:
    with open(src, encoding="utf-8") as fh:
        raw = fh.read()
    lines = raw.split("\n")
    sid_m = re.search(r"<!-- (.*?) Session ([0-9a-fA-F-]{20,}) \((.*?)\) -->", raw)
    title_ts = None
    for ln in lines[:12]:
        if ln.startswith("#") or ln.startswith("<!--"):
            title_ts = title_ts or _parse_ts(ln) or _parse_legacy_title_ts(ln)
    fname_ts = _parse_ts(src.rsplit("/", 1)[-1])
    start = (_parse_ts(sid_m.group(3)) if sid_m else None) or title_ts or fname_ts or datetime(2025, 1, 1, tzinfo=UTC)
    session_id = sid_m.group(2) if sid_m else str(uuid.UUID(_hid(src, n=32)))
    w = Writer(session_id, start, cwd, default_model)
    for role, paren, body in _split_roles(lines):
        if paren and "sidechain" in paren:
            continue  # sub-agent (Task) conversation: not part of the main context; its answer is the Task result
        ts = _parse_ts(paren)
        if role == "User":
            text = "\n".join(body).strip()
            text = re.sub(r"\n-{3}\s*$", "", text).strip()
            w.user(text, ts)
            continue
        model = None
        if paren:
            mm = re.match(r"\((?:model )?([^\s,)]+)", paren)
            if mm and not TS_RE.match(mm.group(1)):
                model = mm.group(1)
        if model == "default":
            model = None
        for seg in _split_segments(body):
            pending: list[dict] = []
            for it in _segment_items(seg):
                if it[0] == "text":
                    pending.append({"type": "text", "text": it[1]})
                elif it[0] == "thinking":
                    pending.append({"type": "thinking", "thinking": it[1]})
                else:
                    _, name, args, result, is_err = it
                    cid = "call_" + _hid(session_id, len(w.entries), name)
                    pending.append({"type": "toolCall", "id": cid, "name": name, "arguments": args})
                    w.assistant(pending, model, ts=ts)
                    w.tool_result(cid, name, result, is_err)
                    pending = []
            if pending:
                w.assistant(pending, model, ts=ts)
    return w


# ---------------------------------------------------------------- Claude Code JSONL

DROP_TYPES = {"progress", "file-history-snapshot", "queue-operation", "system", "summary"}


def _blocks(content) -> list[dict]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in (content or []) if isinstance(b, dict)]


def _result_text(b: dict) -> str:
    c = b.get("content")
    if isinstance(c, str):
        return c
    return "\n".join(x.get("text", "") for x in (c or []) if isinstance(x, dict) and x.get("type") == "text")


def _same_reply(r: dict, mid: object) -> bool:
    """Claude Code writes one record per content block; records sharing a message id are one reply."""
    return r.get("type") == "assistant" and (r.get("message") or {}).get("id") == mid


def convert_claude_code(src: str, cwd: str | None) -> Writer:
    recs = []
    with open(src, encoding="utf-8") as fh:
        lines = fh.readlines()
    for ln in lines:
        try:
            r = json.loads(ln)
        except ValueError:
            continue
        if r.get("type") in DROP_TYPES or r.get("isSidechain"):
            continue
        recs.append(r)
    first = next((r for r in recs if r.get("timestamp")), {})
    start = datetime.fromisoformat(first.get("timestamp", "2025-01-01T00:00:00+00:00").replace("Z", "+00:00"))
    w = Writer(first.get("sessionId") or str(uuid.uuid4()), start, cwd or first.get("cwd", "/"), "claude-unknown")
    i = 0
    while i < len(recs):
        r = recs[i]
        ts = datetime.fromisoformat(r["timestamp"].replace("Z", "+00:00")) if r.get("timestamp") else None
        msg = r.get("message") or {}
        if r.get("type") == "assistant":
            mid, content, usage_src = msg.get("id"), [], msg.get("usage") or {}
            while i < len(recs) and _same_reply(recs[i], mid):
                for b in _blocks(recs[i]["message"].get("content")):
                    if b["type"] == "text":
                        content.append({"type": "text", "text": b.get("text", "")})
                    elif b["type"] == "thinking":
                        content.append({"type": "thinking", "thinking": b.get("thinking", "")})
                    elif b["type"] == "tool_use":
                        content.append({"type": "toolCall", "id": b["id"], "name": b["name"],
                                        "arguments": b.get("input", {})})
                usage_src = recs[i]["message"].get("usage") or usage_src
                i += 1
            u = {"input": usage_src.get("input_tokens", 0), "output": usage_src.get("output_tokens", 0),
                 "cacheRead": usage_src.get("cache_read_input_tokens", 0),
                 "cacheWrite": usage_src.get("cache_creation_input_tokens", 0)}
            u["totalTokens"] = sum(u.values())
            u["cost"] = dict(ZERO_USAGE["cost"])
            w.assistant(content, msg.get("model"), u, ts)
            continue
        names = {c["id"]: c["name"] for e in w.entries for c in e["message"].get("content", [])
                 if isinstance(c, dict) and c.get("type") == "toolCall"}
        texts = []
        for b in _blocks(msg.get("content")):
            if b["type"] == "tool_result":
                w.tool_result(b["tool_use_id"], names.get(b["tool_use_id"], "tool"), _result_text(b),
                              bool(b.get("is_error")), ts)
            elif b["type"] == "text":
                texts.append(b.get("text", ""))
        if texts:
            w.user("\n".join(texts), ts)
        i += 1
    return w


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--model", default="cursor-agent-unknown", help="model for SpecStory turns that name none")
    ap.add_argument("--cwd", default=None)
    a = ap.parse_args()
    if a.src.endswith(".jsonl"):
        w = convert_claude_code(a.src, a.cwd)
    else:
        w = convert_specstory(a.src, a.model, a.cwd or "/unknown")
    w.dump(a.out)


if __name__ == "__main__":
    main()
