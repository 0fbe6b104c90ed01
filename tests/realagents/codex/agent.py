"""Codex, installed from npm into the test cache and run against the fake model on 127.0.0.1.

The optional platform package holds a static binary, run directly. ``config.toml`` points Codex at the fake
model over the Responses API and turns off every look-up that would leave loopback (docs/codex.md).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.realagents import npm_cache

VERSION = os.environ.get("CTXSCOPE_CODEX_VERSION") or "0.169.0"
PACKAGE = "@openai/codex"
PLATFORM_PACKAGE = "@openai/codex-linux-x64"
RUN_TIMEOUT_S = 120.0

CONFIG = """\
model = "fake-model"
model_provider = "fake"
check_for_update_on_startup = false
{extra}
[model_providers.fake]
name = "fake"
base_url = "{base_url}"
env_key = "FAKE_API_KEY"
wire_api = "responses"

[analytics]
enabled = false

[otel]
exporter = "none"
metrics_exporter = "none"

[features]
plugins = false
remote_plugin = false
apps = false
in_app_updates = false
"""


@dataclass(frozen=True)
class CodexRun:
    """One finished ``codex exec`` command."""

    returncode: int
    stdout: str
    stderr: str


@dataclass(frozen=True)
class Codex:
    """One installed Codex and the ``CODEX_HOME`` it runs in."""

    binary: Path
    home: Path
    """``CODEX_HOME`` (``~/.codex``)."""
    base_url: str
    """``http://127.0.0.1:PORT/v1`` of the fake model."""

    @property
    def sessions(self) -> Path:
        return self.home / "sessions"

    def configure(self, extra: str = "") -> None:
        """Write ``config.toml``; ``extra`` is TOML placed before the first table (e.g. a compaction limit)."""
        self.home.mkdir(parents=True, exist_ok=True)
        (self.home / "config.toml").write_text(CONFIG.format(base_url=self.base_url, extra=extra))

    def env(self) -> dict[str, str]:
        return {
            "HOME": str(self.home.parent),
            "CODEX_HOME": str(self.home),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "FAKE_API_KEY": "test",
        }

    def run(self, *args: str, cwd: Path, timeout: float = RUN_TIMEOUT_S) -> CodexRun:
        """``codex exec --skip-git-repo-check ARGS`` in its own process group (killed by its id if it lingers).

        Raises:
            RuntimeError: it did not finish within ``timeout``.
        """
        proc = subprocess.Popen(
            [str(self.binary), "exec", "--skip-git-repo-check", *args], cwd=cwd, env=self.env(),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            start_new_session=True,
        )
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            raise RuntimeError(f"codex {' '.join(args)} ran over {timeout:.0f} s") from exc
        finally:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)
        return CodexRun(proc.returncode, out, err)


def install_codex(version: str = VERSION) -> Path:
    """Install (or reuse) Codex ``version``; returns its static binary.

    Raises:
        npm_cache.NpmUnavailableError: node or npm is missing.
        RuntimeError: npm failed, or the platform package holds no binary.
    """
    prefix = npm_cache.install(PACKAGE, version, f"codex-{version}", ignore_scripts=True)
    found = sorted((prefix / "node_modules" / PLATFORM_PACKAGE / "vendor").glob("*/bin/codex"))
    if not found:
        raise RuntimeError(f"{PLATFORM_PACKAGE} ({version}) installed without its binary")
    return found[0]
