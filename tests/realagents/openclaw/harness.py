"""An isolated, onboarded OpenClaw home on loopback: onboarding, the gateway, turns and gateway calls.

Everything points at 127.0.0.1: the model is a :class:`tests.realagents.fake_model.FakeModelServer`, the gateway
binds loopback with a token, and the configuration switches off every request OpenClaw would make elsewhere
(hosted model catalog, update checks, telemetry) and every background turn (heartbeat, cron, dreaming,
pre-compaction memory flush) so that the only model requests are the ones a test causes. Every wait is bounded.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.realagents.openclaw.install import OpenClawInstall

AGENT_ID = "main"
GATEWAY_TOKEN = "ctxscope-test-token"
GATEWAY_READY_TIMEOUT_S = float(os.environ.get("CTXSCOPE_OPENCLAW_GATEWAY_TIMEOUT") or 300.0)
GATEWAY_STOP_TIMEOUT_S = 60.0
COMMAND_TIMEOUT_S = 240.0
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_READY = re.compile(r"\[gateway\]\s+ready\b")


class OpenClawError(RuntimeError):
    """An openclaw command failed or did not finish in time."""


def free_port() -> int:
    """A loopback TCP port that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _json_tail(text: str) -> Any:
    """The JSON document printed by an openclaw ``--json`` command (progress lines may precede it)."""
    text = text.strip()
    try:
        return json.loads(text)
    except ValueError:
        pass
    for start in (m.start() for m in re.finditer(r"^[{\[]", text, re.MULTILINE)):
        try:
            return json.loads(text[start:])
        except ValueError:
            continue
    raise OpenClawError(f"no JSON in openclaw output: {text[-2000:]!r}")


