"""Capture resumed from its saved state reads a session as one pass does, even when it stopped right after the user
stopped the agent (docs/capture.md, The ledger: what the state keeps). Real FIT sessions."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.capture.envelopes import is_interrupt
from engine.capture.ledger import Ledger, carry_open, fold_agent, fold_user
from engine.capture.state import CapturedState, capture
from engine.capture.state_files import load_state, save_state
from engine.stores.transcript import read_transcript

REAL = Path(__file__).resolve().parents[1] / "data" / "real"

# FIT sessions with a Claude Code interrupt marker (tny d01, keyframe-blogger d13, leeson d61) or a SpecStory
# "Cancelled" reply (easy-video-share d23, d24).
_STOPS = ("d01_tny_git_pull_plan", "d13_kfb_blog_pipeline", "d61_leeson_risk_guard", "d23_evs_accounts_api",
          "d24_evs_metronic")


def _stop_points(name: str) -> list[int]:
    """Entry indices right after which the user had just stopped the agent."""
    reader = read_transcript(REAL / f"{name}.jsonl")
    points = []
    for n, entry in enumerate(reader.entries):
        if entry.role not in ("user", "assistant"):
            continue
        content = reader.read_object(entry).get("message", {}).get("content")
        texts = [content] if isinstance(content, str) else [
            b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text"]
        if any(is_interrupt(t) or t.strip().endswith("Cancelled") for t in texts):
            points.append(n)
    return points


@pytest.mark.parametrize("name", _STOPS)
def test_capture_saved_right_after_a_stop_and_resumed_reads_as_one_pass(name: str, tmp_path: Path) -> None:
    reader = read_transcript(REAL / f"{name}.jsonl")
    entries = list(reader.entries)
    whole = capture(CapturedState(), entries, reader.read_object)
    points = _stop_points(name)
    assert points, name
    for n in points:
        first = capture(CapturedState(), entries[:n + 1], reader.read_object)
        save_state(tmp_path, name, first)
        resumed = capture(load_state(tmp_path, name).state, entries[n + 1:], reader.read_object)
        assert resumed.items() == whole.items(), (name, n)


def test_a_new_capture_cycle_after_a_checkpoint_keeps_the_stop() -> None:
    # tha-hammer/easy-video-share-vue d23: the reply to "ran command in external window, error attached" was stopped,
    # then the user moved on; a checkpoint between the stop and the next message must not close the request.
    asked = "ran command in external window, error attached"
    ledger = fold_user(Ledger(), asked, "t0", "e0")
    ledger = fold_agent(ledger, "Now let's apply these changes:", True, "t1", "e1")
    ledger = fold_agent(ledger, "Cancelled", False, "t2", "e2")
    moved_on = "Help me understand the troubleshooting reasoning."
    straight = fold_user(ledger, moved_on, "t3", "e3")
    after_checkpoint = fold_user(carry_open(ledger), moved_on, "t3", "e3")
    for folded in (straight, after_checkpoint):
        assert [(i.text, i.source, i.done) for i in folded.items if i.text == asked] == [(asked, "stopped", False)]
