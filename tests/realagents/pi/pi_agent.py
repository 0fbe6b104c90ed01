"""The installed pi-coding-agent: its oracle script and its command line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.realagents import npm_cache

PACKAGE = "@mariozechner/pi-coding-agent"
PI_VERSION = os.environ.get("CTXSCOPE_PI_VERSION") or "0.73.1"
ORACLE = Path(__file__).with_name("oracle.mjs")
CONFIG_ORACLE = Path(__file__).with_name("pi_config.mjs")
ORACLE_TIMEOUT_S = 180.0
KEEPS = (2000, 20000)


@dataclass(frozen=True)
class PiInstall:
    """One installed pi version."""

    prefix: Path
    version: str

    @property
    def package_dir(self) -> Path:
        return self.prefix / "node_modules" / PACKAGE

    @property
    def cli(self) -> Path:
        return self.package_dir / "dist" / "cli.js"

    def oracle(self, files: list[Path], *, persist: bool = False, keeps: tuple[int, ...] = KEEPS) -> dict[str, Any]:
        """pi's reading of each file, keyed by the path as given (see oracle.mjs for the fields).

        Raises:
            RuntimeError: the script failed or timed out.
        """
        node, _ = npm_cache.require_node()
        cmd = [node, str(ORACLE), str(self.package_dir), "--keep", ",".join(map(str, keeps))]
        if persist:
            cmd.append("--persist")
        cmd += [str(f) for f in files]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=ORACLE_TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired as exc:
            raise RuntimeError(f"pi oracle took over {ORACLE_TIMEOUT_S:.0f} s") from exc
        if proc.returncode != 0:
            raise RuntimeError(f"pi oracle failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
        out = json.loads(proc.stdout)
        if out["pi_version"] != self.version:
            raise RuntimeError(f"installed pi is {out['pi_version']}, expected {self.version}")
        files_out: dict[str, Any] = out["files"]
        for name, report in files_out.items():
            if "error" in report:
                raise RuntimeError(f"pi oracle failed on {name}:\n{report['error']}")
        return files_out


    def config(self, cwd: Path, provider: str, model_id: str, agent_dir: Path) -> dict[str, Any]:
        """pi's own resolution of the model's context window and the compaction settings (pi_config.mjs)."""
        node, _ = npm_cache.require_node()
        cmd = [node, str(CONFIG_ORACLE), str(self.package_dir), str(cwd), provider, model_id]
        env = {**os.environ, "PI_CODING_AGENT_DIR": str(agent_dir)}
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=ORACLE_TIMEOUT_S, env=env, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"pi_config.mjs failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
        result: dict[str, Any] = json.loads(proc.stdout)
        return result


def install_pi(version: str = PI_VERSION) -> PiInstall:
    """Install (or reuse) pi ``version`` in the test cache.

    Raises:
        npm_cache.NpmUnavailableError: node or npm is missing.
    """
    prefix = npm_cache.install(PACKAGE, version, f"pi-{version}")
    return PiInstall(prefix, version)


PI_RUN_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class PiRun:
    """One finished ``pi`` command."""

    returncode: int
    stdout: str
    stderr: str


def run_pi(
    install: PiInstall, args: list[str], *, cwd: Path, env: dict[str, str], timeout: float = PI_RUN_TIMEOUT_S
) -> PiRun:
    """Run ``pi ARGS`` in its own process group and wait (bounded); the group is killed by its id if it lingers.

    Raises:
        RuntimeError: pi did not finish within ``timeout``.
    """
    node, _ = npm_cache.require_node()
    proc = subprocess.Popen(
        [node, str(install.cli), *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise RuntimeError(f"pi {' '.join(args)} ran over {timeout:.0f} s") from exc
    finally:
        if proc.poll() is None:
            _kill_group(proc.pid)
            proc.wait(10)
    return PiRun(proc.returncode, out, err)


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        return
