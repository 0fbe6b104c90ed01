"""The session tree folded into segments: branch points, the current path and labels stay visible."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.agents.discovery import discover_sessions
from engine.session.branches import Segment, branch_outline
from engine.session.pi_tree import labels
from engine.session.snapshot import SessionFollower
from tests.engine._transcripts import assistant, compaction, user, write


def _label(id_: str, parent: str, target: str, text: str) -> dict[str, Any]:
    return {"type": "label", "id": id_, "parentId": parent, "timestamp": "2026-03-01T10:00:05.000Z",
            "targetId": target, "label": text}


def _outline(path: Path) -> list[Segment]:
    follower = SessionFollower(discover_sessions([path]).sessions[0])
    snapshot = follower.refresh()
    entries = follower.reader.entries
    return branch_outline(entries, snapshot.view.path[-1].id, labels(entries))


def _shape(segments: list[Segment]) -> list[Any]:
    return [((s.first_id, s.last_id, s.entries), s.on_path, s.holds_leaf, _shape(s.children)) for s in segments]


def test_a_linear_session_is_one_segment_on_the_path(tmp_path: Path) -> None:
    session = write(tmp_path / "s.jsonl", [user("u1", None, "go"), assistant("a1", "u1", "ok", 10),
                                           compaction("c1", "a1", "u1"), user("u2", "c1", "next")])
    [root] = _outline(session)
    assert _shape([root]) == [(("u1", "u2", 4), True, True, [])]
    assert (root.messages, root.compactions, root.preview_role) == (3, 1, "user")


def test_a_rewound_session_shows_the_branch_point_and_which_branch_is_sent(tmp_path: Path) -> None:
    later = "2026-03-01T11:00:00.000Z"
    session = write(tmp_path / "s.jsonl", [
        user("u1", None, "go"), assistant("a1", "u1", "ok", 10),
        user("u2", "a1", "try A"), assistant("a2", "u2", "did A", 20),
        _label("l1", "a2", "u2", "plan A"),
        {**user("u3", "a1", "try B instead"), "timestamp": later},  # the user rewound to a1
        {**assistant("a3", "u3", "did B", 20), "timestamp": later},
    ])
    roots = _outline(session)
    assert _shape(roots) == [(("u1", "a1", 2), True, False, [
        (("u2", "l1", 3), False, False, []),
        (("u3", "a3", 2), True, True, []),
    ])]
    assert roots[0].children[0].labels == (("u2", "plan A"),)


def test_a_leaf_inside_a_run_ends_its_segment(tmp_path: Path) -> None:
    session = write(tmp_path / "s.jsonl", [
        user("u1", None, "go"), assistant("a1", "u1", "ok", 10), user("u2", "a1", "more"),
        assistant("a2", "u2", "done", 20), {"type": "leaf", "id": "lf", "parentId": "a2", "targetId": "a1",
                                            "timestamp": "2026-03-01T10:00:06.000Z"},
    ])
    follower = SessionFollower(discover_sessions([session]).sessions[0])
    entries = follower.reader.entries if follower.refresh() else ()
    outline = branch_outline(entries, "a1", labels(entries))
    assert _shape(outline) == [(("u1", "a1", 2), True, True, [(("u2", "lf", 3), False, False, [])])]


def test_thousands_of_branch_points_need_no_recursion(tmp_path: Path) -> None:
    objs: list[dict[str, Any]] = [user("u0", None, "go")]
    for i in range(1, 3000):  # a comb: every entry has a dead-end child and a live one
        objs += [assistant(f"x{i}", f"u{i - 1}", "dead end"), user(f"u{i}", f"u{i - 1}", "on")]
    roots = _outline(write(tmp_path / "s.jsonl", objs))
    depth, node = 0, roots[0]
    while node.children:
        depth += 1
        node = next(c for c in node.children if c.on_path)
    assert depth == 2999 and node.holds_leaf and node.first_id == "u2999"
