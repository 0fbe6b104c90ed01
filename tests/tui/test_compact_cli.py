"""``ctxscope compact`` and ``ctxscope prune`` end to end: in-process ``main()`` and the installed command."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from engine.accounting.context import find_cut_point
from engine.fs.audit import read_audit
from tests.conftest import (
    ENDS_ON_COMPACTION,
    HEADERLESS,
    MAIN_SESSION,
    RESET_ARCHIVE,
    SESSIONS_JSON,
    SUBAGENT,
    V1_LEGACY,
)
from tests.engine._compaction import (
    coding_session,
    context_of,
    context_tokens,
    copy_fixture,
    lines_of,
    live_v3_fixtures,
    tree_hash,
)
from tests.engine.test_compaction_apply import FAKE_OPENCLAW
from tests.engine.test_jsonl_append import last_entry_id
from tui.cli import compact_commands
from tui.cli import main as cli

ROOT = Path(__file__).resolve().parents[2]
CTXSCOPE = ROOT / ".venv" / "bin" / "ctxscope"
HOLDER = ROOT / "tests" / "engine" / "_writer_child.py"


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No user config, no real state dirs."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for name in ("CTXSCOPE_STATE_DIR", "OPENCLAW_STATE_DIR"):
        monkeypatch.delenv(name, raising=False)


def _expected_tail(path: Path, keep: int) -> tuple[str, ...]:
    view, _ = context_of(path)
    cut = find_cut_point(view.path, keep)
    return tuple(m.entry_id for m in view.messages if m.path_index >= cut.first_kept_index)


def _check_compacted(path: Path, original: bytes, before_tokens: int, tail: tuple[str, ...]) -> None:
    data = path.read_bytes()
    assert data.startswith(original) and data.endswith(b"\n")
    new = lines_of(data[len(original):])
    assert new[0]["type"] == "compaction" and new[0]["parentId"] == last_entry_id(original)
    assert [e["parentId"] for e in new[1:]] == [e["id"] for e in new[:-1]]
    view, _ = context_of(path)
    assert view.leaf is not None and view.leaf.id == new[-1]["id"]
    kept = tuple(m.entry_id for m in view.messages[1:] if m.entry.id not in {e["id"] for e in new})
    assert kept == tail  # the protected tail is intact
    assert context_tokens(path) < before_tokens


def test_compact_yes_on_every_live_v3_fixture(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for fixture in live_v3_fixtures():
        copy = copy_fixture(fixture, tmp_path / fixture.stem[-8:])
        original, before = copy.read_bytes(), context_tokens(copy)
        tail = _expected_tail(copy, 2000)
        code = cli.main(["--state-dir", str(tmp_path / "state"), "compact", str(copy), "--keep-recent", "2000",
                         "--yes"])
        captured = capsys.readouterr()
        if fixture == ENDS_ON_COMPACTION:
            assert code == cli.EXIT_REFUSED
            assert "already ends on a compaction" in captured.err
            assert copy.read_bytes() == original
            continue
        assert code == cli.EXIT_OK, captured.err
        assert "Appended " in captured.out and "--- summary (" in captured.out
        _check_compacted(copy, original, before, tail)
    records = list(read_audit(tmp_path / "state"))
    assert [(r.action, r.result) for r in records] == [("compact", "ok")] * 2


def test_the_installed_command_compacts_a_fixture(tmp_path: Path) -> None:
    copy = copy_fixture(MAIN_SESSION, tmp_path / "sessions")
    original, before = copy.read_bytes(), context_tokens(copy)
    tail = _expected_tail(copy, 1500)
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "HOME": str(tmp_path / "home")}
    done = subprocess.run([str(CTXSCOPE), "--state-dir", str(tmp_path / "state"), "compact", str(copy),
                           "--keep-recent", "1500", "--yes", "--json"], capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["result"]["parent_id"] == last_entry_id(original)
    assert answer["plan"]["cut_point"]["first_kept_entry_id"] == lines_of(copy.read_bytes())[-1]["firstKeptEntryId"]
    _check_compacted(copy, original, before, tail)


@pytest.mark.parametrize("layer", ["prune", "summarize", "full", "drop-only"])
def test_dry_run_leaves_every_file_byte_identical(tmp_path: Path, layer: str, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path_factory: pytest.TempPathFactory) -> None:
    # SUBAGENT's header cwd is a Windows path: drop-only needs a configured workspace for it (inside the hashed
    # tree, so that a dry run creating memory/ would be caught).
    config = tmp_path_factory.mktemp("config")
    (config / "ctxscope").mkdir()
    (config / "ctxscope" / "config.yaml").write_text(f"compaction: {{workspace: {tmp_path / 'workspace'}}}\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    for fixture in (MAIN_SESSION, SUBAGENT):
        copy_fixture(fixture, tmp_path / "sessions")
    shutil.copyfile(MAIN_SESSION.with_name(MAIN_SESSION.name + ".lock"), tmp_path / "sessions" / "x.jsonl.lock")
    (tmp_path / "state").mkdir()
    before = tree_hash(tmp_path)
    for copy in sorted((tmp_path / "sessions").glob("*.jsonl")):
        for extra in ([], ["--json"]):
            code = cli.main(["--state-dir", str(tmp_path / "state"), "compact", str(copy), "--layer", layer,
                             "--keep-recent", "1000", "--dry-run", *extra])
            assert code == cli.EXIT_OK
    out = capsys.readouterr().out
    assert "Dry run: nothing written." in out and "tokens (−" in out and "dropped from the context:" in out
    assert tree_hash(tmp_path) == before


def test_dry_run_json_describes_the_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = copy_fixture(MAIN_SESSION, tmp_path / "sessions")
    assert cli.main(["--state-dir", str(tmp_path / "state"), "compact", str(copy), "--keep-recent", "2000",
                     "--focus", "the GitHub setup", "--dry-run", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    plan = answer["plan"]
    assert answer["dry_run"] is True and plan["applicable"] is True
    assert plan["tokens"]["after"] < plan["tokens"]["before"]
    assert plan["summary"].splitlines()[1] == "Focus: the GitHub setup"
    assert plan["dropped"] and {"entry_id", "role", "tokens", "first_line"} <= set(plan["dropped"][0])
    assert plan["cost"]["tokens_saved_per_turn"] > 0
    assert plan["degradation"]["level"] == "high" and plan["needs_confirmation"] is True


@pytest.mark.parametrize(("fixture", "message"), [
    (V1_LEGACY, "version 1 session"),
    (HEADERLESS, "no session header"),
    (RESET_ARCHIVE, "archived transcript"),
])
def test_v1_headerless_and_archives_are_refused(tmp_path: Path, fixture: Path, message: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    copy = copy_fixture(fixture, tmp_path / "sessions")
    before = tree_hash(tmp_path)
    assert cli.main(["--state-dir", str(tmp_path / "state"), "compact", str(copy), "--keep-recent", "500",
                     "--yes"]) == cli.EXIT_REFUSED
    assert message in capsys.readouterr().err
    assert tree_hash(tmp_path) == before


def test_without_a_terminal_or_yes_nothing_is_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = copy_fixture(MAIN_SESSION, tmp_path / "sessions")
    before = copy.read_bytes()
    assert cli.main(["--state-dir", str(tmp_path / "state"), "compact", str(copy), "--keep-recent", "2000"]) == 5
    assert "not confirmed" in capsys.readouterr().err
    assert copy.read_bytes() == before


def test_the_guard_asks_with_the_degradation_in_the_question(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = copy_fixture(MAIN_SESSION, tmp_path / "sessions")
    asked: list[str] = []
    monkeypatch.setattr(compact_commands, "confirm", lambda question, *, yes: asked.append(question) or False)
    assert cli.main(["--state-dir", str(tmp_path / "state"), "compact", str(copy), "--keep-recent", "2000"]) == 5
    assert asked and asked[0].startswith("Degradation risk is high")


def test_prune_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    session = coding_session(tmp_path / "sessions" / "s.jsonl", turns=10, output_chars=8000)
    original = session.read_bytes()
    assert cli.main(["--state-dir", str(tmp_path / "state"), "prune", str(session), "--keep-recent", "3000",
                     "--yes"]) == 0
    assert "layer prune" in capsys.readouterr().out
    entry = lines_of(session.read_bytes()[len(original):])[0]
    assert entry["type"] == "compaction" and "[Old tool result content cleared]" in entry["summary"]
    assert [r.action for r in read_audit(tmp_path / "state")] == ["prune"]


def test_nothing_to_compact_and_unknown_sessions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = copy_fixture(SUBAGENT, tmp_path / "sessions")
    assert cli.main(["--state-dir", str(tmp_path / "state"), "compact", str(copy), "--yes"]) == cli.EXIT_REFUSED
    assert "nothing to compact" in capsys.readouterr().err
    assert cli.main(["compact", "no-such-session", "--in", str(tmp_path / "sessions"), "--yes"]) == 3
    assert cli.main(["compact", str(copy), "--keep-recent", "-1", "--yes"]) == cli.EXIT_USAGE


def test_a_held_lock_refuses_and_names_the_holder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = copy_fixture(MAIN_SESSION, tmp_path / "sessions")
    holder = subprocess.Popen([sys.executable, str(HOLDER), "hold", str(copy)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None
    try:
        assert holder.stdout.readline() == "ready\n"
        before = copy.read_bytes()
        assert cli.main(["--state-dir", str(tmp_path / "state"), "compact", str(copy), "--keep-recent", "2000",
                         "--yes", "--lock-timeout", "0.3"]) == cli.EXIT_REFUSED
        err = capsys.readouterr().err
        assert f"pid {holder.pid}" in err and "never breaks a live lock" in err
        assert copy.read_bytes() == before
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()


def test_gateway_controller_from_the_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    sessions = tmp_path / "oc" / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    shutil.copyfile(SESSIONS_JSON, sessions / "sessions.json")
    transcript = copy_fixture(MAIN_SESSION, sessions).rename(sessions / "76cc5ab5-0425-4038-b41f-0af9f313d594.jsonl")
    before = transcript.read_bytes()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "openclaw").write_text(FAKE_OPENCLAW.format(python=sys.executable))
    (bin_dir / "openclaw").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_OPENCLAW_LOG", str(tmp_path / "calls.log"))
    args = ["--state-dir", str(tmp_path / "ctx"), "compact", "agent:main:main", "--in", str(sessions),
            "--controller", "gateway", "--keep-recent", "2000", "--yes", "--json"]
    assert cli.main(args) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["result"]["gateway_response"]["compacted"] is True
    assert orjson.loads((tmp_path / "calls.log").read_text().splitlines()[0])[:3] == ["gateway", "call",
                                                                                      "sessions.compact"]
    assert transcript.read_bytes() == before
    monkeypatch.setenv("FAKE_OPENCLAW_MODE", "fail")
    assert cli.main(args) == cli.EXIT_FAILED
    assert "gateway closed" in capsys.readouterr().err


def test_a_plan_that_saves_nothing_never_prints_a_double_sign() -> None:
    from tui.cli.compact_commands import _delta

    assert _delta(0, 77) == "0 → 77 tokens (+77: grows)"
    assert _delta(100, 100).endswith("(saves nothing)")
    assert "−" in _delta(1000, 400) and "--" not in _delta(1000, 400) and "−-" not in _delta(0, 77)
