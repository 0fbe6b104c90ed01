"""ctxscope's summary in OpenClaw's format carries what OpenClaw's quality audit checks: the five sections in
order, the first opaque identifiers of the summarized messages, and the latest user ask.

The audit itself runs in node against OpenClaw's own code in the real-agent suite; this test restates its
identifier rule (from OpenClaw's ``compaction-safeguard-quality``) over the messages in OpenClaw's shape.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from engine.compaction.identifiers import audit_identifiers
from engine.compaction.openclaw_summary import openclaw_summary
from engine.compaction.summary_format import OPENCLAW_HEADINGS
from tests.conftest import MAIN_SESSION, PI_BEFORE_COMPACTION, SESSIONS_JSON

# OpenClaw's rule written out again, apart from the engine's copy (tests/realagents/openclaw/test_summary_quality.py
# runs OpenClaw's own code): group 1 locations, group 2 hex/digit runs; the numbers between are consumed, not kept.
_RULE = re.compile(
    r"(https?://\S+|(?<![A-Za-z0-9._-])/[\w.-]{2,}(?:/[\w.-]+)+|[A-Za-z]:\\[\w\\.-]+"
    r"|(?<![A-Za-z0-9._-])[A-Za-z0-9._-]+\.[A-Za-z0-9._/-]+:\d{1,5})"
    r"|(?:(?:(?:\d+\.\d+|\.\d+)(?:[eE][+-]?\d+)?|\d+\.[eE][+-]?\d+|\d+\.?[eE][+-]\d+"
    r"|(?![A-Fa-f0-9]{8,}(?![A-Fa-f0-9]))\d+\.?[eE]\d+)"
    r"(?:(?=[A-Za-z]+(?![A-Za-z0-9]))(?=[A-Za-z]*[G-Zg-z])[A-Za-z]+)?(?![A-Za-z0-9])"
    r"|(?<![A-Za-z0-9_-])(?=[A-Za-z0-9_-]*(?:[A-Fa-f0-9]{8,}|\d{6,}))([A-Za-z0-9_-]+))",
    re.ASCII,
)


def _message_text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content.strip()
    return "\n".join(block["text"].strip() for block in content if isinstance(block, dict)
                     and isinstance(block.get("text"), str) and block["text"].strip()) if isinstance(
        content, list) else ""


def _audited(messages: Sequence[Mapping[str, Any]]) -> list[str]:
    found: list[str] = []
    for match in _RULE.finditer("\n".join(filter(None, map(_message_text, messages[-10:])))):
        raw = match.group(1) or match.group(2) or ""
        value = re.sub(r"[)\]\"'`,;:.!?<>]+$", "", re.sub(r"^[(\"'`\[{<]+", "", raw.strip()))
        value = value.upper() if re.fullmatch(r"[A-Fa-f0-9]{8,}", value) else value
        if len(value) >= 4 and value not in found:
            found.append(value)
    return found[:12]


def _missing(summary: str, identifiers: list[str]) -> list[str]:
    return [i for i in identifiers
            if (i not in summary.upper() if re.fullmatch(r"[A-F0-9]{8,}", i) else i not in summary)]


def _session(tmp_path: Path, source: Path, name: str) -> Path:
    sessions = tmp_path / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    shutil.copyfile(SESSIONS_JSON, sessions / "sessions.json")
    shutil.copyfile(source, sessions / name)
    return sessions / name


def test_audit_identifiers_are_the_whole_tokens_holding_openclaws_matches() -> None:
    text = ("[message_id: 6c8d8973-aaaa-bbbb-cccc-111122223333] see src/app/main.py and https://x.example/z. "
            "db at db.internal:5432 2>/dev/null, order 1234567")
    # A relative path is no opaque identifier to OpenClaw (its absolute pattern must not follow a name character);
    # the version-like "1.5e3" is a number, consumed whole, so its digits are never one.
    assert audit_identifiers([text, "took 1.5e3 ms"]) == ["6c8d8973-aaaa-bbbb-cccc-111122223333",
                                                           "https://x.example/z", "db.internal:5432", "/dev/null",
                                                           "1234567"]
    assert len(audit_identifiers([" ".join(f"/srv/app{i}/x" for i in range(40))])) == 12


def test_the_openclaw_summary_has_what_the_audit_checks(tmp_path: Path) -> None:
    result = openclaw_summary(_session(tmp_path, MAIN_SESSION, "76cc5ab5-0425-4038-b41f-0af9f313d594.jsonl"),
                              keep_recent=2000)
    lines = [line.strip() for line in result.summary.splitlines()]
    assert [lines.index(f"## {h}") for h in OPENCLAW_HEADINGS] == sorted(lines.index(f"## {h}")
                                                                         for h in OPENCLAW_HEADINGS)
    identifiers = _audited(result.messages)
    assert identifiers and not _missing(result.summary, identifiers)
    assert result.latest_user_ask and result.latest_user_ask in result.summary
    asks = result.summary.split("## Pending user asks\n")[1].split("\n\n")[0].splitlines()
    assert asks[0] == f"- {result.latest_user_ask}"  # the latest unresolved ask first
    payload = result.to_json()
    assert payload["previousSummary"].startswith("Summary unavailable") and len(payload["messages"]) > 10


def test_a_pi_session_summarized_for_openclaw_passes_the_identifier_rule(tmp_path: Path) -> None:
    result = openclaw_summary(_session(tmp_path, PI_BEFORE_COMPACTION, "before-compaction.jsonl"))
    identifiers = _audited(result.messages)
    assert identifiers and not _missing(result.summary, identifiers)
    assert result.latest_user_ask is not None and result.latest_user_ask in result.summary
