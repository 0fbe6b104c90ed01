"""ctxscope's side of the pi comparison, through its command line only.

The read commands (``inspect --json``, ``status --json``, ``compact --dry-run --json``) run in this process
through ``tui.cli.main`` with stdout captured, which is the same code path as the installed command and fast
enough to run on dozens of sessions; the write commands run as subprocesses, like a user would run them. This is
the one place that knows how ctxscope is called: the tests see only plain dicts.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tui.cli.main import main as cli_main

REPO = Path(__file__).resolve().parents[3]
CLI_TIMEOUT_S = 120.0


class CliError(RuntimeError):
    """A ctxscope command exited with an unexpected code."""


def call(args: list[str]) -> tuple[int, str, str]:
    """Run ``ctxscope ARGS`` in this process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(args)
    return code, out.getvalue(), err.getvalue()


def _json(args: list[str], ok: tuple[int, ...] = (0,)) -> Any:
    code, out, err = call(args)
    if code not in ok:
        raise CliError(f"ctxscope {' '.join(args)} exited {code}: {err.strip()}")
    return json.loads(out)


def inspect(path: Path, keep_recent: int) -> dict[str, Any]:
    """``ctxscope inspect PATH --json --keep-recent N``."""
    result: dict[str, Any] = _json(["inspect", str(path), "--json", "--keep-recent", str(keep_recent)])
    return result


def status(path: Path, *, full: bool = False) -> dict[str, Any]:
    """The one row of ``ctxscope status PATH --json [--full]``."""
    rows = _json(["status", str(path), "--json", *(["--full"] if full else [])])
    if len(rows) != 1:
        raise CliError(f"status {path}: {len(rows)} rows")
    row: dict[str, Any] = rows[0]
    return row


def plan(path: Path, keep_recent: int, layer: str = "summarize") -> dict[str, Any]:
    """The plan of ``ctxscope compact PATH --dry-run --json`` (exit 4 = refused still prints it)."""
    args = ["compact", str(path), "--dry-run", "--json", "--keep-recent", str(keep_recent), "--layer", layer]
    result: dict[str, Any] = _json(args, ok=(0, 4))["plan"]
    return result


def run(
    args: list[str], *, env: dict[str, str] | None = None, timeout: float = CLI_TIMEOUT_S
) -> subprocess.CompletedProcess[str]:
    """``ctxscope ARGS`` as a subprocess of this worktree's code (environment: ours plus ``env``)."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "tui.cli.main", *args],
        cwd=REPO,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def entry_id(context_id: str) -> str:
    # inspect shows summaries as "compaction:<id>" / "branch_summary:<id>"; pi names them by the entry id.
    for prefix in ("compaction:", "branch_summary:"):
        if context_id.startswith(prefix):
            return context_id[len(prefix) :]
    return context_id


def pi_view(path: Path, keeps: tuple[int, ...]) -> dict[str, Any]:
    """ctxscope's reading of ``path`` in the shape oracle.mjs prints, for a field-by-field comparison.

    Fields ctxscope does not report yet are absent (the comparison then fails on them).
    """
    views = {k: inspect(path, k) for k in keeps}
    first = views[keeps[0]]
    out: dict[str, Any] = {
        "leaf_id": first.get("leaf_id"),
        "context": [{"id": entry_id(r["entry_id"]), "role": r["role"]} for r in first["context"]],
        "context_tokens": [r.get("pi_estimate") for r in first["context"]],
        "estimate": first.get("agent_estimate"),
        "unknown": not first.get("agent_estimate_known", True),
        "cut_points": {},
    }
    for k, view in views.items():
        cp = view.get("cut_point")
        out["cut_points"][str(k)] = None if cp is None else {
            name: cp[name]
            for name in ("first_kept_entry_id", "split_turn", "tokens_before", "turn_start_entry_id")
            if name in cp
        }
    for name in ("entries", "tree", "branch_ids", "labels", "thinking_level", "model"):
        if name in first:
            out[name] = first[name]
    return out


def pi_loadable(path: Path) -> bool | None:
    """Whether ctxscope says pi loads ``path`` as is: ``inspect``'s ``pi_loadable``, False when it calls the file
    not a session at all, ``None`` when it says neither."""
    code, out, err = call(["inspect", str(path), "--json"])
    if code == 0:
        value = json.loads(out).get("pi_loadable")
        return value if isinstance(value, bool) else None
    return False if "not a session" in err else None
