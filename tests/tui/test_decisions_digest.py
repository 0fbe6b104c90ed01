"""The Decisions tab's times: this year's without the year, any other year's with it."""

from __future__ import annotations

from tui.widgets.decisions import DecisionsDigest, NotedItem, digest_content


def test_an_item_from_another_year_shows_its_year() -> None:
    digest = DecisionsDigest(
        decisions=(NotedItem("use SQLite", "2026-11-23T18:08:00Z", "live"),),
        open_items=(NotedItem("migrate the JSON index", "2025-12-01T09:30:00Z", "cp_004"),),
        learnings=(), exchanges=(), thread_summary="", checkpoint_id="cp_004", live=True, this_year="2026",
    )
    text = str(digest_content(digest))
    assert "11-23 18:08  use SQLite" in text
    assert "2025-12-01 09:30  migrate the JSON index" in text
