"""ISO-8601 timestamps as transcripts and checkpoints write them (``2026-01-31T07:22:05.287Z``)."""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["format_iso", "parse_iso"]


def parse_iso(value: object) -> datetime | None:
    """A timezone-aware datetime, or ``None`` for anything that is not an ISO-8601 string (naive means UTC)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def format_iso(moment: datetime, timespec: str = "milliseconds") -> str:
    """UTC ISO-8601 with a ``Z`` suffix, as pi and OpenClaw write it."""
    return moment.astimezone(UTC).isoformat(timespec=timespec).replace("+00:00", "Z")
