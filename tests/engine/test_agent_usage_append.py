"""A Claude Code or Codex file that grew is read from where the last report stopped: only the appended bytes,
with the same calls and compactions as a reading of the whole file, and read whole when the bytes before that
point changed (docs/index.md, docs/usage.md)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.agents.discovery import discover_sessions
from engine.index.cache import IndexCache
from engine.usage.collect import collect_usage
from engine.usage.model import SessionUsage
from sim.agent_corpus import write_claude_code, write_codex

_NEW_IDS = ((b'"resp_', b'"resp_x'), (b'"msg_', b'"msg_x'), (b'"req_', b'"req_x'))


def _next_turn(path: Path, lines: int) -> bytes:
    """The file's last ``lines`` lines as a new turn: the same records with new request and response ids."""
    turn = b"".join(path.read_bytes().splitlines(keepends=True)[-lines:])
    for old, new in _NEW_IDS:
        turn = turn.replace(old, new)
    return turn


def _sorted(usages: tuple[SessionUsage, ...]) -> list[SessionUsage]:
    return sorted(usages, key=lambda u: u.key)


@pytest.fixture
def bytes_read(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Bytes read by ``os.pread`` (every reader reads through it)."""
    seen: list[int] = []
    real = os.pread

    def counted(fd: int, size: int, offset: int) -> bytes:
        data = real(fd, size, offset)
        seen.append(len(data))
        return data

    monkeypatch.setattr(os, "pread", counted)
    return seen


@pytest.mark.parametrize(("write", "root"), [(write_claude_code, "projects"), (write_codex, "sessions")])
def test_a_grown_file_is_read_from_where_the_last_report_stopped(
    write, root: str, tmp_path: Path, bytes_read: list[int],  # type: ignore[no-untyped-def]
) -> None:
    files = list(write(tmp_path / "home", 2, turns=60))
    where = tmp_path / "home" / root
    cold, _ = collect_usage(discover_sessions([where]), IndexCache(tmp_path / "cache"))
    calls = sum(len(u.calls) for u in cold)
    for round_ in range(2):  # twice: the second resumes from a state the first resumption stored
        turn = _next_turn(files[1], 6 if round_ == 0 else 3)
        with files[1].open("ab") as out:
            out.write(turn)
        bytes_read.clear()
        grown, problems = collect_usage(discover_sessions([where]), IndexCache(tmp_path / "cache"))
        # Discovery sniffs 8 KiB of each file; the bytes before the old end are checked (8 KiB) before resuming and
        # after: the rest is the new turn.
        assert sum(bytes_read) <= len(turn) + 2 * 8192 + 2 * 8192 < files[1].stat().st_size / 3
        whole, _ = collect_usage(discover_sessions([where]), IndexCache(tmp_path / f"fresh{round_}"))
        assert problems == () and _sorted(grown) == _sorted(whole)
        assert sum(len(u.calls) for u in grown) > calls
        calls = sum(len(u.calls) for u in grown)
    # Rewritten before its old end (an agent never does this; another tool may): read whole, not resumed.
    data = files[1].read_bytes()
    files[1].write_bytes(data.replace(b'"output_tokens":', b'"output_tokens":1', 1) + b"\n")
    after, _ = collect_usage(discover_sessions([where]), IndexCache(tmp_path / "cache"))
    whole, _ = collect_usage(discover_sessions([where]), IndexCache(tmp_path / "fresh"))
    assert _sorted(after) == _sorted(whole)
