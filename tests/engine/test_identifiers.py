"""Exact identifiers are whole tokens of the text they come from, never fragments, never generic ones."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from engine.compaction.identifiers import GENERIC_IDENTIFIERS, extract_identifiers, is_location, minimal_identifiers

TEXT = (
    "See /Users/badlogic/workspaces/pi-mono/packages/coding-agent/src/cli.ts and ./core/exports.ts, then run "
    "`npm run check` (or `npx tsx src/cli-new.ts`). Commit 83378aad7e fixed PAY-4121 in v2.14.3; the primary is "
    "redis-primary.internal:6379 and the docs are at https://github.com/badlogic/pi-mono/issues/12. Call "
    "AgentSession.prompt() and _disconnectFromAgent(), set MAX_DECISIONS, order 246813579, pin "
    "@mariozechner/pi-tui@0.14.2 and pydantic==2.9.2, pass --dry-run. Pipe to /dev/null, not /tmp; e.g. and/or "
    "3.5 1/2 read/write are words. `this.ui.addChild(new Text(x, 1))` is code, `refactor` is a branch."
)


def test_the_kinds_of_identifier_are_found_whole() -> None:
    found = extract_identifiers([TEXT])
    assert found == [
        "npm run check", "npx tsx src/cli-new.ts", "refactor",
        "/Users/badlogic/workspaces/pi-mono/packages/coding-agent/src/cli.ts", "./core/exports.ts", "83378aad7e",
        "PAY-4121", "v2.14.3", "redis-primary.internal:6379", "https://github.com/badlogic/pi-mono/issues/12",
        "AgentSession.prompt()", "_disconnectFromAgent()", "MAX_DECISIONS", "246813579",
        "@mariozechner/pi-tui@0.14.2", "pydantic==2.9.2", "--dry-run",
    ]


def test_generic_ones_and_code_are_skipped() -> None:
    found = extract_identifiers([TEXT])
    assert not set(found) & GENERIC_IDENTIFIERS
    assert not any("addChild" in f or f in ("e.g.", "and/or", "1/2", "read/write", "3.5") for f in found)


def test_products_spelled_like_files_are_not_identifiers() -> None:
    # pi's before-compaction.jsonl put "Node.js" (from "Node.js v23.4.0" in a stack trace) among its identifiers.
    assert extract_identifiers(["Node.js v23.4.0 runs Next.js; see server.js and `Vue.js`"]) == [
        "v23.4.0", "server.js"]


def test_locations_only_keeps_paths_and_urls() -> None:
    assert extract_identifiers(["cd /srv/app && curl -s https://x.example/h --retry 3 > out.log 2>/dev/null"],
                               locations_only=True) == ["/srv/app", "https://x.example/h", "out.log"]
    assert is_location("src/a/b.py") and not is_location("MAX_DECISIONS")


_WORDS = st.lists(st.sampled_from([
    "src/a.py", "/etc/app/x.yaml", "https://h.example/p?q=1", "deadbeef12", "v1.2.3", "foo_bar", "fooBar()",
    "word", "the", "(", ")", ",", ".", "`npm test`", "/dev/null", "JIRA-7", "a/b", "x:80", "host.local:8080",
]), max_size=30)


@given(words=_WORDS, seps=st.lists(st.sampled_from([" ", "\n", ", ", " (", ") "]), min_size=30, max_size=30))
def test_every_identifier_is_a_whole_token_of_its_text(words: list[str], seps: list[str]) -> None:
    text = "".join(w + s for w, s in zip(words, seps, strict=False))
    for identifier in extract_identifiers([text]):
        assert re.search(r"(?<![\w./@~-])" + re.escape(identifier) + r"(?![\w/@-])", text), (identifier, text)


def test_minimal_identifiers_drops_only_what_is_still_there() -> None:
    ids = ["services/a.py", "a.py", "PAY-1", "https://h.example/x"]
    assert minimal_identifiers(ids, "see https://h.example/x") == ["services/a.py", "PAY-1"]


def test_a_name_with_a_slash_in_backticks_is_kept_whole() -> None:
    # A directory written with its slash, a branch, a file of an extension not listed, a slash command: the agent
    # put them in backticks because they are names (real sessions, issue 24); two-letter pairs are not.
    text = ("I'll write the tickets to `request_queue/` on `feature/mcp-runtime-logging`, the weights go to "
            "`checkpoints/simclr_best.pth`; use `/copy` and `logs/AGI-{id}/agent-{n}.log`, not `a/b` or `I/O`.")
    assert extract_identifiers([text]) == ["request_queue/", "feature/mcp-runtime-logging",
                                           "checkpoints/simclr_best.pth", "/copy", "logs/AGI-{id}/agent-{n}.log"]


def test_code_fences_pair_in_order_so_a_closing_fence_opens_no_shell_block() -> None:
    # Paired by a pattern, a python block's closing fence opened a "shell block" of the prose after it, and the
    # real bash block that followed was lost (a plan the user pasted, a real session).
    text = ("Refactor:\n```python\nclass Runner:\n    pass\n```\n\nrun it and see what breaks now\n\n"
            "### 5. Run the tests\n```bash\nnpm run test:pr\n```\nThis passes today.\n")
    found = extract_identifiers([text])
    assert "npm run test:pr" in found and "run it and see what breaks now" not in found
