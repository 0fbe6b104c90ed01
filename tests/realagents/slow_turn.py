"""Catching a real agent mid-turn: the fake model holds its answer while the test looks."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.realagents.fake_model import Reply
from tests.realagents.wire_apis import WireModelServer, wire_responder

HOLD_S = 4.0


def holding(view: dict[str, Any]) -> Reply:
    """The usual answer, given after :data:`HOLD_S` seconds."""
    reply = wire_responder(view)
    return Reply(reply.text, reply.prompt_tokens, reply.completion_tokens, delay_s=HOLD_S)


def during_turn(server: WireModelServer, argv: list[str], *, cwd: Path, env: dict[str, str],
                look: Callable[[], Any]) -> tuple[Any, int]:
    """Run ``argv``, call ``look()`` once the agent's request reached the fake model, then let the turn finish.

    Returns:
        ``(what look returned, the agent's exit code)``.
    """
    seen = len(server.requests)
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        if not server.wait_for_requests(seen + 1, 60):
            raise RuntimeError("the agent sent no request within 60 s")
        found = look()
        return found, proc.wait(120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
