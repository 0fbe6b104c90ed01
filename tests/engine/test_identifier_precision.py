"""Exact identifiers are what a continuation needs (paths, names, commands, versions, ids), never bare numbers,
timestamp fragments or literals (issue 28 item 14); the values OpenClaw's audit asks for are kept apart."""

from __future__ import annotations

import random
from typing import Any

from engine.accounting.context import ContextMessage
from engine.compaction.identifiers import extract_identifiers, is_identifier
from engine.compaction.span_text import MessageParts, SpanMessage
from engine.compaction.summarizer import SummaryHeader, structured_summary
from engine.stores.entries import Entry
from sim.synthetic_text import app_log


def test_bare_numbers_times_and_literals_are_not_identifiers() -> None:
    text = ("checks ✓ 191960 ✗ 40 after 00:05 and 12:30; payload 52428800 bytes; the flag is `true`, "
            "the default `null`; log {\"ts\":1772441000208,\"level\":\"info\"}")
    found = extract_identifiers([text])
    assert not any(token.strip(":").isdigit() or token in ("00:05", "12:30", "true", "null") for token in found)
    assert not is_identifier("191960") and not is_identifier(":1772441000208") and not is_identifier("00:05")
    # A number named as an id, and real host:port pairs, stay.
    found = extract_identifiers(["refund order 246813579 failed; redis at cache-1:6379 and 10.0.0.7:8080"])
    assert found == ["246813579", "cache-1:6379", "10.0.0.7:8080"]


def test_package_names_dotfiles_and_route_segments_are_identifiers() -> None:
    # Shapes the labelled identifiers of the real corpus take (tests/data/real, FIT sessions).
    found = extract_identifiers(["use diff-match-patch and x-api-key with gemini-2.5-pro, copy .env.example, hook in "
                                 ".githooks, edit src/app/[locale]/layout.tsx"])
    assert found == ["diff-match-patch", "x-api-key", "gemini-2.5-pro", ".env.example", ".githooks",
                     "src/app/[locale]/layout.tsx"]
    # Prose compounds are no package names.
    assert extract_identifiers(["a real-time, end-to-end, step-by-step, out-of-the-box and built-in fix"]) == []


def _span(*messages: tuple[str, str]) -> list[SpanMessage]:
    out = []
    for n, (role, text) in enumerate(messages):
        entry = Entry(n + 1, n * 100, 100, "message", f"e{n}", None, None, role=role)
        out.append(SpanMessage(ContextMessage(entry, role, n), MessageParts(role, text)))
    return out


def _section(summary: str, heading: str) -> str:
    return summary.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]


def test_openclaws_audit_values_are_kept_but_not_listed_as_identifiers() -> None:
    log = app_log(random.Random(3), 4)
    span = _span(("user", "check the payments logs for slow requests"), ("assistant", "Reading the log."),
                 ("toolResult", log), ("assistant", "Nothing slow in /v1/payments."))
    kwargs: dict[str, Any] = {"fmt": "openclaw", "read_files": (), "modified_files": ()}
    summary = structured_summary(SummaryHeader("summarize", 4, 400, "e9"), span, **kwargs).text
    identifiers = _section(summary, "Exact identifiers")
    stamps = [line.split('"ts":')[1].split(",")[0] for line in log.splitlines()]
    assert all(stamp in summary for stamp in stamps)  # OpenClaw's audit still finds every value verbatim
    assert not any(stamp in identifiers for stamp in stamps)  # but they are not called identifiers
    assert ":" + stamps[0] not in summary
    assert "/v1/payments" in identifiers
    assert "Values quoted in the last messages" in summary


def test_commands_in_a_shell_block_and_media_files_are_identifiers() -> None:
    text = ("Start it with:\n\n```bash\nnpm run dev\n```\n\nthen transcribe BuildingTnyDocs-Demo.mp4 into "
            "subtitles.srt.\n\n```python\nvalue = compute(1)\n```")
    found = extract_identifiers([text])
    assert found == ["npm run dev", "BuildingTnyDocs-Demo.mp4", "subtitles.srt"]


def test_a_file_the_user_attaches_by_a_chat_reference_is_named_without_the_prefix() -> None:
    found = extract_identifiers(["Then, update the #file:README.md  file and read (#file:main.yml)."])
    assert "README.md" in found and "main.yml" in found
