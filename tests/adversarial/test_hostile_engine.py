"""Round 3 of hostile input, the engine's classes (issue 25: 5, 6, 7, 9, 10, 11, 12): copied session files,
numbers out of range, a slow or huge LLM endpoint, two sidecars on one state dir, idle metrics connections, an
in-place edit the index missed, and two secret shapes. Real files, real subprocesses, real loopback servers."""

from __future__ import annotations

import contextlib
import json
import os
import random
import string
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.adversarial._harness import Conversation, openclaw_store, run_cli
from tests.engine._transcripts import HEADER

pytestmark = pytest.mark.reliability


def _rewrite_last_usage(path: Path, usage: dict[str, Any]) -> None:
    """Give the last assistant line of ``path`` these usage fields (stdlib JSON: orjson refuses 2**70 itself)."""
    lines = [json.loads(raw) for raw in path.read_text().splitlines()]
    last = max(n for n, obj in enumerate(lines) if obj.get("message", {}).get("role") == "assistant")
    lines[last]["message"]["usage"].update(usage)
    path.write_text("".join(json.dumps(obj) + "\n" for obj in lines))


def _distinct(prefix: str) -> Conversation:
    """A short conversation whose entry ids carry ``prefix``: report counts each session's call apart."""
    talk = Conversation().turn(0, "hi", "hello", tokens=1000)
    for entry in talk.entries:
        entry["id"] = f"{prefix}-{entry['id']}"
        entry["parentId"] = f"{prefix}-{entry['parentId']}" if entry["parentId"] else None
    return talk


_HOSTILE_USAGE: dict[str, dict[str, Any]] = {
    "agent:main:huge": {"input": 2**70, "totalTokens": 2**70},
    "agent:main:negative": {"input": -500_000_000, "totalTokens": -500_000_000},
    "agent:main:cost": {"cost": {"total": 1e308}},
    "agent:main:ok": {},
}


def _hostile_numbers_store(root: Path) -> Path:
    """An OpenClaw store whose sessions hold 2**70, negative tokens and a 1e308 cost; one row has no
    ``contextTokens``, so its window comes from an ``openclaw.json`` that says 1e308."""
    state = root / "openclaw"
    directory = openclaw_store(state, {key: _distinct(key.rsplit(":", 1)[1]) for key in _HOSTILE_USAGE})
    store = orjson.loads((directory / "sessions.json").read_bytes())
    for key, usage in _HOSTILE_USAGE.items():
        _rewrite_last_usage(directory / f"{store[key]['sessionId']}.jsonl", usage)
    del store["agent:main:ok"]["contextTokens"]
    store["agent:main:cost"]["estimatedCostUsd"] = 1e308
    store["agent:main:negative"]["compactionCount"] = 2**70
    (directory / "sessions.json").write_text(json.dumps(store))
    (state / "openclaw.json").write_text(
        '{"models":{"providers":{"anthropic":{"models":[{"id":"claude-sonnet-4-5","contextWindow":1e308}]}}}}')
    return directory


def test_6_numbers_out_of_range_are_reported_for_their_session_and_crash_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    directory = _hostile_numbers_store(tmp_path)
    pi_dir = tmp_path / "pi" / "--w--"
    pi = _distinct("pi").write(pi_dir / "s.jsonl")
    _rewrite_last_usage(pi, {"input": 2**70})
    agent = home / ".pi" / "agent"
    agent.mkdir(parents=True)
    (agent / "models.json").write_text(
        '{"providers":{"anthropic":{"models":[{"id":"claude-sonnet-4-5","contextWindow":1e308}]}}}')
    for args in (["status", str(directory), "--json"], ["status", str(directory), "--json", "--full"],
                 ["status", str(pi), "--json"], ["watch", "--once", str(directory)],
                 ["report", str(directory), "--by", "session", "--json"]):
        result = run_cli(args, home)
        assert result.returncode == 0 and "Traceback" not in result.stderr, (args, result.stderr[-2000:])
        assert "inf" not in result.stdout.lower() and "nan" not in result.stdout.lower(), (args, result.stdout)
    rows = {row["key"]: row for row in orjson.loads(run_cli(["status", str(directory), "--json", "--full"],
                                                            home).stdout)}
    assert set(rows) == set(_HOSTILE_USAGE)
    for row in rows.values():
        tokens = row["context_tokens"]
        assert row["context_window"] <= 10**9 and (tokens is None or 0 <= tokens <= 10**9), row
        assert row["store_compaction_count"] is None or row["store_compaction_count"] <= 10**9, row
    for key in ("agent:main:huge", "agent:main:negative", "agent:main:cost"):
        reasons = " ".join(str(bad) for bad in rows[key]["malformed_lines"])
        assert "out of bounds" in reasons, (key, rows[key]["malformed_lines"])
    assert rows["agent:main:ok"]["malformed_lines"] == []
    pi_row = orjson.loads(run_cli(["status", str(pi), "--json"], home).stdout)[0]
    assert pi_row["context_window"] <= 10**9, pi_row
    report = orjson.loads(run_cli(["report", str(directory), "--by", "session", "--json"], home).stdout)
    # Every session is read; those whose only call has no usable figure bill nothing.
    assert report["sessions"] == len(_HOSTILE_USAGE) and {row["session"] for row in report["rows"]} >= {
        "agent:main:ok", "agent:main:cost"}
    for row in [*report["rows"], report["total"]]:
        names = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "total_tokens")
        assert all(0 <= row[name] <= 4 * 10**9 for name in names), row
        assert row["cost_usd"] is not None and 0 <= row["cost_usd"] < 10, row


