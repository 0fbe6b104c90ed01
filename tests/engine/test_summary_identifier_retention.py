"""Identifiers a summary must carry from real conversations (issue 24, retention round 4): each test quotes the
text of a labelled FIT session verbatim (tests/data/real/, docs/compaction.md "Retention, round 4")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.accounting.context import ContextMessage
from engine.compaction.span_text import MessageParts, SpanMessage
from engine.compaction.summarizer import SummaryHeader, structured_summary
from engine.compaction.summary_extract import redacted_parts, span_facts
from engine.stores.entries import Entry


def _message(n: int, parts: MessageParts) -> SpanMessage:
    entry = Entry(n + 1, n * 100, 100, "message", f"e{n}", None, None, role=parts.role)
    return SpanMessage(ContextMessage(entry, parts.role, n), redacted_parts(parts))


def _span(*parts: MessageParts) -> list[SpanMessage]:
    return [_message(n, p) for n, p in enumerate(parts)]


def _call(name: str, arguments: Mapping[str, Any]) -> MessageParts:
    return MessageParts("assistant", "", tool_calls=((name, arguments),))


def _summary(span: list[SpanMessage]) -> str:
    return structured_summary(SummaryHeader("summarize", len(span), 100, "e99"), span, fmt="pi", read_files=(),
                              modified_files=()).text


def test_a_git_command_that_changes_the_repository_is_kept_whole() -> None:
    # d62 (rommeld/leeson) and d79 (tslateman/duet): the agent disabled commit signing for the whole machine and
    # undid a commit; no file list shows either, and only the tool call says it.
    span = _span(MessageParts("user", "commit it"),
                 _call("Bash", {"command": "git config --global commit.gpgsign false",
                                "description": "Disable automatic commit signing"}),
                 MessageParts("toolResult", "", tool_name="Bash"),
                 _call("Bash", {"command": "git reset HEAD~1", "description": "Reset the last commit"}),
                 _call("Bash", {"command": "git status && git log --oneline -3", "description": "Check"}),
                 MessageParts("assistant", "Done."))
    identifiers = [i for i, _ in span_facts(span).identifiers]
    assert "git config --global commit.gpgsign false" in identifiers and "git reset HEAD~1" in identifiers
    assert not any(i.startswith(("git status", "git log")) for i in identifiers)  # reading commands change nothing
    summary = _summary(span)
    assert "git config --global commit.gpgsign false" in summary and "git reset HEAD~1" in summary


def test_only_the_git_commands_that_change_state_are_read_from_a_command_line() -> None:
    from engine.compaction.identifiers import state_commands

    # The first three are d61's (rommeld/leeson) and d63's (Safecast/safecast-map-MCP) commands verbatim.
    assert state_commands("git stash 2>&1") == ["git stash"]
    assert state_commands("git remote -v 2>&1") == []
    assert state_commands("git stash && git checkout main") == ["git stash", "git checkout main"]
    assert state_commands("git stash list | head -5") == [] and state_commands("git branch -a") == []


_LORE_REPORT = (  # d79 (tslateman/duet): the Task tool's result, verbatim
    "Recorded both entries to Lore:\n\n**Decision `dec-feb24b59`**: Check `.github/ISSUE_TEMPLATE/` before filing "
    "issues on external repos; use web form for YAML templates with required fields\n\n**Pattern "
    "`pat-577737-336d4c0c`**: Check issue templates before filing\n\nThe decision captures the specific lesson "
    "learned from the claude-code issue closure, while the pattern establishes the general practice of checking "
    "template types before choosing between `gh issue create` (for markdown templates) and the web form (for YAML "
    "templates with required fields).\nagentId: a290814 (for resuming to continue this agent's work if needed)\n"
    "<usage>total_tokens: 10432\ntool_uses: 4\nduration_ms: 24782</usage>")
_PLAN_REPORT = (  # d01 (specstoryai/tnyOffice): the head of the Task tool's result, verbatim
    "Error:\n\n```\nThe agent proposed a plan that was rejected by the user. The user chose to stay in plan mode "
    "rather than proceed with implementation.\n\nRejected plan:\n## Current Git Integration Analysis\n\n### 1. "
    "**Document Export to Git**\nThe system exports documents through the `GitSyncService` class "
    "(`/apps/api/src/services/git-sync.ts`):\n- **Sync Endpoint**: `POST /api/v1/git/sync` triggers the export\n")


def test_the_head_of_a_sub_agents_report_names_what_it_found() -> None:
    # A sub-agent's report is prose an agent wrote for this one: what it opens with is what it found or did. Other
    # tools' output stays data, and the harness's trailer (agentId, usage) is not the report.
    span = _span(MessageParts("user", "record that lesson to lore"),
                 _call("Task", {"description": "Record issue filing lesson to Lore"}),
                 MessageParts("toolResult", _LORE_REPORT, tool_name="Task"),
                 _call("Task", {"description": "Search git integration code"}),
                 MessageParts("toolResult", _PLAN_REPORT, tool_name="Task"),
                 MessageParts("assistant", "Recorded."))
    identifiers = [i for i, _ in span_facts(span).identifiers]
    assert {"dec-feb24b59", "GitSyncService", "/apps/api/src/services/git-sync.ts"} <= set(identifiers)
    assert "a290814" not in identifiers and "duration_ms" not in identifiers
    summary = _summary(span)
    assert "dec-feb24b59" in summary and "apps/api/src/services/git-sync.ts" in summary
    read = _span(MessageParts("user", "check the config"),
                 MessageParts("toolResult", _LORE_REPORT, tool_name="Read"), MessageParts("assistant", "Checked."))
    assert "dec-feb24b59" not in [i for i, _ in span_facts(read).identifiers]


def test_a_sub_agents_report_is_redacted_before_its_identifiers_are_read() -> None:
    # Tool output is not redacted when the span is built (redacted_parts): the identifiers taken from a sub-agent's
    # report must come from its redacted text, or a key it quotes would be copied into the summary.
    key = "sk-proj-Zx81Ka0Qm2Lr5Tn7Vb9Wc3Yd6Fe4Gh1Jk0"
    report = f"Found the failing call: `{key}` is sent by `billing_client.py`.\nagentId: a290814"
    span = _span(MessageParts("user", "find where the key leaks"), _call("Task", {"description": "Find the key"}),
                 MessageParts("toolResult", report, tool_name="Task"), MessageParts("assistant", "Found it."))
    identifiers = [i for i, _ in span_facts(span).identifiers]
    assert "billing_client.py" in identifiers
    assert not any("Zx81Ka0Qm2Lr5Tn7" in i for i in identifiers)
    assert "Zx81Ka0Qm2Lr5Tn7" not in _summary(span)


def test_a_markdown_links_text_is_read_as_the_name_it_shows() -> None:
    # d63 (Safecast/safecast-map-MCP) and d80 (obsessiondb/chkit), the agent's text verbatim: the name the agent
    # showed the reader is the link's text; glued to its target it was no token at all.
    deploy = ("Looking at [.github/workflows/deploy.yml:61](.github/workflows/deploy.yml#L61), the deployment sets:")
    bun = ("It's a confirmed bug in bun itself ([oven-sh/bun#24687](https://github.com/oven-sh/bun/issues/24687)). "
           "`bun publish` is documented as resolving `workspace:*` at publish time, but it doesn't reliably do so.")
    span = _span(MessageParts("user", "why haiku?"), MessageParts("assistant", deploy),
                 MessageParts("user", "why the manual step?"), MessageParts("assistant", bun))
    identifiers = [i for i, _ in span_facts(span).identifiers]
    assert ".github/workflows/deploy.yml:61" in identifiers and "oven-sh/bun#24687" in identifiers
    assert not any("](" in i or i.startswith("https://github.com/oven-sh") for i in identifiers)
    summary = _summary(span)
    assert ".github/workflows/deploy.yml" in summary and "oven-sh/bun#24687" in summary
