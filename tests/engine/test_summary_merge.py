"""Merging earlier summary items with a span's facts: folded duplicates, superseded conflicts, done moves,
nothing else dropped; and what the span's messages yield (whole items, redacted input)."""

from __future__ import annotations

from typing import Any

from engine.accounting.context import ContextMessage
from engine.compaction.span_text import MessageParts, SpanMessage
from engine.compaction.summary_extract import SpanFact, SpanFacts, redacted_parts, span_facts
from engine.compaction.summary_merge import conflicts, merge_items, resolves
from engine.compaction.summary_sections import SummaryItem
from engine.stores.entries import Entry


def _item(text: str, kind: str, order: int) -> SummaryItem:
    return SummaryItem(text, kind, source="compaction entry c0", order=order)


def _facts(*facts: tuple[str, str]) -> SpanFacts:
    return SpanFacts(tuple(SpanFact(kind, text, f"e{n}", n) for n, (kind, text) in enumerate(facts)))


def _kinds(items: list[SummaryItem]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for item in items:
        out.setdefault(item.kind, []).append(item.text)
    return out


def test_nothing_earlier_is_dropped_and_new_items_are_added_in_order() -> None:
    previous = [_item("Use Redis for the limiter", "decisions", 0), _item("Never log API keys", "constraints", 1),
                _item("A section nobody knows", "other", 2), _item("add metrics for rejects", "todos", 3)]
    merged = merge_items(previous, _facts(("decisions", "Going with EVALSHA loaded at startup"),
                                          ("todos", "write the rollout doc")))
    kinds = _kinds(merged)
    assert kinds["decisions"] == ["Use Redis for the limiter", "Going with EVALSHA loaded at startup"]
    assert kinds["constraints"] == ["Never log API keys"] and kinds["other"] == ["A section nobody knows"]
    assert kinds["todos"] == ["add metrics for rejects", "write the rollout doc"]
    new = next(i for i in merged if i.text == "write the rollout doc")
    assert new.source == "entry e1" and new.order > max(i.order for i in previous)


def test_a_duplicate_folds_into_the_older_item_and_keeps_its_text() -> None:
    previous = [_item("Write the migration for the ledger table", "todos", 0)]
    merged = merge_items(previous, _facts(("todos", "write the migration for the ledger table")))
    assert [(i.kind, i.text) for i in merged] == [("todos", "Write the migration for the ledger table")]
    assert merged[0].refs >= 1


def test_a_conflicting_newer_decision_supersedes_the_older_one() -> None:
    previous = [_item("Decision: cache merchant lookups for 30 seconds.", "decisions", 0),
                _item("Never deploy the payments service on Fridays.", "constraints", 1)]
    merged = merge_items(previous, _facts(
        ("decisions", "Decision: cache merchant lookups for 120 seconds instead."),
        ("constraints", "Actually, deploying the payments service on Fridays is fine after 10:00.")))
    kinds = _kinds(merged)
    assert kinds["superseded"] == ["Decision: cache merchant lookups for 30 seconds.",
                                   "Never deploy the payments service on Fridays."]
    assert kinds["decisions"] == ["Decision: cache merchant lookups for 120 seconds instead."]


def test_conflicts_needs_shared_words_and_a_change() -> None:
    assert conflicts("Keep PRs under 400 lines", "From now on, keep PRs under 800 lines")
    assert conflicts("Shard the ledger by merchant_id hash", "Shard the ledger by merchant_id range instead of hash")
    assert not conflicts("Keep old code for reference", "Keep old code working alongside new code")
    assert not conflicts("Use Redis for the limiter", "Use Redis for the limiter")
    assert not conflicts("Cache merchant lookups for 30 seconds", "Run the settlement batch at 02:00 instead")


def test_done_moves_todos_and_asks_and_asks_never_supersede_each_other() -> None:
    previous = [_item("add a Grafana panel for rejected refunds", "todos", 0),
                _item("Can you add a p99 latency panel for the refunds service?", "asks", 1),
                _item("Can you add a p95 latency panel for the refunds service?", "asks", 2)]
    merged = merge_items(previous, _facts(("done", "added the Grafana panel for rejected refunds."),
                                          ("done", "added the p99 latency panel for the refunds service.")))
    kinds = _kinds(merged)
    assert kinds["done"] == ["add a Grafana panel for rejected refunds",
                             "Can you add a p99 latency panel for the refunds service?"]
    assert kinds["asks"] == ["Can you add a p95 latency panel for the refunds service?"]
    assert "todos" not in kinds


def test_a_completion_matching_nothing_is_recorded_as_done_work() -> None:
    merged = merge_items([], _facts(("done", "Deflaked the refill test")))
    assert _kinds(merged) == {"done": ["Deflaked the refill test"]}
    assert resolves("Done: added the Grafana panel for rejected refunds", "add a Grafana panel for rejected refunds")
    assert not resolves("added the Grafana panel", "rotate the staging webhook secret")


def test_kept_messages_only_close_or_supersede() -> None:
    previous = [_item("add a Grafana panel for rejected refunds", "todos", 0),
                _item("Decision: keep idempotency keys for 48 hours.", "decisions", 1)]
    later = _facts(("done", "added the Grafana panel for rejected refunds"),
                   ("decisions", "Decision: keep idempotency keys for 72 hours instead of 48."),
                   ("todos", "something only the kept messages mention"))
    kinds = _kinds(merge_items(previous, SpanFacts(), later))
    assert kinds == {"done": ["add a Grafana panel for rejected refunds"],
                     "superseded": ["Decision: keep idempotency keys for 48 hours."]}


def test_the_same_text_twice_is_one_item_with_the_later_state() -> None:
    previous = [_item("fix the refill test", "asks", 0), _item("fix the refill test", "done", 1),
                _item("fix the refill test", "context", 2), _item("Let me look.", "done", 3),
                _item("Let me look.", "done", 4)]
    assert [(i.kind, i.text) for i in merge_items(previous, SpanFacts())] == [
        ("done", "fix the refill test"), ("done", "Let me look.")]


def _span(*messages: tuple[str, str, tuple[tuple[str, dict[str, Any]], ...]]) -> list[SpanMessage]:
    out = []
    for n, (role, text, calls) in enumerate(messages):
        entry = Entry(n + 1, n * 100, 100, "message", f"e{n}", None, None, role=role)
        out.append(SpanMessage(ContextMessage(entry, role, n), MessageParts(role, text, tool_calls=calls)))
    return out


def test_span_facts_are_whole_and_from_redacted_text() -> None:
    secret = "sk-ant-api03-" + "Q9w8E7r6" * 5
    long_decision = "Decision: " + " ".join(["keep the shard router stateless"] * 12) + "."
    span = _span(
        ("user", f"Never paste keys like {secret} into the chat. Can you rotate the staging key {secret} today?", ()),
        ("assistant", f"{long_decision}\nTODO: move the refunds tests next to the new router\n"
                      "Done: rotated the staging key", (("edit", {"path": "services/refunds/router.py"}),)),
        ("user", "yes, go ahead", ()),  # a decision is one the user confirmed (docs/capture.md)
        ("bashExecution", "", ()),
    )
    span = [SpanMessage(s.message, redacted_parts(s.parts), s.pin) for s in span]
    facts = span_facts(span)
    texts = [f.text for f in facts.facts] + [i for i, _ in facts.identifiers]
    assert all(secret not in t for t in texts)
    # The request was asked, answered ("Done: rotated …") and closed by the user's next message.
    assert any("[REDACTED:" in f.text for f in facts.facts if f.kind == "closed")
    decision = next(f.text for f in facts.facts if f.kind == "decisions")
    assert decision == long_decision  # longer than the extractor's 200 characters, and whole
    assert ("todos", "move the refunds tests next to the new router") in [(f.kind, f.text) for f in facts.facts]
    assert ("done", "rotated the staging key") in [(f.kind, f.text) for f in facts.facts]
    assert ("services/refunds/router.py", "e1") in facts.identifiers


def test_only_requests_become_asks() -> None:
    span = _span(("user", "jesus, everything works, you are a monster", ()),
                 ("user", "Please draft the incident report for the settlement outage.", ()),
                 ("user", "why is the refill test flaky?", ()), ("user", "ok go ahead", ()))
    asks = [f.text for f in span_facts(span).facts if f.kind == "asks"]
    assert asks == ["Please draft the incident report for the settlement outage.", "why is the refill test flaky?"]


def test_a_todo_line_is_open_work_never_a_decision() -> None:
    span = _span(("assistant", "We'll use the outbox pattern for refunds.\nTODO: add a Grafana panel for rejected "
                               "refunds\n- [ ] backfill merchant tiers for the legacy accounts", ()))
    facts = [(f.kind, f.text) for f in span_facts(span).facts]
    assert ("todos", "add a Grafana panel for rejected refunds") in facts
    assert ("todos", "backfill merchant tiers for the legacy accounts") in facts
    assert not [t for k, t in facts if k == "decisions" and ("Grafana" in t or "backfill" in t)], facts
