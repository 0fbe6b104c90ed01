"""The console script answers a repeated ``report`` from its invocation record before importing the command line
or the engine, and only while nothing the report covers changed (tui/cli/entry.py, docs/usage.md)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.fs.layout import cache_root
from engine.stores.source import SQLITE_NAME
from sim.agent_corpus import write_claude_code, write_codex
from tui.cli import report_memo

_PROBE = """
import json, sys
from tui.cli import report_memo
report_memo._RACY_NS = -(1 << 62)  # the sessions here were written a moment ago: trust their directories' times
from tui.cli.entry import main
code = main(sys.argv[1:])
sys.stdout.flush()
loaded = sorted(m for m in sys.modules if m == "engine" or m.startswith(("engine.", "tui.cli.main")))
print(json.dumps({"code": int(code), "loaded": loaded}), file=sys.stderr)
"""


def _run(args: list[str], env: dict[str, str], cwd: Path) -> tuple[dict[str, object], str, str]:
    """``ctxscope ARGS`` through the console script's entry, in a fresh process: what it loaded, its output."""
    proc = subprocess.run([sys.executable, "-c", _PROBE, *args], env=env, cwd=cwd, capture_output=True, text=True,
                          check=True)
    *err, probe = proc.stderr.splitlines(keepends=True)
    return json.loads(probe), proc.stdout, "".join(err)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("CTXSCOPE_")}
    return {**base, "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "PYTHONPATH": str(Path(__file__).resolve().parents[2])}


def _total(out: str) -> int:
    return int(json.loads(out)["total"]["calls"])


def test_a_repeated_report_imports_no_engine_and_prints_the_same(tmp_path: Path, env: dict[str, str]) -> None:
    list(write_codex(tmp_path / "codex", 3, turns=2))
    args = ["report", "codex/sessions", "--json", "--utc"]  # relative: the working directory is in the key
    first, out1, err1 = _run(args, env, tmp_path)
    assert "tui.cli.main" in first["loaded"] and _total(out1) > 0
    second, out2, err2 = _run(args, env, tmp_path)
    assert second["loaded"] == [] and (out2, err2, second["code"]) == (out1, err1, first["code"])


@pytest.mark.parametrize("change", ["append", "add", "remove", "touch-config", "env", "cwd", "root-copied",
                                    "root-link"])
def test_any_change_it_covers_runs_the_report_again(change: str, tmp_path: Path, env: dict[str, str]) -> None:
    files = list(write_claude_code(tmp_path / "claude", 3, turns=2))
    root = str(tmp_path / "claude" / "projects")
    args = ["report", root, "--json", "--utc"]
    _, out, _ = _run(args, env, tmp_path)
    calls = _total(out)
    each = calls // 3  # every generated session has as many calls
    cwd = tmp_path
    if change == "append":  # one more reply in a session
        lines = files[0].read_bytes().splitlines(keepends=True)
        reply = next(line for line in reversed(lines) if b'"assistant"' in line)
        files[0].write_bytes(b"".join(lines) + reply.replace(b'"msg_', b'"msg_x').replace(b'"req_', b'"req_x'))
    elif change == "add":
        extra = tmp_path / "more"
        new = next(iter(write_claude_code(extra, 1, turns=2, seed=9)))
        new.rename(files[0].parent / "extra-session.jsonl")
    elif change == "remove":
        files[1].unlink()
    elif change == "touch-config":
        (tmp_path / "config" / "ctxscope").mkdir(parents=True)
        (tmp_path / "config" / "ctxscope" / "config.yaml").write_text("thresholds:\n  gauge: 0.8\n")
    elif change == "env":
        env = {**env, "CTXSCOPE_RESERVE_TOKENS": "1000"}
    elif change == "cwd":
        cwd = tmp_path / "claude"
    elif change in ("root-copied", "root-link"):
        # The record's paths are looked up from their root's directory (docs/usage.md, Speed): a root replaced by
        # an identical copy, or by a link to it, is another directory, whatever its files say.
        shutil.copytree(root, root + "-copy", symlinks=True)
        os.rename(root, root + "-old")
        if change == "root-copied":
            os.rename(root + "-copy", root)
        else:
            os.symlink(root + "-copy", root, target_is_directory=True)
    probe, after, _ = _run(args, env, cwd)
    assert "tui.cli.main" in probe["loaded"]  # not answered from the record
    expected = {"append": calls + 1, "add": calls + each, "remove": calls - each}.get(change, calls)
    assert _total(after) == expected


def test_a_directory_changed_just_now_is_not_trusted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "sessions"
    list(write_codex(tmp_path, 2, turns=1))
    # "Just now" moved ten minutes ahead, so the directories written above count as old however slow this run is.
    monkeypatch.setattr(report_memo, "_RACY_NS", -600_000_000_000)
    listing = report_memo.take_listing([str(root)], ())
    assert listing is not None and not listing[3]
    day = next(p for p in root.rglob("*") if p.is_file()).parent
    future = time.time_ns() + 3_600_000_000_000  # a change "now", whatever the clock reads while the test runs
    os.utime(day, ns=(future, future))
    listing = report_memo.take_listing([str(root)], ())
    assert listing is not None and listing[3]  # racy: the output memo may use it, no invocation record is kept


def test_the_entry_paths_spelled_out_names_are_the_engines(tmp_path: Path) -> None:
    assert report_memo.SQLITE_NAME == SQLITE_NAME
    for env in ({"XDG_CACHE_HOME": str(tmp_path), "HOME": "/h"}, {"XDG_CACHE_HOME": "relative", "HOME": "/h"},
                {"HOME": "/h"}):
        assert report_memo.reports_dir(env) == str(cache_root(env) / "reports")
    assert report_memo.reports_dir({"CTXSCOPE_NO_INDEX": "1", "HOME": "/h"}) is None


def test_a_report_with_problems_replays_them_one_line_each(tmp_path: Path, env: dict[str, str]) -> None:
    root = tmp_path / "claude" / "projects" / "-p"
    root.mkdir(parents=True)
    (root / "bad\nname.jsonl").write_text('{"type": "user"}\n')  # a file name that would forge a second line
    args = ["report", str(tmp_path / "claude" / "projects"), "--utc"]
    first, _, err1 = _run(args, env, tmp_path)
    second, _, err2 = _run(args, env, tmp_path)
    assert second["loaded"] == [] and err2 == err1 and first["code"] == second["code"]
    assert all("name.jsonl" not in line or "bad" in line for line in err1.splitlines())


def test_a_reader_that_goes_away_is_no_failure(tmp_path: Path, env: dict[str, str]) -> None:
    list(write_codex(tmp_path / "codex", 3, turns=2))
    args = ["report", str(tmp_path / "codex" / "sessions"), "--json", "--utc"]
    _run(args, env, tmp_path)
    probe = [sys.executable, "-c", _PROBE, *args]
    proc = subprocess.Popen(probe, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before the answer is written: the write meets a closed pipe
    with proc.stderr:
        err = proc.stderr.read().decode()
    assert proc.wait() == 0
    *messages, loaded = err.splitlines()
    assert json.loads(loaded) == {"code": 0, "loaded": []} and messages == []



_COMMAND = """
import sys
from tui.cli import report_memo
report_memo._RACY_NS = -(1 << 62)  # the sessions here were written a moment ago: trust their directories' times
sys.argv[0] = {script!r}
exec(compile(open({script!r}).read(), {script!r}, "exec"))
"""


def test_the_installed_command_replays_a_report_with_its_output_and_exit_code(tmp_path: Path,
                                                                              env: dict[str, str]) -> None:
    # The command (scripts/ctxscope) ends the process as soon as a replayed output is flushed (tui/cli/entry.py,
    # run_command): what the user sees must be what the full run showed, exit code included (here 1: a file no
    # reader takes).
    script = str(Path(__file__).resolve().parents[2] / "scripts" / "ctxscope")
    root = tmp_path / "claude" / "projects" / "-p"
    root.mkdir(parents=True)
    (root / "s.jsonl").write_text('{"type": "user"}\n')
    list(write_claude_code(tmp_path / "claude", 2, turns=2))
    env = {k: v for k, v in env.items() if k != "PYTHONUNBUFFERED"}  # buffered, as a terminal's pipe is
    argv = [sys.executable, "-X", "importtime", "-c", _COMMAND.format(script=script), "report",
            str(tmp_path / "claude" / "projects"), "--utc"]
    runs = []
    for _ in range(2):
        proc = subprocess.run(argv, env=env, cwd=tmp_path, capture_output=True, text=True, check=False)
        lines = proc.stderr.splitlines()
        imported = {line.rsplit("|", 1)[-1].strip() for line in lines if line.startswith("import time:")}
        messages = [line for line in lines if not line.startswith("import time:")]
        runs.append((proc.returncode, proc.stdout, messages, "tui.cli.main" in imported))
    (code1, out1, err1, full1), (code2, out2, err2, full2) = runs
    assert full1 and not full2  # the second one was replayed, with nothing of the command line imported
    assert code1 == code2 == 1 and out2 == out1 and err2 == err1 and "CALLS" in out1 and err1



_ENDS = """
import os, sys, threading
real = os._exit
def ended(code):
    sys.stderr.write(f"os._exit({{code}})\\n")
    sys.stderr.flush()
    real(code)
os._exit = ended
stop = threading.Event()
if {other_thread}:  # something else still running: the ordinary exit waits for it
    threading.Thread(target=stop.wait, daemon=False).start()
    threading.Timer(5, stop.set).start()
from tui.cli.entry import run_command
sys.argv = ["ctxscope", *sys.argv[1:]]
try:
    run_command()
finally:
    stop.set()
"""


@pytest.mark.parametrize("other_thread", [False, True])
def test_a_report_that_ran_ends_its_process_once_its_output_is_flushed(
    other_thread: bool, tmp_path: Path, env: dict[str, str],
) -> None:
    # No interpreter teardown after a report that ran (docs/usage.md, Speed) — unless something may still need it.
    list(write_codex(tmp_path / "codex", 2, turns=2))
    env = {k: v for k, v in env.items() if k != "PYTHONUNBUFFERED"}  # buffered, as a pipe is
    proc = subprocess.run([sys.executable, "-c", _ENDS.format(other_thread=other_thread), "report",
                           str(tmp_path / "codex" / "sessions"), "--json", "--utc"],
                          env=env, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and _total(proc.stdout) > 0
    assert ("os._exit(0)" in proc.stderr) is not other_thread, proc.stderr
