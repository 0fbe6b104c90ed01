"""What the command line prints from hostile sessions (issue 25, classes 4 and 8; docs/hostile-input.md): escape
sequences, C1 and bidi controls in a key, model, project, tool name or path are shown, never sent to the terminal; a
newline in a key never starts a row; JSON keeps every value exact; CSV cells never start a spreadsheet formula.
Each test runs the real command line in a subprocess on a store built byte by byte."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import orjson
import pytest

from tests.adversarial._harness import run_cli, write_config
from tests.adversarial._hostile import ESCAPES, hostile_conversation, hostile_store, raw_controls

pytestmark = pytest.mark.reliability

KEY = f"agent:main:{ESCAPES}\nagent:main:forged  gpt-forged  1k/200k"
"""A key that holds every escape, and a newline followed by what would read as a second row of ``status``."""
MODEL = f"claude {ESCAPES}"
CWD = f"/work/project {ESCAPES}"


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """One OpenClaw store whose key, model, provider, tool names, messages and working directory are hostile."""
    return hostile_store(tmp_path / "openclaw", {KEY: (hostile_conversation(ESCAPES), CWD)})


def _shown(text: str) -> str:
    """Output must hold no control character but newline and tab, and must still show the sequences."""
    assert raw_controls(text, newlines=True) == [], text
    return text


def test_class_04_status_shows_every_escape_and_keeps_one_row_per_session(hostile: Path, tmp_path: Path) -> None:
    result = run_cli(["status", str(hostile)], tmp_path / "home")
    assert result.returncode == 0, result.stderr
    out = _shown(result.stdout)
    rows = out.strip().splitlines()
    assert len(rows) == 2, out  # the header and the one session: the key's newline forged no row
    assert "␛]52;c;SGVsbG8=␇" in rows[1] and "\\u202e" in rows[1] and "\\x9b" in rows[1]
    assert "forged" in rows[1]


def test_class_04_status_json_keeps_the_exact_values_with_no_raw_control(hostile: Path, tmp_path: Path) -> None:
    result = run_cli(["status", "--json", str(hostile)], tmp_path / "home")
    assert result.returncode == 0, result.stderr
    assert raw_controls(result.stdout, newlines=True) == []
    (row,) = orjson.loads(result.stdout)
    assert row["key"] == KEY and row["model"] == MODEL


def test_class_04_inspect_shows_key_model_path_and_tool_names(hostile: Path, tmp_path: Path) -> None:
    transcript = next(hostile.glob("*.jsonl"))
    result = run_cli(["inspect", str(transcript)], tmp_path / "home")
    assert result.returncode == 0, result.stderr
    out = _shown(result.stdout)
    assert "bash␛]52;c;SGVsbG8=␇" in out  # the tool name, shown
    tool_rows = [line for line in out.splitlines() if "bash␛" in line]
    assert len(tool_rows) == 2  # one row per assistant message that called a tool, the name never split


def test_class_04_history_and_checkpoint_show_the_key_as_one_line(hostile: Path, tmp_path: Path) -> None:
    transcript = next(hostile.glob("*.jsonl"))
    home, state = tmp_path / "home", tmp_path / "state"
    written = run_cli(["--state-dir", str(state), "checkpoint", str(transcript)], home)
    assert written.returncode == 0, written.stderr
    _shown(written.stdout + written.stderr)
    result = run_cli(["--state-dir", str(state), "history", str(transcript)], home)
    assert result.returncode == 0, result.stderr
    out = _shown(result.stdout)
    first, *rest = out.splitlines()
    assert "␛]52" in first and "forged" in first  # the key's newline did not start a line
    assert [line for line in rest if "cp_" in line]


@pytest.mark.parametrize("by", ["model", "project", "session"])
def test_class_04_report_by_model_project_and_session_shows_names_on_one_row(hostile: Path, tmp_path: Path,
                                                                             by: str) -> None:
    result = run_cli(["report", "--by", by, "--utc", str(hostile)], tmp_path / "home")
    assert result.returncode == 0, result.stderr
    out = _shown(result.stdout)
    table = out.split("\n\n")[0].splitlines()
    assert len(table) == 5, out  # header, rule, one group, rule, total
    assert "␛]52;c;SGVsbG8=␇" in table[2]


def test_class_04_watch_once_prints_one_line_per_event(tmp_path: Path) -> None:
    # 60% of the window: watch writes a checkpoint (trigger auto-50pct) and says so on a line naming the key.
    store = hostile_store(tmp_path / "openclaw", {KEY: (hostile_conversation(ESCAPES, tokens=120_000), CWD)})
    home = tmp_path / "home"
    write_config(home, "auto_checkpoint_idle: 100000d\n")  # the transcript's entries are from another day
    result = run_cli(["--state-dir", str(tmp_path / "state"), "watch", str(store), "--once"], home)
    assert result.returncode == 0, result.stderr
    out = _shown(result.stdout)
    events = [line for line in out.splitlines() if "agent:main" in line]
    assert events, f"watch --once reported no event for the session: the test would prove nothing\n{out}"
    assert all("forged" in line and "␛]52" in line for line in events)
    assert not [line for line in out.splitlines() if "forged" in line and "agent:main" not in line]
    _shown(result.stderr)


def test_class_04_error_messages_show_the_name_they_quote(hostile: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    missing = run_cli(["inspect", f"agent:{ESCAPES}\nforged line", "--in", str(hostile)], home)
    assert missing.returncode == 3
    assert raw_controls(missing.stderr, newlines=True) == [] and len(missing.stderr.strip().splitlines()) == 1
    not_a_session = tmp_path / f"x{ESCAPES}.jsonl".replace("/", "")
    not_a_session.write_bytes(b"\x00\x01 not json\n")
    result = run_cli(["status", str(not_a_session)], home)
    assert result.returncode == 1
    _shown(result.stdout + result.stderr)
    assert "␛]0;pwned-title␇" in result.stderr


FORMULAS = ("=HYPERLINK(\"http://example.invalid\",\"x\")", "+cmd|' /C calc'!A0", "-2+3+cmd|' /C calc'!A0",
            "@SUM(1+9)*cmd|' /C calc'!A0", "\t=1+1", "\r=1+1")


@pytest.mark.parametrize("by", ["model", "project", "session"])
def test_class_08_report_csv_cells_never_start_a_formula(tmp_path: Path, by: str) -> None:
    sessions = {f"{formula}:{n}" if by == "session" else f"agent:main:s{n}":
                (hostile_conversation("plain", model=formula if by == "model" else "m", tag=f"s{n}-"),
                 f"/w/{formula}" if by == "project" else "/w/p")
                for n, formula in enumerate(FORMULAS)}
    store = hostile_store(tmp_path / "openclaw", sessions)
    result = run_cli(["report", "--by", by, "--csv", "--utc", str(store)], tmp_path / "home")
    assert result.returncode == 0, result.stderr
    rows = list(csv.reader(io.StringIO(result.stdout)))
    header, body = rows[0], rows[1:-1]
    assert len(body) == len(FORMULAS), rows
    for row in rows[1:]:
        for value in row:
            assert not value.startswith(("=", "+", "-", "@", "\t", "\r")), row
    if by != "project":  # a project is the last part of the directory, and these hold "/"
        # A carriage return is a control character: shown as ␍ like any other (the tab stays, as between columns).
        expected = [f"'{f}" if by == "model" else f"'{f}:{n}" for n, f in enumerate(FORMULAS)]
        assert sorted(row[0] for row in body) == sorted(e.replace("\r", "␍") for e in expected)
    calls = header.index("calls")
    assert all(row[calls].isdigit() for row in rows[1:])  # figures stay numbers, unquoted
