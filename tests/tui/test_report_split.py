"""``ctxscope report`` reads a cold corpus over two processes and prints exactly what one process prints — output,
problem lines, exit code — with no standard input and ``CI=true``, and leaves no process behind
(``CTXSCOPE_SPLIT_AT``, docs/usage.md, Speed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sim.agent_corpus import write_claude_code, write_codex

pytestmark = pytest.mark.skipif(not (hasattr(os, "fork") and hasattr(os, "memfd_create")), reason="Linux only")

_PROBE = """
import json, os, sys
forks = []
real = os.fork
def fork():
    pid = real()
    if pid:
        forks.append(pid)
    return pid
os.fork = fork
from tui.cli.entry import main
code = main(sys.argv[1:])
sys.stdout.flush()
me = str(os.getpid())
def parent(pid):
    try:  # any process on the machine may end between the listing and this read
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1]
    except OSError:
        return None
left = [p for p in os.listdir("/proc") if p.isdigit() and parent(p) == me]
print(json.dumps({"code": int(code), "forks": len(forks), "left": left}), file=sys.stderr)
"""


def _report(home: Path, split_at: str, cache: Path) -> tuple[dict[str, object], str, str]:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("CTXSCOPE_")}, "CI": "true",
           "CTXSCOPE_SPLIT_AT": split_at, "XDG_CACHE_HOME": str(cache), "XDG_CONFIG_HOME": str(home / "config"),
           "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.run([sys.executable, "-c", _PROBE, "report", "claude/projects", "codex/sessions", "--json",
                           "--utc", "--by", "session"], env=env, cwd=home, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, check=False)
    *err, probe = proc.stderr.splitlines(keepends=True)
    return json.loads(probe), proc.stdout, "".join(err)


def test_a_split_report_prints_what_one_process_prints(tmp_path: Path) -> None:
    list(write_claude_code(tmp_path / "claude", 6, turns=3))
    list(write_codex(tmp_path / "codex", 6, turns=3))
    (tmp_path / "claude" / "projects" / "-home-dev-project-0" / "junk.jsonl").write_bytes(b'{"type":"x"}\n')
    one, out1, err1 = _report(tmp_path, "0", tmp_path / "cache-one")
    two, out2, err2 = _report(tmp_path, "1", tmp_path / "cache-two")
    assert (one["forks"], two["forks"]) == (0, 1)
    assert (out2, err2, two["code"]) == (out1, err1, one["code"])
    assert one["code"] == 1 and "junk.jsonl" in err1 and len(json.loads(out1)["rows"]) == 12
    assert two["left"] == []
