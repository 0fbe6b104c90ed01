"""``ctxscope report`` and the index cache seen from the command line: formats, and running without a cache."""

from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from tests.conftest import ENDS_ON_COMPACTION, MAIN_SESSION, OPENCLAW, SESSIONS_JSON
from tui.cli.main import EXIT_OK, EXIT_USAGE, main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def store(tmp_path: Path) -> Path:
    sessions = tmp_path / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    shutil.copy(MAIN_SESSION, sessions / "76cc5ab5-0425-4038-b41f-0af9f313d594.jsonl")
    shutil.copy(ENDS_ON_COMPACTION, sessions / "f8c3e7a8-7dc1-43cc-8ce0-a9d268c29be1.jsonl")
    shutil.copy(SESSIONS_JSON, sessions / "sessions.json")
    return tmp_path


def test_report_by_model_prints_a_table_with_a_total(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(OPENCLAW), "--by", "model", "--utc"]) == EXIT_OK
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["MODEL", "CALLS", "INPUT"]
    assert any(line.startswith("TOTAL") for line in lines)
    assert "MiniMax-M2.1" in out and "claude-sonnet-4-5" in out and "days in UTC" in out


def test_report_json_and_csv_carry_the_same_figures(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(store), "--by", "day", "--utc", "--json"]) == EXIT_OK
    report = orjson.loads(capsys.readouterr().out)
    assert report["by"] == "day" and report["timezone"] == "UTC" and report["sessions"] == 2
    assert main(["report", str(store), "--by", "day", "--utc", "--csv"]) == EXIT_OK
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["day"] for r in rows] == [r["day"] for r in report["rows"]] + ["TOTAL"]
    assert int(rows[-1]["calls"]) == report["total"]["calls"] > 0
    in_files = sum(p.read_bytes().count(b'{"type":"compaction"') for p in (MAIN_SESSION, ENDS_ON_COMPACTION))
    assert int(rows[-1]["compactions"]) == report["total"]["compactions"] == in_files
    assert rows[-1]["cost_source"] == report["total"]["cost_source"]


def test_report_dates_filter_and_reject_nonsense(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(store), "--utc", "--json", "--since", "2026-02-01"]) == EXIT_OK
    assert orjson.loads(capsys.readouterr().out)["total"]["calls"] == 0
    assert main(["report", str(store), "--utc", "--json", "--since", "20260131", "--until", "2026-01-31"]) == EXIT_OK
    assert orjson.loads(capsys.readouterr().out)["total"]["calls"] > 0
    with pytest.raises(SystemExit) as exit_info:
        main(["report", "--since", "yesterday"])
    assert exit_info.value.code == EXIT_USAGE


def test_report_refuses_since_after_until(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Reversed dates printed an empty table with exit 0: "no usage" instead of "you swapped the dates".
    assert main(["report", str(store), "--utc", "--since", "2026-02-01", "--until", "2026-01-31"]) == EXIT_USAGE
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "--since 2026-02-01 is after --until 2026-01-31" in captured.err


def _run(argv: list[str], cache: Path, *, preexec: object = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    return subprocess.run([sys.executable, "-m", "tui.cli.main", *argv], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=300, preexec_fn=preexec)  # type: ignore[arg-type]


@pytest.fixture
def read_only_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory no write can land in: a read-only tmpfs as root (root ignores modes), else mode 0555."""
    directory = tmp_path / "ro-cache"
    directory.mkdir()
    if os.geteuid() != 0:
        directory.chmod(0o555)
        yield directory
        directory.chmod(0o755)
        return
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(directory)],
                             capture_output=True, check=False)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a read-only tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield directory
    finally:
        subprocess.run(["umount", str(directory)], check=False)


@pytest.mark.parametrize("command", [["status", "--json"], ["report", "--json", "--utc"]])
def test_a_read_only_cache_dir_is_reported_once_and_changes_nothing(
    store: Path, tmp_path: Path, read_only_dir: Path, command: list[str]
) -> None:
    argv = [command[0], str(store), *command[1:]]
    expected = _run(argv, tmp_path / "fresh-cache")
    blocked = _run(argv, read_only_dir)
    assert blocked.returncode == expected.returncode == 0, blocked.stderr
    assert orjson.loads(blocked.stdout) == orjson.loads(expected.stdout)
    warnings = [line for line in blocked.stderr.splitlines() if "index cache disabled" in line]
    assert len(warnings) == 1 and "running without it" in warnings[0]  # two sessions, said once
    assert list(read_only_dir.iterdir()) == []


def _limit_file_size() -> None:
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit then fails with EFBIG, like a full disk
    resource.setrlimit(resource.RLIMIT_FSIZE, (3000, 3000))


def test_a_full_cache_dir_is_reported_once_and_leaves_no_torn_file(store: Path, tmp_path: Path) -> None:
    from engine.index.cache import decode_index

    argv = ["report", str(OPENCLAW), "--json", "--utc", "--by", "model"]
    expected = _run(argv, tmp_path / "roomy")
    full = tmp_path / "full"
    result = _run(argv, full, preexec=_limit_file_size)
    assert result.returncode == 0, result.stderr
    assert orjson.loads(result.stdout) == orjson.loads(expected.stdout)
    warnings = [line for line in result.stderr.splitlines() if "index cache disabled" in line]
    assert len(warnings) == 1
    written = list((full / "ctxscope" / "index").iterdir())
    assert [p for p in written if p.name.endswith(".tmp")] == []
    assert all(decode_index(p.read_bytes()) is not None for p in written)  # what did fit is whole


def test_a_second_status_reads_from_the_cache(store: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _run(["status", str(store), "--json"], cache)
    index = cache / "ctxscope" / "index"
    stamps = {p.name: p.stat().st_mtime_ns for p in index.iterdir()}
    second = _run(["status", str(store), "--json"], cache)
    assert first.returncode == second.returncode == 0
    assert orjson.loads(first.stdout) == orjson.loads(second.stdout)
    assert len(stamps) == 1  # one shard for the sessions directory
    assert {p.name: p.stat().st_mtime_ns for p in index.iterdir()} == stamps  # not rewritten


def test_history_lists_the_compactions_from_the_index(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from engine.stores.transcript import read_transcript

    path = store / "agents" / "main" / "sessions" / "76cc5ab5-0425-4038-b41f-0af9f313d594.jsonl"
    for _ in range(2):  # cold, then from the cache
        assert main(["--state-dir", str(store / "state"), "history", str(path), "--json"]) == EXIT_OK
        listed = orjson.loads(capsys.readouterr().out)["compactions"]
        entries = [e for e in read_transcript(path).entries if e.type == "compaction"]
        assert [(c["entry_id"], c["line"], c["tokens_before"], c["first_kept_entry_id"], c["fallback_summary"])
                for c in listed] == [(e.id, e.line_no, e.tokens_before, e.first_kept_entry_id, e.fallback_summary)
                                     for e in entries]


def test_the_command_line_offers_every_grouping() -> None:
    from engine.usage.model import GROUPINGS
    from tui.cli.main import REPORT_GROUPINGS

    assert REPORT_GROUPINGS == GROUPINGS
