"""The Decisions tab's times: this year's without the year, any other year's with it."""

from __future__ import annotations

from engine import DecisionsDigest, NotedItem
from tui.widgets.decisions import digest_content


def test_an_item_from_another_year_shows_its_year() -> None:
    digest = DecisionsDigest(
        decisions=(NotedItem("use SQLite", "2026-11-23T18:08:00Z", "live"),),
        open_items=(NotedItem("migrate the JSON index", "2025-12-01T09:30:00Z", "cp_004"),),
        learnings=(), exchanges=(), thread_summary="", checkpoint_id="cp_004", live=True, this_year="2026",
    )
    text = str(digest_content(digest))
    assert "11-23 18:08  use SQLite" in text
    assert "2025-12-01 09:30  migrate the JSON index" in text


def test_stale_open_items_are_hidden_unless_asked_for() -> None:
    digest = DecisionsDigest(
        decisions=(), learnings=(), exchanges=(), thread_summary="", checkpoint_id=None, live=True, this_year="2026",
        open_items=(NotedItem("document the backoff", "2026-11-23T18:08:00Z", "live"),
                    NotedItem("add a retry test", "2026-11-23T18:00:00Z", "live", stale="done later: Done: added it")),
    )
    hidden = str(digest_content(digest))
    assert "Open items (1)" in hidden and "document the backoff" in hidden and "add a retry test" not in hidden
    assert "+ 1 stale (finished later or old): x shows them" in hidden
    shown = str(digest_content(digest, show_stale=True))
    assert "add a retry test" in shown and "stale: done later" in shown


def test_the_first_line_says_where_the_items_come_from_in_words() -> None:
    # It read "From no checkpoint yet + live capture since then" on every session without a checkpoint.
    def first_line(checkpoint_id: str | None, live: bool) -> str:
        digest = DecisionsDigest(decisions=(), open_items=(), learnings=(), exchanges=(), thread_summary="",
                                 checkpoint_id=checkpoint_id, live=live, this_year="2026")
        return str(digest_content(digest)).splitlines()[0]

    assert first_line(None, True) == "No checkpoint yet: live capture of the whole session; newest first."
    assert first_line(None, False) == "No checkpoint yet and live capture is off."
    assert first_line("cp_002", True) == "From checkpoint cp_002 + live capture since then; newest first."
    assert first_line("cp_002", False) == "From checkpoint cp_002 (live capture off); newest first."
