"""What the adversarial tests share: the CLI in a subprocess, trial counts, dropping root's file-permission bypass,
OpenClaw-layout sessions built byte by byte, a fake LLM endpoint that records what it is sent, and peak RSS."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.engine._transcripts import HEADER, assistant, line, tool_result, user

ROOT = Path(__file__).resolve().parents[2]
FULL = os.environ.get("CTXSCOPE_FULL") == "1"


def trials(bounded: int, full: int) -> int:
    """``bounded`` trials by default (CI), ``full`` with ``CTXSCOPE_FULL=1``."""
    return full if FULL else bounded


def cli_env(home: Path, **extra: str) -> dict[str, str]:
    """An environment that runs this checkout's code with a private home and config."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CTXSCOPE_", "OPENCLAW_", "PI_CODING"))}
    env.update(PYTHONPATH=str(ROOT), HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
               XDG_STATE_HOME=str(home / ".state"), XDG_CACHE_HOME=str(home / ".cache"),
               PYTHONDONTWRITEBYTECODE="1")
    env.update(extra)
    return env


def run_cli(args: Sequence[str], home: Path, *, timeout: float = 300.0, prefix: Sequence[str] = (),
            **env: str) -> subprocess.CompletedProcess[str]:
    """``ctxscope ARGS`` from this checkout in a subprocess (``prefix`` e.g. :func:`without_dac_override`)."""
    return subprocess.run([*prefix, sys.executable, "-m", "tui.cli.main", *args], cwd=ROOT, env=cli_env(home, **env),
                          capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, check=False)


def without_dac_override() -> list[str]:
    """A command prefix that drops root's permission bypass, so chmod means something even as root."""
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("setpriv (util-linux) is missing: permission tests need it to drop CAP_DAC_OVERRIDE as root")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search"]


def one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    """The stderr of a failed command, checked to be short lines and no traceback."""
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert lines and all(len(ln) < 2000 for ln in lines), result.stderr[:3000]
    return result.stderr


@dataclass
class Conversation:
    """Entries chained one after another, written as a v3 transcript."""

    entries: list[dict[str, Any]] = field(default_factory=list)

    @property
    def leaf(self) -> str | None:
        return self.entries[-1]["id"] if self.entries else None

    def add(self, entry: dict[str, Any]) -> Conversation:
        self.entries.append(entry)
        return self

    def turn(self, n: int, ask: str, answer: str, *, output: str = "", call: dict[str, Any] | None = None,
             tokens: int = 1000) -> Conversation:
        """A user message, an assistant reply (with a tool call when ``call``), its result and a closing reply."""
        self.add(user(f"u{n}", self.leaf, ask))
        self.add(assistant(f"a{n}", self.leaf, answer, tokens, tool=("bash", call) if call else None))
        if call:
            self.add(tool_result(f"t{n}", self.leaf, output or "ok"))
            self.add(assistant(f"b{n}", self.leaf, f"Done with step {n}.", tokens + 100))
        return self

    def write(self, path: Path, header: dict[str, Any] | None = None) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"".join(line(obj) for obj in [header or HEADER, *self.entries]))
        then = time.time() - 120  # not "written seconds ago": no agent-active warnings
        os.utime(path, (then, then))
        return path


def openclaw_store(state: Path, sessions: dict[str, Conversation], *, agent: str = "main",
                   header: dict[str, Any] | None = None) -> Path:
    """``<state>/agents/<agent>/sessions/`` with one transcript per key and their ``sessions.json``."""
    directory = state / "agents" / agent / "sessions"
    store: dict[str, Any] = {}
    for n, (key, conversation) in enumerate(sessions.items()):
        session_id = f"{n:08d}-0000-4000-8000-000000000000"
        conversation.write(directory / f"{session_id}.jsonl", {**(header or HEADER), "id": session_id})
        store[key] = {"sessionId": session_id, "updatedAt": 1, "contextTokens": 200_000}
    (directory / "sessions.json").write_bytes(orjson.dumps(store))
    return directory


@dataclass
class LLMCapture:
    """A fake OpenAI-compatible endpoint on loopback; ``bodies`` holds every request body it received."""

    url: str
    bodies: list[bytes]


@contextmanager
def fake_llm(answer: str = '["Decision: keep the change small"]') -> Iterator[LLMCapture]:
    bodies: list[bytes] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            bodies.append(self.rfile.read(int(self.headers.get("content-length", "0"))))
            data = orjson.dumps({"choices": [{"message": {"role": "assistant", "content": answer}}]})
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *_: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield LLMCapture(f"http://127.0.0.1:{server.server_address[1]}/v1", bodies)
    finally:
        server.shutdown()
        server.server_close()


def write_config(home: Path, text: str) -> Path:
    path = home / ".config" / "ctxscope" / "config.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@dataclass(frozen=True)
class Measured:
    """A finished command with its peak resident memory and wall time."""

    returncode: int
    stdout: str
    stderr: str
    max_rss_mb: float
    seconds: float
    timed_out: bool


_LAUNCHER = r"""
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as out:
    out.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""
"""Runs the command as its child: a process forked from the test runner carries the runner's resident size as
its peak (Linux keeps the high-water mark across ``exec``); one forked from this small launcher does not."""


def measure_cli(args: Sequence[str], home: Path, *, timeout: float) -> Measured:
    """Run ``ctxscope ARGS`` and report its own peak RSS (``wait4`` in a launcher) and wall time; the process
    group is killed at ``timeout``."""
    home.mkdir(parents=True, exist_ok=True)
    out, err, peak = home / ".measure.out", home / ".measure.err", home / ".measure.rss"
    peak.unlink(missing_ok=True)
    with out.open("w") as stdout, err.open("w") as stderr:
        start = time.monotonic()
        process = subprocess.Popen(
            [sys.executable, "-c", _LAUNCHER, str(peak), sys.executable, "-m", "tui.cli.main", *args], cwd=ROOT,
            env=cli_env(home), stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL, start_new_session=True)
        timer = threading.Timer(timeout, os.killpg, (process.pid, 9))
        timer.start()
        try:
            returncode = process.wait()
        finally:
            timer.cancel()
        seconds = time.monotonic() - start
    max_rss_kb = int(peak.read_text()) if peak.exists() else 0
    return Measured(returncode, out.read_text(), err.read_text(), max_rss_kb / 1024, seconds, seconds >= timeout)
