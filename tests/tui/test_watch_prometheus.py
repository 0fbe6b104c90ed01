"""A real Prometheus scrapes ``ctxscope watch --metrics`` while a simulated agent writes its session.

Needs Debian's ``prometheus`` package (``.ci/run`` installs it when it runs as root); both processes listen on
loopback only and are stopped by PID whatever happens.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.conftest import SUBAGENT
from tests.engine.test_grafana_dashboard import dashboard_queries
from tests.tui.transcript_lines import Entry, append, compaction, reply

KEY = "3003a4e2-a8c1-417d-9ebc-76480d47d0c0"
LEAF = "562b10c7"
WAIT = 120.0
"""Seconds for each expected outcome: generous, the machine may be busy."""
PROMETHEUS_CANDIDATES = ("prometheus", "/usr/bin/prometheus")


def _prometheus() -> str:
    for candidate in PROMETHEUS_CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    pytest.skip("Debian's `prometheus` package is not installed here (`.ci/run` installs it with apt-get when it "
                "runs as root and apt can reach the archive); this test needs a real Prometheus")


def _now_entry(entry: Entry) -> Entry:
    """``entry`` stamped now, so the session counts as active (idle sessions leave the exposition)."""
    return {**entry, "timestamp": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")}


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _stop(process: subprocess.Popen[str] | subprocess.Popen[bytes] | None) -> None:
    """Stop one process we started, by its PID: SIGTERM, then SIGKILL if it does not exit in time."""
    if process is None or process.poll() is not None:
        return
    os.kill(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)


def _until(what: str, check: Callable[[], object], log: Path | None = None) -> object:
    deadline = time.monotonic() + WAIT
    last: object = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(0.5)
    tail = log.read_text(errors="replace")[-3000:] if log is not None and log.exists() else ""
    raise AssertionError(f"{what}: not within {WAIT:.0f} s (last: {last!r})\n{tail}")


def _query(port: int, promql: str) -> list[dict[str, object]]:
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": promql})
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            answer = json.loads(response.read())
    except OSError:
        return []
    return list(answer["data"]["result"]) if answer.get("status") == "success" else []


def _answer(port: int, promql: str) -> dict[str, object]:
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": promql})
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return dict(json.loads(response.read()))
    except urllib.error.HTTPError as exc:  # a query Prometheus rejects answers 400 with its reason
        return dict(json.loads(exc.read()))


def _value(port: int, promql: str) -> float | None:
    result = _query(port, promql)
    return float(result[0]["value"][1]) if result else None  # type: ignore[index]


def _ready(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/-/ready", timeout=5) as response:
            return response.status == 200
    except OSError:
        return False


def _start_prometheus(binary: str, work: Path, target: str) -> tuple[subprocess.Popen[bytes], int, Path]:
    """Prometheus on a free loopback port scraping ``target`` every second (retried if the port was taken)."""
    config = work / "prometheus.yml"
    config.write_text(
        "global: {scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s}\n"
        "scrape_configs:\n"
        f"  - job_name: ctxscope\n    static_configs: [{{targets: ['{target}']}}]\n"
    )
    log = work / "prometheus.log"
    for attempt in range(3):
        port = _free_port()
        with log.open("ab") as out:
            process = subprocess.Popen(
                [binary, f"--config.file={config}", f"--storage.tsdb.path={work / f'data{attempt}'}",
                 f"--web.listen-address=127.0.0.1:{port}", "--log.level=warn"],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            )
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline and process.poll() is None and not _ready(port):
            time.sleep(0.5)
        if process.poll() is None and _ready(port):
            return process, port, log
        _stop(process)
    raise AssertionError(f"Prometheus did not become ready:\n{log.read_text(errors='replace')[-3000:]}")


@pytest.mark.integration
def test_prometheus_sees_the_sessions_tokens_and_a_compaction_move(tmp_path: Path) -> None:
    binary = _prometheus()
    ctxscope = shutil.which("ctxscope", path=str(Path(sys.executable).parent))
    assert ctxscope is not None, "the package is installed with its command"
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    transcript = sessions / SUBAGENT.name
    shutil.copy(SUBAGENT, transcript)
    (tmp_path / "config").mkdir()  # no user config: the default idle age (24 h) applies
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    watch: subprocess.Popen[str] | None = None
    prometheus: subprocess.Popen[bytes] | None = None
    reader: threading.Thread | None = None
    try:
        watch = subprocess.Popen(
            [ctxscope, "--state-dir", str(tmp_path / "state"), "watch", str(sessions), "--force-polling",
             "--metrics", "127.0.0.1:0"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True, env=env,
        )
        lines: queue.Queue[str] = queue.Queue()

        def pump() -> None:
            assert watch is not None and watch.stdout is not None
            for line in watch.stdout:
                lines.put(line)

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        seen: list[str] = []

        def metrics_url() -> str | None:
            try:
                seen.append(lines.get(timeout=1))
            except queue.Empty:
                return None
            found = re.search(r"metrics at http://(127\.0\.0\.1:\d+)/metrics", seen[-1])
            return found.group(1) if found else None

        target = _until("watch prints its metrics address", metrics_url)
        assert isinstance(target, str), seen
        prometheus, port, log = _start_prometheus(binary, tmp_path, target)
        _until("Prometheus scrapes the target", lambda: _value(port, 'up{job="ctxscope"}') == 1.0, log)
        assert _value(port, f'ctxscope_session_context_tokens{{session="{KEY}"}}') is None  # months idle: not shown

        append(transcript, _now_entry(reply("r1", LEAF, 150_000)))  # the agent answers: 57% of 262k
        tokens = f'ctxscope_session_context_tokens{{session="{KEY}",job="ctxscope"}}'
        _until("the session's context tokens reach Prometheus", lambda: _value(port, tokens) == 150_000, log)
        compactions = 'sum(ctxscope_compactions_total{controller="agent",layer="agent",outcome="ok"})'
        assert (_value(port, compactions) or 0) == 0

        # The agent compacts, then answers with a smaller context.
        append(transcript, compaction("c1", "r1", "r1"), _now_entry(reply("r2", "c1", 42_000)))
        _until("the compaction counter moves", lambda: _value(port, compactions) == 1.0, log)
        _until("the context tokens move down", lambda: _value(port, tokens) == 42_000, log)
        assert _value(port, f'ctxscope_session_compactions{{session="{KEY}"}}') == 1.0
        assert _value(port, 'sum(ctxscope_checkpoints_written_total{trigger="compaction"})') == 1.0
        # Every query of the Grafana dashboard in docs/ runs on this Prometheus, and the per-session ones find it.
        for query in dashboard_queries():
            promql = query.replace("$host", ".*").replace("$agent", ".*")
            variable = re.fullmatch(r"label_values\((.*), (\w+)\)", promql)
            if variable:  # a Grafana template variable: the values of a label of a selector
                promql = f"count by ({variable.group(2)}) ({variable.group(1)})"
            answer = _answer(port, promql)
            assert answer.get("status") == "success", (query, answer)
            if "ctxscope_session_" in query:
                assert answer["data"]["result"], f"no series for {query}"  # type: ignore[index]
    finally:
        _stop(prometheus)
        _stop(watch)
        if reader is not None:
            reader.join(timeout=30)  # the pipe is at its end once watch has exited
        if watch is not None and watch.stdout is not None:
            watch.stdout.close()
    assert watch.returncode == 0, "watch exits cleanly on SIGTERM"
