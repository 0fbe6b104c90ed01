"""The ``gateway`` controller: ask OpenClaw's gateway to compact, then report what really happened.

``openclaw gateway call sessions.compact`` answers ``{ok, compacted, reason?, result{tokensBefore,tokensAfter}}``
once the summary is written; with a focus, ``chat.send "/compact <focus>"`` only answers ``{status: "started"}``.
The answer can also be missing or late (the CLI's own timeout, a dropped connection) while the gateway goes on
and compacts. So the store is read before the call, and again whenever the answer is not a clear yes or no: a new
compaction event there is the outcome that gets reported and audited (docs/openclaw.md).
"""

from __future__ import annotations

import json
import subprocess
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.compaction.plan import CompactionPlan
from engine.stores.source import SessionSource
from engine.stores.transcript import TranscriptError

__all__ = [
    "CLI_START_ALLOWANCE_S",
    "DEFAULT_GATEWAY_TIMEOUT_S",
    "GatewayCall",
    "GatewayOutcome",
    "call_gateway",
    "gateway_argv",
]

DEFAULT_GATEWAY_TIMEOUT_S = 600.0
"""How long a gateway compaction may take: a real model's summary of a long session takes minutes."""
CLI_START_ALLOWANCE_S = 60.0
"""The ``openclaw`` command itself takes seconds to start on a busy machine; its own timeout excludes that."""
_POLL_S = 0.5
_SETTLE_S = 30.0
"""After a late or missing answer, how long the store is watched for the compaction to land."""


@dataclass(frozen=True, slots=True)
class GatewayCall:
    """One ``openclaw gateway call`` command line."""

    argv: tuple[str, ...]
    method: str
    idempotency_key: str | None


@dataclass(frozen=True, slots=True)
class GatewayOutcome:
    """What the gateway did, from its answer and the store."""

    compacted: bool
    reason: str | None
    """Why it did not compact (the gateway's ``reason``, its reply, or the failure)."""
    failed: bool
    """Nothing is known to have happened and the call itself failed (not a plain "no")."""
    answer: Mapping[str, Any] | None
    verified_by: str
    """``answer`` (the gateway said so), ``store`` (a new compaction event) or ``none``."""
    compaction_id: str | None = None
    tokens_before: int | None = None
    tokens_after: int | None = None
    store_compaction_count: int | None = None
    note: str | None = None
    """How the outcome was learned when the answer did not say (for the user and the audit log)."""


def gateway_argv(
    plan: CompactionPlan, openclaw: str = "openclaw", timeout_s: float = DEFAULT_GATEWAY_TIMEOUT_S
) -> GatewayCall:
    """The ``openclaw gateway call`` for ``plan``: ``sessions.compact``, or ``chat.send`` with ``/compact <focus>``."""
    idempotency: str | None = None
    if plan.focus:
        method = "chat.send"
        idempotency = f"ctxscope-{uuid.uuid4()}"
        params: dict[str, Any] = {
            "sessionKey": plan.session_key,
            "message": f"/compact {plan.focus}",
            "idempotencyKey": idempotency,
        }
    else:
        # Never maxLines: with it the gateway truncates the transcript instead of compacting (docs/openclaw.md).
        method, params = "sessions.compact", {"key": plan.session_key}
    argv = (openclaw, "gateway", "call", method, "--params", json.dumps(params), "--json",
            "--timeout", str(int(timeout_s * 1000)))
    return GatewayCall(argv, method, idempotency)


def _observer(source: SessionSource, idempotency_key: str | None) -> Callable[[], Any] | None:
    """A function reading the store's compactions of ``source`` (SQLite only), or ``None``."""
    if not source.in_database:
        return None
    from engine.agents.openclaw.sqlite_compactions import read_store_compactions

    def observe() -> Any:
        return read_store_compactions(source.path, source.key, idempotency_key)

    return observe


def _safe(observe: Callable[[], Any] | None) -> Any:
    if observe is None:
        return None
    try:
        return observe()
    except TranscriptError:
        return None


def _from_store(before: Any, after: Any, note: str, answer: Mapping[str, Any] | None) -> GatewayOutcome | None:
    if before is None or after is None:
        return None
    record = after.new_since(before)
    if record is None:
        return None
    return GatewayOutcome(True, None, False, answer, "store", record.id, record.tokens_before, record.tokens_after,
                          after.compaction_count, note)


def _wait_for_store(observe: Callable[[], Any] | None, before: Any, deadline: float, *, want_reply: bool,
                    answer: Mapping[str, Any] | None, note: str) -> tuple[GatewayOutcome | None, Any]:
    """Poll the store until a new compaction (or, with ``want_reply``, the gateway's reply) or ``deadline``."""
    latest = None
    while observe is not None:
        latest = _safe(observe)
        found = _from_store(before, latest, note, answer)
        if found is not None:
            return found, latest
        if want_reply and latest is not None and latest.reply is not None:
            return None, latest
        if time.monotonic() >= deadline:
            break
        time.sleep(_POLL_S)
    return None, latest


