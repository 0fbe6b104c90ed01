"""The session's tree folded into segments, with the path the agent sends marked (the Tree tab).

The folding is :func:`engine.session.branches.branch_outline`; pi's labels are
:func:`engine.session.pi_tree.labels` (``docs/formats.md``).
"""

from __future__ import annotations

from engine.session.branches import Segment, branch_outline
from engine.session.pi_tree import labels
from engine.session.snapshot import SessionFollower, SessionSnapshot

__all__ = ["read_outline"]


def read_outline(snapshot: SessionSnapshot, follower: SessionFollower) -> tuple[Segment, ...]:
    """The root segments of the session's tree, the leaf's path marked (blocking: walks every entry)."""
    entries = follower.entries
    leaf = snapshot.view.path[-1].id if snapshot.view.path else None
    return tuple(branch_outline(entries, leaf, labels(entries)))
