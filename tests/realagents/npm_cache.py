"""Install an npm package once into a cache outside the repository, and reuse it.

The install goes to ``${XDG_CACHE_HOME:-~/.cache}/ctxscope-tests/<name>/``. A marker file written last says the
install finished; a directory without it (an interrupted install) is removed and installed again. Concurrent test
sessions serialize on a lock file next to it.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

MARKER = ".ctxscope-install-complete"
INSTALL_TIMEOUT_S = 420.0
LOCK_TIMEOUT_S = 480.0


class NpmUnavailableError(RuntimeError):
    """node or npm is not on PATH."""


def cache_root() -> Path:
    """``${XDG_CACHE_HOME:-~/.cache}/ctxscope-tests``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ctxscope-tests"


def require_node() -> tuple[str, str]:
    """The paths of node and npm.

    Raises:
        NpmUnavailableError: either is missing.
    """
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        raise NpmUnavailableError("node and npm are needed to install the real agent (not found on PATH)")
    return node, npm


def _marker_matches(prefix: Path, package: str, version: str, extra: tuple[str, ...] = ()) -> bool:
    try:
        data = json.loads((prefix / MARKER).read_text())
    except (OSError, ValueError):
        return False
    return (
        isinstance(data, dict)
        and data.get("package") == package
        and data.get("version") == version
        and tuple(data.get("extra") or ()) == extra
    )


def install(
    package: str, version: str, name: str, *, extra: tuple[str, ...] = (), ignore_scripts: bool = False
) -> Path:
    """Install ``package@version`` into ``cache_root()/name`` unless a completed install is there.

    ``extra`` names more ``package@version`` specs installed beside it (a platform package holding a native
    binary); ``ignore_scripts`` passes ``--ignore-scripts`` (an install script that would fetch from the network).

    Returns:
        The install prefix; the package is at ``prefix/node_modules/<package>``.

    Raises:
        NpmUnavailableError: node or npm is missing.
        RuntimeError: npm failed, or the install or the lock took too long.
    """
    _, npm = require_node()
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    prefix = root / name
    if _marker_matches(prefix, package, version, extra):
        return prefix
    with (root / f"{name}.lock").open("w") as lock:
        deadline = time.monotonic() + LOCK_TIMEOUT_S
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"another process holds {root / name}.lock for too long") from None
                time.sleep(0.5)
        try:
            if _marker_matches(prefix, package, version, extra):  # installed by whoever held the lock
                return prefix
            staging = root / f"{name}.partial-{os.getpid()}"
            shutil.rmtree(staging, ignore_errors=True)
            staging.mkdir()
            (staging / "package.json").write_text(json.dumps({"name": "ctxscope-test-install", "private": True}))
            try:
                flags = ["--ignore-scripts"] if ignore_scripts else []
                proc = subprocess.run(
                    [npm, "install", "--no-audit", "--no-fund", "--loglevel=error", *flags, f"{package}@{version}",
                     *extra],
                    cwd=staging,
                    capture_output=True,
                    text=True,
                    timeout=INSTALL_TIMEOUT_S,
                )
            except subprocess.TimeoutExpired as exc:
                shutil.rmtree(staging, ignore_errors=True)
                raise RuntimeError(f"npm install {package}@{version} took over {INSTALL_TIMEOUT_S:.0f} s") from exc
            if proc.returncode != 0:
                shutil.rmtree(staging, ignore_errors=True)
                raise RuntimeError(f"npm install {package}@{version} failed:\n{proc.stderr[-4000:]}")
            marker = {"package": package, "version": version, **({"extra": list(extra)} if extra else {})}
            (staging / MARKER).write_text(json.dumps(marker))
            shutil.rmtree(prefix, ignore_errors=True)
            staging.rename(prefix)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return prefix