def _run(call: GatewayCall, timeout_s: float) -> tuple[Mapping[str, Any] | None, str | None]:
    """``(answer, problem)``: the parsed JSON answer, or why there is none."""
    try:
        done = subprocess.run(list(call.argv), capture_output=True, text=True,
                              timeout=timeout_s + CLI_START_ALLOWANCE_S, stdin=subprocess.DEVNULL, check=False)
    except FileNotFoundError:
        return None, f"{call.argv[0]!r} was not found on PATH; install OpenClaw's CLI or use --controller jsonl"
    except subprocess.TimeoutExpired:
        return None, f"openclaw gateway call {call.method} did not answer within {timeout_s:g} s"
    text = done.stdout.strip() or done.stderr.strip()
    try:
        answer = json.loads(text) if text else None
    except ValueError:
        answer = None
    if isinstance(answer, dict):
        return answer, None
    if answer is not None:
        return {"result": answer}, None
    if done.returncode == 0:
        return None, f"openclaw gateway call {call.method} answered something that is not JSON: {text[:200]!r}"
    return None, f"openclaw gateway call {call.method} failed (exit {done.returncode}): {text[:300] or 'no output'}"


def _error_text(answer: Mapping[str, Any]) -> str:
    error = answer.get("error")
    if isinstance(error, Mapping):
        return str(error.get("message") or error.get("kind") or json.dumps(dict(error)))
    return str(error or answer.get("reason") or "no reason given")


def call_gateway(plan: CompactionPlan, *, openclaw: str = "openclaw",
                 timeout_s: float = DEFAULT_GATEWAY_TIMEOUT_S) -> GatewayOutcome:
    """Ask the gateway to compact ``plan.source`` and learn the real outcome (see the module docstring).

    Every wait is bounded by ``timeout_s`` plus the allowance for the CLI's start and a short settle time.
    """
    call = gateway_argv(plan, openclaw, timeout_s)
    observe = _observer(plan.source, call.idempotency_key)
    before = _safe(observe)
    started = time.monotonic()
    answer, problem = _run(call, timeout_s)
    if answer is not None and answer.get("compacted") is True:
        result = answer.get("result")
        result = result if isinstance(result, Mapping) else {}
        after = _safe(observe)
        record = after.new_since(before) if after is not None and before is not None else None
        return GatewayOutcome(
            True, None, False, answer, "answer", record.id if record else None,
            _int(result.get("tokensBefore")), _int(result.get("tokensAfter")),
            after.compaction_count if after is not None else None,
        )
    if answer is not None and answer.get("compacted") is False:
        # A plain "no" (``ok`` true or false): still, a compaction that landed anyway wins.
        after = _safe(observe)
        landed = _from_store(before, after, "the gateway said it did not compact, but the store shows a compaction",
                             answer)
        count = after.compaction_count if after is not None else None
        reason = str(answer.get("reason") or _error_text(answer))
        return landed or GatewayOutcome(False, reason, False, answer, "answer", store_compaction_count=count)
    deadline = started + timeout_s + CLI_START_ALLOWANCE_S
    if answer is not None and call.method == "chat.send" and answer.get("status") in ("started", "ok", "in_flight"):
        found, latest = _wait_for_store(observe, before, deadline, want_reply=True, answer=answer,
                                        note="the gateway only said the /compact was started; the store shows it")
        if found is not None:
            return found
        if latest is not None and latest.reply is not None:
            # The gateway replied to our /compact without writing a compaction: its reply says why.
            found, _ = _wait_for_store(observe, before, time.monotonic() + 2.0, want_reply=False, answer=answer,
                                       note="the compaction landed after the gateway's reply")
            return found or GatewayOutcome(False, latest.reply.strip(), False, answer, "store")
        if observe is None:
            # A JSONL-era store has no event log to watch: report what the gateway said, and say so.
            return GatewayOutcome(True, None, False, answer, "none", note="the gateway started the /compact; "
                                  "its outcome cannot be read from a JSONL-era store, check the transcript")
        return GatewayOutcome(False, f"no compaction appeared within {timeout_s:g} s of the /compact", True, answer,
                              "none")
    # No answer, a transport error, or an answer that says neither: the store decides.
    why = problem or _error_text(answer or {})
    found, _ = _wait_for_store(observe, before, time.monotonic() + _SETTLE_S, want_reply=False, answer=answer,
                               note=f"the gateway's answer was missing or late ({why}); the store shows the compaction")
    if found is not None:
        return found
    return GatewayOutcome(False, why, True, answer, "none")


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else None