def test_11_an_in_place_edit_that_keeps_size_and_mtime_is_reindexed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    talk = _distinct("x")
    for n in range(1, 40):  # past the 2 × 4 KiB the index hashes, so the edit lands where no digest looks
        talk.turn(n, f"step {n} " + "words " * 40, "fine " * 40, tokens=1000 + n)
    path = talk.write(tmp_path / "pi" / "s.jsonl")
    before = orjson.loads(run_cli(["report", str(path), "--json"], home).stdout)["total"]["total_tokens"]
    data = path.read_bytes()
    middle = data.index(b'"input":1020')
    edited = data[:middle] + b'"input":9020' + data[middle + len(b'"input":1020'):]
    assert len(edited) == len(data) and 8192 < middle < len(data) - 8192
    st = path.stat()
    with path.open("r+b") as handle:  # `rsync --inplace -t`: same inode, same size, the mtime put back
        handle.write(edited)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = orjson.loads(run_cli(["report", str(path), "--json"], home).stdout)["total"]["total_tokens"]
    fresh = orjson.loads(run_cli(["report", str(path), "--json"], home, CTXSCOPE_NO_INDEX="1").stdout)["total"][
        "total_tokens"]
    assert fresh != before, "the edit must change what a fresh read finds"
    assert after == fresh, (before, after, fresh)



def test_12_a_bare_aws_secret_and_an_npm_token_never_reach_the_archive_or_the_summary(tmp_path: Path) -> None:
    rng = random.Random(25)
    alphabet = string.ascii_letters + string.digits
    aws = "".join(rng.choice(alphabet) for _ in range(18)) + "/" + "".join(rng.choice(alphabet) for _ in range(21))
    npm = "-".join("".join(rng.choice("0123456789abcdef") for _ in range(n)) for n in (8, 4, 4, 4, 12))
    sha = "".join(rng.choice("0123456789abcdef") for _ in range(40))
    name = "ParseHttpHeaderValueFromRequestContext42"  # 40 characters, mixed case and digits: not a key
    home, workspace = tmp_path / "home", tmp_path / "home" / "project"
    workspace.mkdir(parents=True)
    talk = Conversation()
    talk.turn(0, f"paste: {aws}", f"npm token list says {npm}; commit {sha} in {name}",
              call={"command": f"echo {aws}"}, output=f"{aws}\n| npm token | {npm} |\n{sha}\n")
    for n in range(1, 6):
        talk.turn(n, f"next step {n} please", "details " * 80)
    path = talk.write(tmp_path / "s.jsonl", {**HEADER, "cwd": str(workspace)})
    original = path.read_bytes()
    result = run_cli(["--state-dir", str(tmp_path / "state"), "compact", str(path), "--yes", "--keep-recent", "300",
                      "--layer", "drop-only"], home)
    assert result.returncode == 0, result.stderr
    archive = b"".join(p.read_bytes() for p in workspace.rglob("*") if p.is_file())
    written = path.read_bytes()[len(original):] + archive
    assert archive and b'"type":"compaction"' in written
    for secret in (aws, npm):
        assert secret[4:24].encode() not in written, secret
    assert sha.encode() in archive and name.encode() in archive, "git SHAs and names must survive"


