"""The error a transcript that cannot be opened or re-read raises.

Its own module so that the command line and the usage report can catch it without importing the transcript
reader, which a report over Claude Code or Codex files never uses (docs/usage.md, Speed).
"""

from __future__ import annotations

__all__ = ["TranscriptError"]


class TranscriptError(Exception):
    """A transcript could not be opened or re-read."""
