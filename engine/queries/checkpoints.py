"""A session's checkpoint files as the history shows them: each parsed and rendered, or with why it is unreadable.

Behind the Checkpoints tab and ``ctxscope history``. Files are read like every checkpoint read
(:func:`engine.checkpoints.store.read_checkpoint_text`: no symlinks, size-capped, another session's file refused),
so the tab and the command list the same files with the same problems.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.checkpoints.model import Checkpoint, CheckpointFormatError
from engine.checkpoints.render import RenderedCheckpoint, render_checkpoint
from engine.checkpoints.store import list_checkpoints, read_checkpoint_text

__all__ = ["StoredCheckpoint", "read_checkpoints"]


@dataclass(frozen=True, slots=True)
class StoredCheckpoint:
    """One checkpoint file of a session."""

    checkpoint_id: str
    path: Path
    stamp: tuple[int, int]
    """``(mtime_ns, size)`` of the file when read: unchanged files are not parsed again."""
    text: str = ""
    """The file's YAML, for a raw diff."""
    checkpoint: Checkpoint | None = None
    rendered: RenderedCheckpoint | None = None
    """What the agent would read (``None`` when not asked for, or unreadable)."""
    problem: str | None = None
    """Why the file could not be read or is not a valid checkpoint of this session."""

    @property
    def number(self) -> int:
        return int(self.checkpoint_id[3:])


def read_checkpoints(
    state_dir: Path, key: str, known: Sequence[StoredCheckpoint] = (), *, render: bool = True
) -> tuple[StoredCheckpoint, ...]:
    """The session's checkpoint files, oldest first, parsed (and rendered with ``render``); blocking.

    Files unchanged since they were read into ``known`` are reused, not parsed again; a file removed while listing
    (retention) is left out.
    """
    reuse = {(c.path, c.stamp): c for c in known if not render or c.rendered is not None}
    found: list[StoredCheckpoint] = []
    for ref in list_checkpoints(state_dir, key):
        try:
            stat = ref.path.stat()
            stamp = (stat.st_mtime_ns, stat.st_size)
            cached = reuse.get((ref.path, stamp))
            if cached is not None:
                found.append(cached)
                continue
            text, checkpoint = read_checkpoint_text(ref)
        except FileNotFoundError:
            continue  # removed by retention while listing
        except (OSError, UnicodeDecodeError, CheckpointFormatError) as exc:
            found.append(StoredCheckpoint(ref.checkpoint_id, ref.path, (0, 0), problem=str(exc)))
            continue
        found.append(StoredCheckpoint(ref.checkpoint_id, ref.path, stamp, text, checkpoint,
                                      render_checkpoint(checkpoint) if render else None))
    return tuple(found)