class OpenClawHome:
    """One isolated OpenClaw home (``HOME`` and ``OPENCLAW_STATE_DIR`` under ``root``).

    Args:
        install: the OpenClaw to run.
        root: an empty directory that becomes ``HOME``.
        model_base_url: the fake model's ``http://127.0.0.1:PORT/v1``.
    """

    def __init__(self, install: OpenClawInstall, root: Path, model_base_url: str) -> None:
        self.install = install
        self.root = root
        self.home = root / "home"
        self.state_dir = self.home / ".openclaw"
        self.model_base_url = model_base_url
        self.gateway_port = free_port()
        self.gateway: subprocess.Popen[bytes] | None = None
        self.gateway_log = root / "gateway.log"
        self.home.mkdir(parents=True, exist_ok=True)

    # -- environment and commands -------------------------------------------------------------------------------

    @property
    def env(self) -> dict[str, str]:
        """The environment of every openclaw (and ctxscope) command run against this home."""
        keep = {k: v for k, v in os.environ.items() if not k.startswith(("OPENCLAW_", "CTXSCOPE_", "XDG_"))}
        path = os.pathsep.join([str(self.install.node.parent), str(self.install.bin_dir), keep.get("PATH", "")])
        return {
            **keep,
            "PATH": path,
            "HOME": str(self.home),
            "OPENCLAW_STATE_DIR": str(self.state_dir),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_STATE_HOME": str(self.home / ".local" / "state"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "DO_NOT_TRACK": "1",
            "OPENCLAW_NO_AUTO_UPDATE": "1",
            "NO_COLOR": "1",
            "FORCE_COLOR": "0",
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
        }

    def run(
        self, *args: str, timeout: float = COMMAND_TIMEOUT_S, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        """Run ``openclaw ARGS`` and wait (bounded).

        Raises:
            OpenClawError: it timed out, or (with ``check``) exited non-zero.
        """
        try:
            done = subprocess.run(
                self.install.argv(*args), env=self.env, cwd=self.home, capture_output=True, text=True,
                timeout=timeout, stdin=subprocess.DEVNULL, check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise OpenClawError(f"openclaw {' '.join(args[:3])} took over {timeout:g} s") from exc
        if check and done.returncode != 0:
            raise OpenClawError(
                f"openclaw {' '.join(args[:3])} exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
            )
        return done

    def run_json(self, *args: str, timeout: float = COMMAND_TIMEOUT_S) -> Any:
        """``openclaw ARGS`` (which must include ``--json``) parsed."""
        return _json_tail(self.run(*args, timeout=timeout).stdout)

    # -- onboarding and configuration ---------------------------------------------------------------------------

    @property
    def sqlite_era(self) -> bool:
        """2026.8 and later keep sessions in SQLite (and know ``models.catalogRefresh``)."""
        year, month = (int(p) for p in self.install.version.split(".")[:2])
        return (year, month) >= (2026, 8)

    @property
    def config_path(self) -> Path:
        return self.state_dir / "openclaw.json"

    @property
    def agent_dir(self) -> Path:
        return self.state_dir / "agents" / AGENT_ID / "agent"

    @property
    def sessions_dir(self) -> Path:
        return self.state_dir / "agents" / AGENT_ID / "sessions"

    @property
    def db(self) -> Path:
        """The SQLite-era agent database (2026.8 and later)."""
        return self.agent_dir / "openclaw-agent.sqlite"

    def onboard(self) -> dict[str, Any]:
        """Non-interactive offline onboarding against the fake model, then the loopback-only settings."""
        answer = self.run_json(
            "onboard", "--non-interactive", "--accept-risk", "--auth-choice", "custom-api-key",
            "--custom-base-url", self.model_base_url, "--custom-model-id", "fake-model",
            "--custom-compatibility", "openai", "--custom-provider-id", "fake",
            "--gateway-bind", "loopback", "--gateway-port", str(self.gateway_port),
            "--gateway-auth", "token", "--gateway-token", GATEWAY_TOKEN,
            "--skip-channels", "--skip-daemon", "--skip-health", "--skip-skills", "--skip-search",
            "--skip-ui", "--skip-hooks", "--json",
        )
        if not isinstance(answer, dict) or answer.get("ok") is not True:
            raise OpenClawError(f"onboarding failed: {answer!r}")
        self.update_config(_loopback_only(self.root, sqlite_era=self.sqlite_era))
        self.run("config", "validate")  # OpenClaw refuses to run on keys its version does not know
        return answer

    def config(self) -> dict[str, Any]:
        loaded = json.loads(self.config_path.read_text())
        assert isinstance(loaded, dict)
        return loaded

    def update_config(self, patch: Mapping[str, Any]) -> None:
        """Merge ``patch`` into ``openclaw.json`` (objects merge, other values replace)."""
        self.config_path.write_text(json.dumps(_merge(self.config(), patch), indent=2) + "\n")

    def model_entry(self) -> dict[str, Any]:
        """The fake model's entry in ``models.providers.fake.models``."""
        models = self.config()["models"]["providers"]["fake"]["models"]
        entry = next(m for m in models if m.get("id") == "fake-model")
        assert isinstance(entry, dict)
        return entry

    # -- the gateway --------------------------------------------------------------------------------------------

    def start_gateway(self, timeout: float = GATEWAY_READY_TIMEOUT_S) -> None:
        """Start ``openclaw gateway run`` on loopback and wait until it logs that it is ready.

        Raises:
            OpenClawError: it exited or was not ready within ``timeout`` seconds (it is stopped then).
        """
        if self.gateway is not None:
            return
        log = self.gateway_log.open("ab")
        started = self.gateway_log.stat().st_size
        self.gateway = subprocess.Popen(
            self.install.argv("gateway", "run", "--bind", "loopback", "--port", str(self.gateway_port),
                              "--auth", "token", "--token", GATEWAY_TOKEN),
            env=self.env, cwd=self.home, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.gateway.poll() is not None:
                text = self._log_since(started)
                self.gateway = None
                raise OpenClawError(f"the gateway exited while starting:\n{text[-4000:]}")
            if _READY.search(self._log_since(started)):
                return
            time.sleep(0.5)
        text = self._log_since(started)
        self.stop_gateway()
        raise OpenClawError(f"the gateway was not ready within {timeout:g} s:\n{text[-4000:]}")

    def _log_since(self, offset: int) -> str:
        with self.gateway_log.open("rb") as f:
            f.seek(offset)
            return _ANSI.sub("", f.read().decode("utf-8", "replace"))

    def gateway_log_text(self) -> str:
        return self._log_since(0)

    def stop_gateway(self) -> None:
        """Stop the gateway we started (its process group: it runs helpers), politely first; bounded."""
        proc, self.gateway = self.gateway, None
        if proc is None or proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            proc.wait(GATEWAY_STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(GATEWAY_STOP_TIMEOUT_S)
        # Helpers of the gateway left in its group end with it.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)

    # -- talking to OpenClaw ------------------------------------------------------------------------------------

    def agent(self, key: str, text: str, timeout: float = COMMAND_TIMEOUT_S, *, local: bool = False) -> dict[str, Any]:
        """One turn: ``openclaw agent --session-key KEY -m TEXT --json`` (through the gateway, or ``--local``)."""
        args = ["agent", "--session-key", key, "-m", text, "--json"] + (["--local"] if local else [])
        answer = self.run_json(*args, timeout=timeout)
        done = isinstance(answer, dict) and (answer.get("status") == "ok" or (local and answer.get("payloads")))
        if not done:
            raise OpenClawError(f"the turn on {key} did not complete: {json.dumps(answer)[:2000]}")
        assert isinstance(answer, dict)
        return answer

    def call(self, method: str, params: Mapping[str, Any], timeout_ms: int = 120_000) -> dict[str, Any]:
        """``openclaw gateway call METHOD --params … --json`` (a failed call is returned, not raised)."""
        done = self.run("gateway", "call", method, "--params", json.dumps(dict(params)), "--json",
                        "--timeout", str(timeout_ms), timeout=timeout_ms / 1000 + 60, check=False)
        answer = _json_tail(done.stdout or done.stderr)
        if not isinstance(answer, dict):
            answer = {"result": answer}
        return answer

    def sessions(self) -> list[dict[str, Any]]:
        """``openclaw sessions --json``: OpenClaw's own listing."""
        answer = self.run_json("sessions", "--json")
        rows = answer.get("sessions") if isinstance(answer, dict) else None
        assert isinstance(rows, list), answer
        return rows

    def session_row(self, key: str) -> dict[str, Any]:
        row = next((r for r in self.sessions() if r.get("key") == key), None)
        assert row is not None, f"openclaw sessions lists no {key}"
        return row


def _merge(base: dict[str, Any], patch: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in patch.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _loopback_only(root: Path, *, sqlite_era: bool) -> dict[str, Any]:
    """Settings that keep OpenClaw on this machine and quiet unless a test speaks to it."""
    # The hosted model catalog exists (and is configurable) from 2026.8 on.
    catalog = {"models": {"catalogRefresh": {"enabled": False}}} if sqlite_era else {}
    return {
        **catalog,
        "update": {"checkOnStart": False},
        "cron": {"enabled": False},
        "logging": {"file": str(root / "openclaw.log")},
        "agents": {
            "defaults": {
                "heartbeat": {"every": "0m"},
                "compaction": {"memoryFlush": {"enabled": False}},
            }
        },
        "plugins": {"entries": {"memory-core": {"config": {"dreaming": {"enabled": False}}}}},
    }


def copy_store(src_agent_dir: Path, dest_agent_dir: Path) -> Path:
    """Copy an agent's database with its ``-wal``/``-shm``/``-journal`` (as they are) into ``dest_agent_dir``.

    OpenClaw keeps side databases next to the store (``….reindex-lock.sqlite`` and its journal) that come and go
    while it runs; they are not part of the store, so they are left alone, and a companion file that vanishes
    between the listing and the copy (SQLite removes a journal at commit) is simply not there to copy.
    """
    dest_agent_dir.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm", "-journal"):
        name = f"openclaw-agent.sqlite{suffix}"
        try:
            shutil.copy2(src_agent_dir / name, dest_agent_dir / name)
        except FileNotFoundError:
            if not suffix:
                raise
    return dest_agent_dir / "openclaw-agent.sqlite"