class _Endpoint:
    """A hostile LLM endpoint on loopback: raw sockets, so it can drip, flood or answer with escape sequences."""

    def __init__(self, mode: str) -> None:
        import socket
        import threading

        self.mode = mode
        self.stop = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/v1"
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        self.listener.settimeout(0.2)
        while not self.stop.is_set():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            with conn, contextlib.suppress(OSError):  # the client gave up: what the deadline is for
                self._answer(conn)

    def _answer(self, conn: Any) -> None:
        conn.settimeout(5)
        request = b""
        while b"\r\n\r\n" not in request:
            request += conn.recv(65536)
        head, _, body = request.partition(b"\r\n\r\n")
        length = int(next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(
            b"content-length")))
        while len(body) < length:
            body += conn.recv(65536)
        if self.mode == "drip":  # one byte every half second, for up to two minutes
            conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n")
            for _ in range(240):
                if self.stop.wait(0.5):
                    return
                conn.sendall(b" ")
        elif self.mode == "flood":  # a 200 answer of 256 MiB of valid JSON
            filler = b"a" * (1 << 20)
            head_json, tail_json = b'{"choices":[{"message":{"content":"', b'"}}]}'
            size = len(head_json) + 256 * len(filler) + len(tail_json)
            conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: "
                         + str(size).encode() + b"\r\n\r\n" + head_json)
            for _ in range(256):
                conn.sendall(filler)
            conn.sendall(tail_json)
        else:  # an error page that writes the clipboard, clears the screen, reverses text and forges a line
            page = ("\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[2J\x1b]0;owned\x1b\\\x9b31m\u202egnp.exe\n"
                    "ctxscope: checkpoint written " + "x" * 100_000).encode()
            conn.sendall(b"HTTP/1.1 500 Oops\r\ncontent-type: text/plain\r\ncontent-length: "
                         + str(len(page)).encode() + b"\r\n\r\n" + page)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(10)
        self.listener.close()


