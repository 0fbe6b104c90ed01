"""A file named ``*.jsonl`` that holds no session (a binary, text that is not JSON) is never listed, checkpointed or
compacted; asked for by name it is refused with the reason and exit 1."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import SUBAGENT
from tests.tui.app_factory import make_app, settle
from tui.cli.main import EXIT_FAILED, EXIT_OK, main

SUBAGENT_KEY = "3003a4e2-a8c1-417d-9ebc-76480d47d0c0"
NOT_JSON = b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 8 + b"\n\x00\x00\n"


@pytest.fixture
def sessions(tmp_path: Path) -> Path:
    directory = tmp_path / "sessions"
    directory.mkdir()
    shutil.copy(SUBAGENT, directory / SUBAGENT.name)
    (directory / "binary.jsonl").write_bytes(NOT_JSON)
    (directory / "notes.jsonl").write_text("meeting notes, not JSON\nsecond line\n")
    return directory


def test_status_lists_only_the_session_and_refuses_a_file_named_directly(
    sessions: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["status", str(sessions)]) == EXIT_OK
    out, err = capsys.readouterr()
    assert SUBAGENT_KEY in out and "binary" not in out and "notes" not in out
    assert "binary.jsonl is not a session" in err
    assert main(["status", str(sessions / "binary.jsonl")]) == EXIT_FAILED
    out, err = capsys.readouterr()
    assert "is not a session" in err and "No sessions found" not in out


@pytest.mark.parametrize("name", ["binary.jsonl", "notes.jsonl"])
def test_no_checkpoint_and_no_compaction_of_a_file_that_is_no_session(
    sessions: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    state = tmp_path / "state"
    before = (sessions / name).read_bytes()
    assert main(["--state-dir", str(state), "checkpoint", str(sessions / name)]) == EXIT_FAILED
    assert "is not a session" in capsys.readouterr().err
    assert main(["--state-dir", str(state), "compact", str(sessions / name), "--dry-run"]) == EXIT_FAILED
    assert "is not a session" in capsys.readouterr().err
    assert not state.exists() and (sessions / name).read_bytes() == before


async def test_the_tui_lists_only_the_session(sessions: Path, tmp_path: Path) -> None:
    # Writing is refused by the engine for any caller (the checkpoint test above goes through the same write).
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert list(app.snapshots) == [SUBAGENT_KEY]
        assert [s.key for s in app.session_list.snapshots] == [SUBAGENT_KEY]


def test_watch_counts_only_the_session(sessions: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--state-dir", str(tmp_path / "state"), "watch", str(sessions), "--once"]) == EXIT_OK
    assert "watching 1 session(s)" in capsys.readouterr().out


@pytest.mark.parametrize("command", ["status", "report"])
def test_a_file_of_another_kind_named_directly_is_refused_with_what_ctxscope_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    other = tmp_path / "passwd"
    other.write_text("root:x:0:0:root:/root:/bin/bash\n")
    assert main([command, str(other)]) == EXIT_FAILED
    out, err = capsys.readouterr()
    assert "not a session file" in err and "*.jsonl" in err and "No sessions found" not in out
