"""Claude Code, installed from npm into the test cache and run against the fake model on 127.0.0.1.

The platform package holds the native binary; the wrapper's install script (which would fetch) is skipped and
the binary is run directly. The environment keeps every request on loopback (docs/claude-code.md).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.realagents import npm_cache

VERSION = os.environ.get("CTXSCOPE_CLAUDE_CODE_VERSION") or "2.1.328"
PACKAGE = "@anthropic-ai/claude-code"
PLATFORM_PACKAGE = "@anthropic-ai/claude-code-linux-x64"
RUN_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class ClaudeRun:
    """One finished ``claude -p`` command."""

    returncode: int
    stdout: str
    stderr: str

    @property
    def result(self) -> dict[str, Any]:
        """The ``--output-format json`` result object."""
        out: dict[str, Any] = json.loads(self.stdout)
        return out


@dataclass(frozen=True)
class ClaudeCode:
    """One installed Claude Code and the home it runs in."""

    binary: Path
    home: Path
    origin: str
    """``http://127.0.0.1:PORT`` of the fake model."""

    @property
    def projects(self) -> Path:
        """Where it keeps transcripts: ``~/.claude/projects``."""
        return self.home / ".claude" / "projects"

    def env(self, **extra: str) -> dict[str, str]:
        env = {
            "HOME": str(self.home),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "ANTHROPIC_BASE_URL": self.origin,
            "ANTHROPIC_API_KEY": "test",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
        }
        env.update(extra)
        return env

    def run(self, *args: str, cwd: Path, env: dict[str, str] | None = None,
            timeout: float = RUN_TIMEOUT_S) -> ClaudeRun:
        """``claude -p ARGS --output-format json`` in its own process group (killed by its id if it lingers).

        Raises:
            RuntimeError: it did not finish within ``timeout``.
        """
        proc = subprocess.Popen(
            [str(self.binary), "-p", *args, "--output-format", "json"], cwd=cwd, env=env or self.env(),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            start_new_session=True,
        )
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            raise RuntimeError(f"claude {' '.join(args)} ran over {timeout:.0f} s") from exc
        finally:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)
        return ClaudeRun(proc.returncode, out, err)


def install_claude_code(version: str = VERSION) -> Path:
    """Install (or reuse) Claude Code ``version``; returns its native binary.

    Raises:
        npm_cache.NpmUnavailableError: node or npm is missing.
        RuntimeError: npm failed, or the platform package holds no binary.
    """
    prefix = npm_cache.install(PACKAGE, version, f"claude-code-{version}",
                               extra=(f"{PLATFORM_PACKAGE}@{version}",), ignore_scripts=True)
    binary = prefix / "node_modules" / PLATFORM_PACKAGE / "claude"
    if not binary.is_file():
        raise RuntimeError(f"{PLATFORM_PACKAGE}@{version} installed without its binary at {binary}")
    return binary