@pytest.mark.parametrize("mode", ["drip", "flood", "error"])
def test_7_a_hostile_llm_endpoint_cannot_stall_flood_or_write_to_the_terminal(
        tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.adversarial._harness import measure_cli, write_config

    home = tmp_path / "home"
    path = _distinct("e").turn(1, "decide: keep the change small", "Decision: keep it small").write(
        tmp_path / "pi" / "s.jsonl")
    endpoint = _Endpoint(mode)
    try:
        write_config(home, f"llm: {{kind: openai, base_url: '{endpoint.url}', model: m, api_key_env: FAKE_LLM_KEY,"
                           " timeout: 3}\n")
        monkeypatch.setenv("FAKE_LLM_KEY", "k-test")  # measure_cli passes the runner's environment on
        measured = measure_cli(["--state-dir", str(tmp_path / "state"), "checkpoint", str(path), "--enrich"],
                               home, timeout=100)
    finally:
        endpoint.close()
    output = measured.stdout + measured.stderr
    print(f"{mode}: {measured.seconds:.1f} s, peak RSS {measured.max_rss_mb:.0f} MB")
    assert not measured.timed_out and measured.returncode == 0, output[-2000:]
    assert "LLM enrichment failed" in output, output[-2000:]
    if mode == "drip":
        # llm.timeout is 3 s: the whole request gives up then (the server would drip for two minutes); the rest
        # of the bound is the machine being busy, not the endpoint.
        assert measured.seconds < 40, measured.seconds
        assert "did not answer within 3 s" in output
    elif mode == "flood":
        assert measured.max_rss_mb < 200, measured.max_rss_mb
        assert "MiB" in output
    else:
        assert not any(c in output for c in "\x1b\x07\x9b\u202e"), repr(output[-600:])
        assert "\nctxscope: checkpoint written" not in output
        assert all(len(line) < 2000 for line in output.splitlines())


def test_10_idle_metrics_connections_pin_no_threads_and_scrapes_still_answer(tmp_path: Path) -> None:
    import socket
    import subprocess
    import sys
    import urllib.request

    from tests.adversarial._harness import ROOT, cli_env

    home = tmp_path / "home"
    path = _distinct("m").write(tmp_path / "pi" / "s.jsonl")
    watch = subprocess.Popen(
        [sys.executable, "-m", "tui.cli.main", "--state-dir", str(tmp_path / "state"), "watch", str(path),
         "--metrics", "127.0.0.1:0"], cwd=ROOT, env=cli_env(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL, text=True)
    idle: list[socket.socket] = []
    try:
        assert watch.stdout is not None
        line = ""
        while "metrics at " not in line:
            line = watch.stdout.readline()
            assert line, watch.stderr.read() if watch.stderr else ""
        url = line.split("metrics at ", 1)[1].strip()
        host, port = url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
        threads_before = len(os.listdir(f"/proc/{watch.pid}/task"))
        for _ in range(80):  # connect and say nothing
            idle.append(socket.create_connection((host, int(port))))
        time.sleep(2)  # let the server accept all of them (the bound below holds at any moment)
        threads_idle = len(os.listdir(f"/proc/{watch.pid}/task"))
        print(f"threads: {threads_before} before, {threads_idle} with 80 idle connections")
        assert threads_idle <= threads_before + 8, (threads_before, threads_idle)
        # Idle clients are closed after a few seconds: a scrape gets its answer while they are still connected.
        answer, tries = b"", 0
        while not answer and tries < 60:
            tries += 1
            try:
                with urllib.request.urlopen(url, timeout=10) as response:
                    answer = response.read()
            except OSError:
                time.sleep(1)
        assert b"ctxscope" in answer, tries
        closed = 0
        for sock in idle:  # every idle connection was closed by the server, not left open
            sock.settimeout(30)
            try:
                closed += sock.recv(1) == b""
            except OSError:
                closed += 1
        assert closed == len(idle)
    finally:
        for sock in idle:
            sock.close()
        watch.terminate()
        watch.communicate(timeout=30)  # reaps it and closes its pipes


def _history(path: Path, state: Path, home: Path) -> list[dict[str, Any]]:
    result = run_cli(["--state-dir", str(state), "history", str(path), "--json"], home)
    assert result.returncode == 0, result.stderr
    return list(orjson.loads(result.stdout)["checkpoints"])


def _copied_pair(tmp_path: Path) -> tuple[Path, Path]:
    """Transcript A of project a, and B: a copy of A's file into project b that then went on with other work."""
    header = {**HEADER, "id": "dup-1"}
    a = Conversation().turn(0, "project a: ship the parser", "Decision: ship the parser first").write(
        tmp_path / "sessions" / "--a--" / "s.jsonl", {**header, "cwd": "/work/a"})
    b = tmp_path / "sessions" / "--b--" / "s.jsonl"
    talk_b = Conversation(entries=[orjson.loads(raw) for raw in a.read_bytes().splitlines()[1:]])
    talk_b.turn(1, "project b: the secret roadmap", "Decision: project b keeps its roadmap private")
    talk_b.write(b, {**header, "cwd": "/work/b"})
    return a, b


def test_5_two_copies_of_one_session_file_never_share_checkpoints(tmp_path: Path) -> None:
    home, state = tmp_path / "home", tmp_path / "state"
    a, b = _copied_pair(tmp_path)
    written = run_cli(["--state-dir", str(state), "checkpoint", str(a)], home)
    assert written.returncode == 0, written.stderr
    assert len(_history(a, state, home)) == 1
    assert _history(b, state, home) == [], "B lists A's checkpoint"
    inject = run_cli(["--state-dir", str(state), "inject", str(b), "--dry-run"], home)
    assert inject.returncode != 0 and "project a" not in inject.stdout, inject.stdout
    assert run_cli(["--state-dir", str(state), "checkpoint", str(b)], home).returncode == 0
    (only_a,), (only_b,) = _history(a, state, home), _history(b, state, home)
    assert only_a["path"] != only_b["path"]
    plan_b = run_cli(["--state-dir", str(state), "inject", str(b), "--dry-run"], home)
    assert plan_b.returncode == 0 and "roadmap" in plan_b.stdout and "ship the parser first" in plan_b.stdout
    plan_a = run_cli(["--state-dir", str(state), "inject", str(a), "--dry-run"], home)
    assert plan_a.returncode == 0 and "roadmap" not in plan_a.stdout, plan_a.stdout
    # watch follows both and says which is which.
    watched = run_cli(["--state-dir", str(state), "watch", "--once", str(a.parent.parent)], home)
    assert watched.returncode == 0, watched.stderr
    assert "watching 2 session(s)" in watched.stdout, watched.stdout
    shared = [line for line in watched.stdout.splitlines() if "share this id" in line]
    assert len(shared) == 1 and str(a) in shared[0] and str(b) in shared[0], watched.stdout


def test_5_checkpoints_in_a_directory_both_copies_shared_stay_with_their_own_file(tmp_path: Path) -> None:
    """A user's state dir from before: one directory under the bare header id, holding A's and B's files."""
    from engine.checkpoints.model import Checkpoint, CheckpointMeta, TokenUsage, WorkingState
    from engine.checkpoints.store import write_checkpoint

    home, state = tmp_path / "home", tmp_path / "state"
    a, b = _copied_pair(tmp_path)
    for path, topic in ((a, "parser of project a"), (b, "roadmap of project b")):
        meta = CheckpointMeta("cp_000", "dup-1", str(path), "2026-03-01T10:00:00Z", "manual", 0,
                              TokenUsage(1000, 200_000, 0.005))
        write_checkpoint(state, "dup-1", Checkpoint(meta=meta, working=WorkingState(topic=topic, status="idle")))
    old = state / "context" / "checkpoints"
    assert len(list(old.iterdir())) == 1 and len(list(next(old.iterdir()).glob("cp_*.yaml"))) == 2
    (from_a,), (from_b,) = _history(a, state, home), _history(b, state, home)
    assert (from_a["checkpoint_id"], from_b["checkpoint_id"]) == ("cp_001", "cp_002")
    assert "parser" in run_cli(["--state-dir", str(state), "inject", str(a), "--dry-run"], home).stdout
    assert "roadmap" in run_cli(["--state-dir", str(state), "inject", str(b), "--dry-run"], home).stdout
    # A wrote there first: the directory stays A's, and A's next checkpoint goes there, linked to A's own last one.
    assert run_cli(["--state-dir", str(state), "checkpoint", str(a)], home).returncode == 0
    assert [row["checkpoint_id"] for row in _history(a, state, home)] == ["cp_001", "cp_003"]
    assert [row["checkpoint_id"] for row in _history(b, state, home)] == ["cp_002"]
    assert "previous_checkpoint: \"cp_001\"" in (next(old.iterdir()) / "cp_003.yaml").read_text()
    # B's next checkpoint moves B's file into B's own directory; nothing of B's is left beside A's.
    assert run_cli(["--state-dir", str(state), "checkpoint", str(b)], home).returncode == 0
    assert [row["checkpoint_id"] for row in _history(b, state, home)] == ["cp_002", "cp_003"]
    assert [row["checkpoint_id"] for row in _history(a, state, home)] == ["cp_001", "cp_003"]
    assert "roadmap" in run_cli(["--state-dir", str(state), "inject", str(b), "--dry-run"], home).stdout
    assert "roadmap" not in run_cli(["--state-dir", str(state), "inject", str(a), "--dry-run"], home).stdout
    assert len(list(old.iterdir())) == 2


def test_9_two_watch_sidecars_on_one_state_dir_write_a_trigger_once(tmp_path: Path) -> None:
    import subprocess
    import sys
    import threading

    from tests.adversarial._harness import ROOT, cli_env, write_config

    home, state = tmp_path / "home", tmp_path / "state"
    write_config(home, "auto_checkpoint_idle: 36500d\n")  # the March transcript plays one being written now
    talk = _distinct("w")
    path = talk.write(tmp_path / "pi" / "s.jsonl")
    outputs: list[list[str]] = [[], []]
    watchers = [subprocess.Popen(
        [sys.executable, "-m", "tui.cli.main", "--state-dir", str(state), "watch", str(path), "--force-polling"],
        cwd=ROOT, env=cli_env(home), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        text=True) for _ in outputs]
    readers = [threading.Thread(target=lambda w=w, out=out: out.extend(w.stdout), daemon=True)  # type: ignore[misc]
               for w, out in zip(watchers, outputs, strict=True)]
    for reader in readers:
        reader.start()

    def wait_for(text: str) -> None:
        deadline = time.monotonic() + 120
        while not all(any(text in line for line in out) for out in outputs):
            assert time.monotonic() < deadline, outputs
            assert all(w.poll() is None for w in watchers), outputs
            time.sleep(0.1)

    try:
        wait_for("watching")
        with path.open("ab") as handle:  # the agent's next reply: 85% of the window, past the checkpoint line
            talk.turn(1, "and now the big one", "Read everything.", tokens=170_000)
            handle.write(b"".join(orjson.dumps(e) + b"\n" for e in talk.entries[-2:]))
        wait_for("auto-80pct")
    finally:
        for watcher in watchers:
            watcher.terminate()
            watcher.communicate(timeout=30)
    written = sorted(state.rglob("cp_*.yaml"))
    triggers = [p.read_text().split("trigger: ", 1)[1].split("\n", 1)[0] for p in written]
    assert triggers == ['"auto-80pct"'], (triggers, outputs)
    lines = [line for out in outputs for line in out if "auto-80pct" in line]
    assert any("already wrote it as cp_001" in line for line in lines), lines
