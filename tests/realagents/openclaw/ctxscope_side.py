"""ctxscope's side of every comparison: the installed ``ctxscope`` command, run as a subprocess with ``--json``.

The only place the OpenClaw suite reaches ctxscope, so no engine import path appears in the tests.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CTXSCOPE_TIMEOUT_S = 600.0


def ctxscope_command() -> list[str]:
    """The ``ctxscope`` beside the running interpreter (the worktree's venv), else the one on PATH."""
    beside = Path(sys.executable).with_name("ctxscope")
    if beside.is_file():
        return [str(beside)]
    found = shutil.which("ctxscope")
    return [found] if found else [sys.executable, "-m", "tui.cli"]


@dataclass(frozen=True)
class Outcome:
    """One ctxscope run."""

    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        try:
            return json.loads(self.stdout)
        except ValueError as exc:
            raise AssertionError(f"ctxscope {' '.join(self.args)} printed no JSON (exit {self.returncode}):\n"
                                 f"{self.stdout[-2000:]}\n{self.stderr[-2000:]}") from exc

    def describe(self) -> str:
        return f"ctxscope {' '.join(self.args)} → exit {self.returncode}\n{self.stdout[-3000:]}\n{self.stderr[-3000:]}"


def ctxscope(*args: str, env: Mapping[str, str], timeout: float = CTXSCOPE_TIMEOUT_S,
             input_text: str | None = None) -> Outcome:
    """Run ``ctxscope ARGS`` in ``env`` (an OpenClaw home's environment) and wait (bounded)."""
    done = subprocess.run(
        [*ctxscope_command(), *args], env=dict(env), capture_output=True, text=True, timeout=timeout,
        input=input_text, stdin=None if input_text is not None else subprocess.DEVNULL, check=False,
    )
    return Outcome(tuple(args), done.returncode, done.stdout, done.stderr)


def status(env: Mapping[str, str], *paths: Path) -> list[dict[str, Any]]:
    """``ctxscope status --json [PATHS]`` rows."""
    out = ctxscope("status", "--json", *map(str, paths), env=env)
    assert out.returncode == 0, out.describe()
    rows = out.json()
    assert isinstance(rows, list)
    return rows


def status_row(env: Mapping[str, str], key: str, *paths: Path) -> dict[str, Any]:
    """The one status row of ``key`` (fails when there are none or several)."""
    rows = [r for r in status(env, *paths) if r.get("key") == key]
    assert len(rows) == 1, f"{len(rows)} status rows for {key}: {json.dumps(rows)[:3000]}"
    return rows[0]


def inspect(env: Mapping[str, str], session: str, where: Path | None = None) -> Outcome:
    args = ["inspect", session, "--json"] + (["--in", str(where)] if where else [])
    return ctxscope(*args, env=env)


def compact(env: Mapping[str, str], session: str, *extra: str, where: Path | None = None) -> Outcome:
    """``ctxscope compact SESSION --json --yes EXTRA`` (add ``--dry-run`` for the preview)."""
    args = ["compact", session, "--json", "--yes", *extra] + (["--in", str(where)] if where else [])
    return ctxscope(*args, env=env)


def history(env: Mapping[str, str], session: str, where: Path | None = None) -> Outcome:
    args = ["history", session] + (["--in", str(where)] if where else [])
    return ctxscope(*args, env=env)


def audit_records(state_dir: Path) -> list[dict[str, Any]]:
    """ctxscope's audit log in an OpenClaw state dir (``context/audit.jsonl``, one JSON object a line)."""
    path = state_dir / "context" / "audit.jsonl"
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
