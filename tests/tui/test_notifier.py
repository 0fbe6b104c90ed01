"""The Notifier says each thing once: identical notices folded for a minute, read errors once per failure."""

from __future__ import annotations

from typing import Any

from tui.notifier import Notifier


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _notifier() -> tuple[Notifier, list[dict[str, Any]], Clock]:
    shown: list[dict[str, Any]] = []
    clock = Clock()

    def notify(message: str, **kwargs: Any) -> None:
        shown.append({"message": message, **kwargs})

    return Notifier(notify, label=lambda key: f"<{key}>", clock=clock, quiet_seconds=60), shown, clock


def test_an_identical_notice_is_held_back_then_shown_with_its_count() -> None:
    notifier, shown, clock = _notifier()
    assert notifier.tell("sidecar refused", title="Refused", severity="warning")
    for _ in range(3):
        clock.now += 10
        assert not notifier.tell("sidecar refused", title="Refused", severity="warning")
    assert notifier.tell("another thing", title="Refused", severity="warning")  # different text: shown at once
    clock.now += 60
    assert notifier.tell("sidecar refused", title="Refused", severity="warning")
    assert [s["message"] for s in shown] == ["sidecar refused", "another thing",
                                             "sidecar refused (and 3 more times in the last minutes)"]
    assert all(s["markup"] is False for s in shown)  # paths and engine text may hold "[" that is not markup


def test_a_read_error_is_said_once_until_the_session_reads_again() -> None:
    notifier, shown, clock = _notifier()
    for _ in range(5):
        clock.now += 120  # past the quiet period: only the per-session memory holds it back
        notifier.read_failed("s1", "truncated line 4")
    notifier.read_failed("s1", "permission denied")
    notifier.read_again("s1")
    notifier.read_failed("s1", "permission denied")  # flapping within the quiet period: still folded
    clock.now += 120
    notifier.read_failed("s1", "permission denied")
    assert [(s["title"], s["message"]) for s in shown] == [
        ("Can't read <s1>", "truncated line 4"), ("Can't read <s1>", "permission denied"),
        ("Can't read <s1>", "permission denied (and 1 more time in the last minutes)")]


def test_a_notice_of_a_kind_on_screen_is_replaced_and_counted_and_the_oldest_kind_gives_way() -> None:
    shown: list[dict[str, Any]] = []
    withdrawn: list[int] = []
    clock = Clock()

    def notify(message: str, **kwargs: Any) -> int:
        shown.append({"message": message, **kwargs})
        return len(shown) - 1  # the handle: its index

    notifier = Notifier(notify, label=str, clock=clock, withdraw=withdrawn.append, max_visible=lambda: 2)
    for n in range(3):
        notifier.tell(f"cp_00{n + 1} written", title="Checkpoint written")
        clock.now += 1
    assert [s["title"] for s in shown] == ["Checkpoint written", "Checkpoint written ×2", "Checkpoint written ×3"]
    assert withdrawn == [0, 1]  # each replaced the one before it
    notifier.tell("near the line", title="Threshold crossed", severity="warning")
    notifier.tell("medium → high", title="Risk level changed", severity="error")
    assert withdrawn == [0, 1, 2]  # two fit: the checkpoint notice, the oldest kind, gave way
    clock.now += 60  # every notice has timed out: a new one of a kind starts counting again
    notifier.tell("cp_004 written", title="Checkpoint written")
    assert shown[-1]["title"] == "Checkpoint written" and withdrawn == [0, 1, 2]
