"""Realistic tool output for simulated coding sessions: source files, test logs, diffs, shell output.

Everything is drawn from a caller's ``random.Random`` so a seed reproduces the same bytes. The text is
plain ASCII plus a few BMP symbols (never astral characters), so a string's ``len`` equals pi's UTF-16 count.
:class:`TextCorpus` pre-renders a few MB of such output once, for bulk generators that need cheap slices.
"""

from __future__ import annotations

import bisect
import random
from dataclasses import dataclass

import orjson

__all__ = [
    "DECISIONS",
    "DONE_ITEMS",
    "FILE_PATHS",
    "NEXT_STEPS",
    "SHELL_COMMANDS",
    "USER_ASKS",
    "USER_REPLIES",
    "TextCorpus",
    "app_log",
    "build_corpus",
    "git_diff",
    "git_log",
    "grep_output",
    "load_test_report",
    "ls_output",
    "pytest_log",
    "source_file",
    "thinking_text",
]

_NOUNS = (
    "merchant", "payment", "refund", "bucket", "token", "limit", "quota", "window", "request", "ledger",
    "charge", "payout", "invoice", "webhook", "idempotency_key", "tier", "burst", "retry", "settlement", "capture",
)
_VERBS = ("load", "check", "apply", "refill", "reserve", "release", "record", "resolve", "build", "parse",
          "validate", "emit", "fetch", "store", "compute", "reject", "schedule", "flush", "decode", "render")
_TYPES = ("int", "str", "float", "bool", "Decimal", "datetime", "MerchantId", "Money", "dict[str, Any]", "bytes")
_IMPORTS = (
    "import asyncio", "import logging", "import time", "import hashlib", "import json", "import os",
    "from dataclasses import dataclass, field", "from decimal import Decimal", "from typing import Any",
    "from datetime import UTC, datetime, timedelta", "from collections.abc import Awaitable, Callable",
    "from redis.asyncio import Redis", "from fastapi import APIRouter, Depends, HTTPException, Request",
    "from starlette.middleware.base import BaseHTTPMiddleware", "from prometheus_client import Counter, Histogram",
    "from pydantic import BaseModel, Field",
)
_STATEMENTS = (
    "{a} = await self.redis.get(f\"rl:{{{b}}}\")",
    "if {a} is None:\n    raise HTTPException(status_code=404, detail=\"{b} not found\")",
    "{a} = max(0, {b} - int(elapsed * self.refill_rate))",
    "logger.debug(\"{a} %s -> %s\", {b}, {a})",
    "{a}_total.labels(route=request.url.path).inc()",
    "{a} = Decimal({b}) / Decimal(100)",
    "if {a} > self.capacity:\n    {a} = self.capacity",
    "return {a}",
    "{a} = datetime.now(UTC) - timedelta(seconds={n})",
    "for {a} in {b}s:\n    await self._{v}({a})",
    "{a} = {{\"{b}\": {b}, \"ts\": time.time(), \"attempt\": {n}}}",
    "await self.redis.expire(key, {n})",
    "{a} = hashlib.sha256({b}.encode()).hexdigest()[:16]",
    "try:\n    {a} = json.loads(raw)\nexcept ValueError:\n    {a} = {{}}",
    "assert {a} >= 0, \"{b} underflow\"",
)
_COMMITS = (
    "Add idempotency keys to refunds", "Bump redis client to 5.0.4", "Fix flaky settlement test",
    "Move merchant tiers into config", "Log request ids in payment errors", "Retry webhook delivery with backoff",
    "Drop legacy v0 charge endpoint", "Add p99 latency panel for payments", "Cache merchant lookups for 30s",
    "Validate currency codes at the edge", "Split refunds router out of app.py", "Pin pydantic < 3",
)
_AUTHORS = ("Dana Whitfield", "Ravi Iyer", "Mei Tanaka", "Jonas Berg", "Amara Okafor", "Luis Ortega")


def _ident(rng: random.Random) -> str:
    return rng.choice(_NOUNS) + rng.choice(("", "_id", "_count", "s_left", "_key", "_at", "_state"))


def _func(rng: random.Random, indent: str) -> list[str]:
    verb, noun = rng.choice(_VERBS), rng.choice(_NOUNS)
    args = ", ".join(f"{_ident(rng)}: {rng.choice(_TYPES)}" for _ in range(rng.randint(1, 3)))
    prefix = "async def" if rng.random() < 0.5 else "def"
    lines = [f"{indent}{prefix} {verb}_{noun}(self, {args}) -> {rng.choice(_TYPES)}:"]
    lines.append(f'{indent}    """{verb.capitalize()} the {noun.replace("_", " ")} for one request."""')
    for _ in range(rng.randint(3, 9)):
        stmt = rng.choice(_STATEMENTS).format(a=_ident(rng), b=rng.choice(_NOUNS), v=rng.choice(_VERBS),
                                              n=rng.choice((1, 5, 30, 60, 300, 3600)))
        lines.extend(indent + "    " + part for part in stmt.split("\n"))
    lines.append("")
    return lines


def source_file(rng: random.Random, path: str, lines: int) -> str:
    """A plausible Python module of about ``lines`` lines for ``path`` (Markdown/YAML for other suffixes)."""
    stem = path.rsplit("/", 1)[-1].split(".")[0]
    if path.endswith((".md", ".yaml", ".yml")):
        return _doc_file(rng, path, stem, lines)
    title = stem.replace("_", " ")
    out = [f'"""{title.capitalize()} for the payments service.', "",
           f"Owned by the payments platform team; see docs/{stem}.md for the rollout notes.", '"""', "",
           "from __future__ import annotations", ""]
    imports = {"import logging", *rng.sample(_IMPORTS, rng.randint(4, 8))}
    out += sorted(imports, key=lambda line: (line.startswith("from"), line))
    out += ["", "logger = logging.getLogger(__name__)", ""]
    for _ in range(rng.randint(2, 4)):
        out.append(f"{rng.choice(_NOUNS).upper()}_{rng.choice(('TTL', 'LIMIT', 'MAX', 'PREFIX'))} = "
                   f"{rng.choice(('60', '300', '100', '20', repr('rl:v2'), '1_000'))}")
    while len(out) < lines:
        cls = "".join(w.capitalize() for w in rng.choice(_NOUNS).split("_")) + rng.choice(
            ("Limiter", "Store", "Service", "Policy", "Client", "Router", "Config"))
        out += ["", "", *(["@dataclass(slots=True)"] if rng.random() < 0.4 else []), f"class {cls}:",
                f'    """{cls} used by the {stem.replace("_", " ")} layer."""', ""]
        for _ in range(rng.randint(2, 5)):
            out.append(f"    {_ident(rng)}: {rng.choice(_TYPES)}")
        out.append("")
        for _ in range(rng.randint(2, 5)):
            out += _func(rng, "    ")
    return "\n".join(out[:lines]) + "\n"


def _doc_file(rng: random.Random, path: str, stem: str, lines: int) -> str:
    if path.endswith((".yaml", ".yml")):
        out = [f"# {stem} — managed by helm", "replicaCount: 6", "image:", "  repository: acme/payments",
               f"  tag: \"2026.3.{rng.randint(1, 40)}\"", "rateLimit:", "  enabled: true"]
        while len(out) < lines:
            noun = rng.choice(_NOUNS)
            out += [f"  {noun}:", f"    perMinute: {rng.choice((60, 100, 300, 1200))}",
                    f"    burst: {rng.choice((10, 20, 50))}", f"    failOpen: {rng.choice(('true', 'false'))}"]
        return "\n".join(out[:lines]) + "\n"
    out = [f"# {stem.replace('-', ' ').capitalize()}", ""]
    while len(out) < lines:
        noun = rng.choice(_NOUNS).replace("_", " ")
        out += [f"## {noun.capitalize()} handling", "",
                f"Requests are limited per {noun} with a token bucket stored in Redis. Each {noun} gets "
                f"{rng.choice((60, 100, 300))} requests per minute and a burst of {rng.choice((10, 20, 50))}.",
                f"When Redis is unavailable the limiter {rng.choice(('fails open', 'falls back to a local bucket'))}"
                " and emits `ratelimit_degraded_total`.", "",
                "| Tier | Per minute | Burst |", "|---|---|---|",
                *(f"| {t} | {rng.choice((60, 100, 300, 1200))} | {rng.choice((10, 20, 50))} |"
                  for t in ("standard", "growth", "enterprise")), ""]
    return "\n".join(out[:lines]) + "\n"


def pytest_log(rng: random.Random, *, tests: int, failures: int = 0, files: tuple[str, ...] = ()) -> str:
    """A ``pytest`` run: progress dots per file, failure tracebacks, and the short summary."""
    files = files or ("tests/payments/test_api.py", "tests/payments/test_ratelimit.py",
                      "tests/payments/test_refunds.py", "tests/payments/test_idempotency.py")
    out = ["============================= test session starts ==============================",
           "platform linux -- Python 3.11.9, pytest-8.3.2, pluggy-1.5.0",
           "rootdir: /home/dev/acme-payments", "configfile: pyproject.toml",
           "plugins: asyncio-0.24.0, cov-5.0.0, xdist-3.6.1", f"collected {tests} items", ""]
    per_file = max(1, tests // len(files))
    failing_file = rng.randrange(len(files))
    failed: list[tuple[str, str]] = []
    done = 0
    for i, name in enumerate(files):
        count = per_file if i < len(files) - 1 else tests - done
        marks = ["."] * count
        for _ in range(failures if i == failing_file and count else 0):
            marks[rng.randrange(count)] = "F"
            case = rng.choice(("burst", "refill", "expiry", "concurrent", "fail_open"))
            failed.append((name, f"test_{rng.choice(_VERBS)}_{rng.choice(_NOUNS)}_{case}"))
        done += count
        for k in range(0, len(marks), 60):
            chunk = "".join(marks[k : k + 60])
            out.append(f"{name} {chunk}".ljust(72) + f"[{min(100, done * 100 // max(1, tests)):3d}%]")
    if failed:
        out += ["", "=================================== FAILURES ==================================="]
        for name, test in failed:
            expected = rng.choice((20, 100, 19))
            out += [f"_{'_' * 20} {test} {'_' * 20}", "",
                    "limiter = <services.payments.ratelimit.TokenBucketLimiter object at 0x7f3a2c1d9e50>",
                    "fake_redis = <fakeredis.aioredis.FakeRedis object at 0x7f3a2c1da110>", "",
                    f"    async def {test}(limiter, fake_redis):",
                    f"        results = [await limiter.allow('m_{rng.randint(1000, 9999)}')",
                    f"                   for _ in range({expected + 1})]",
                    f">       assert results.count(True) == {expected}",
                    f"E       assert {expected + 1} == {expected}",
                    f"E        +  where {expected + 1} = <built-in method count of list object>(True)",
                    "", f"{name}:{rng.randint(20, 240)}: AssertionError"]
        out += ["=========================== short test summary info ============================"]
        out += [f"FAILED {name}::{test} - assert {rng.randint(20, 101)} == {rng.randint(19, 100)}"
                for name, test in failed]
    seconds = rng.uniform(2.5, 40.0)
    status = f"{len(failed)} failed, {tests - len(failed)} passed" if failed else f"{tests} passed"
    out.append(f"{'=' * 24} {status}, {rng.randint(0, 4)} warnings in {seconds:.2f}s {'=' * 24}")
    return "\n".join(out) + "\n"


def git_diff(rng: random.Random, path: str, hunks: int) -> str:
    """A unified diff of ``path`` with ``hunks`` hunks."""
    out = [f"diff --git a/{path} b/{path}", f"index {rng.getrandbits(28):07x}..{rng.getrandbits(28):07x} 100644",
           f"--- a/{path}", f"+++ b/{path}"]
    line = 1
    for _ in range(hunks):
        line += rng.randint(5, 60)
        body = _func(rng, "    ")
        out.append(f"@@ -{line},{len(body) - 2} +{line},{len(body)} @@ class {rng.choice(_NOUNS).capitalize()}Limiter:")
        for text in body:
            out.append(rng.choice((" ", " ", " ", "+", "-")) + text)
    return "\n".join(out) + "\n"


def git_log(rng: random.Random, count: int) -> str:
    """``git log --oneline`` style history."""
    return "\n".join(f"{rng.getrandbits(28):07x} {rng.choice(_COMMITS)}" for _ in range(count)) + "\n"


def ls_output(rng: random.Random, directory: str, names: tuple[str, ...]) -> str:
    """``ls -la`` of a directory holding ``names``."""
    out = [f"total {rng.randint(40, 400)}", "drwxr-xr-x  6 dev dev  4096 Mar  2 08:41 .",
           "drwxr-xr-x 14 dev dev  4096 Feb 27 17:03 .."]
    for name in names:
        size = rng.randint(300, 24000)
        out.append(f"-rw-r--r--  1 dev dev {size:5d} Mar  {rng.randint(1, 2)} {rng.randint(8, 18):02d}:"
                   f"{rng.randint(0, 59):02d} {name}")
    return "\n".join(out) + "\n"


def grep_output(rng: random.Random, pattern: str, files: tuple[str, ...], matches: int) -> str:
    """``grep -rn`` hits for ``pattern``."""
    out = []
    for _ in range(matches):
        stmt = rng.choice(_STATEMENTS).split("\n")[0].format(a=_ident(rng), b=pattern, v=rng.choice(_VERBS), n=60)
        out.append(f"{rng.choice(files)}:{rng.randint(3, 400)}:    {stmt}")
    return "\n".join(out) + "\n"


def load_test_report(rng: random.Random, rps: int, limited_share: float) -> str:
    """A k6 summary for a load test of the payments endpoints."""
    total = rps * 120
    limited = int(total * limited_share)
    p95 = rng.uniform(38, 95)
    return "\n".join([
        "          /\\      |‾‾| /‾‾/   /‾‾/", "     /\\  /  \\     |  |/  /   /  /",
        "  execution: local", "     script: scripts/loadtest.js", "     output: -", "",
        f"  scenarios: (100.00%) 1 scenario, {rps // 4} max VUs, 2m30s max duration",
        "", "     ✓ status is 200 or 429", "     ✗ p95 under 120ms",
        f"      ↳  {rng.randint(90, 99)}% — ✓ {total - 40} / ✗ 40", "",
        f"     checks.........................: 99.{rng.randint(10, 99)}% ✓ {total * 2 - 40} ✗ 40",
        f"     http_req_duration..............: avg={p95 / 2.1:.2f}ms min=3.1ms med={p95 / 2.4:.2f}ms "
        f"max={p95 * 4:.2f}ms p(90)={p95 * 0.9:.2f}ms p(95)={p95:.2f}ms",
        f"     http_reqs......................: {total} {rps:.6f}/s",
        f"     ratelimited (429)..............: {limited} {limited / 120:.2f}/s",
        f"     iteration_duration.............: avg={rng.uniform(200, 400):.1f}ms",
        f"     vus_max........................: {rps // 4} min={rps // 4} max={rps // 4}", "",
        f"running (2m30.0s), 000/{rps // 4} VUs, {total // 2} complete and 0 interrupted iterations",
    ]) + "\n"


def app_log(rng: random.Random, lines: int, start_ms: int = 1772441000000) -> str:
    """Structured JSON log lines from the payments service (what ``kubectl logs`` prints)."""
    out = []
    ts = start_ms
    for _ in range(lines):
        ts += rng.randint(3, 900)
        status = rng.choice((200, 200, 200, 201, 429, 409, 500)) if rng.random() < 0.3 else 200
        out.append(
            f'{{"ts":{ts},"level":"{"warn" if status >= 400 else "info"}","msg":"request","route":'
            f'"/v1/{rng.choice(("payments", "refunds", "payouts"))}","merchant":"m_{rng.randint(1000, 9999)}",'
            f'"status":{status},"ms":{rng.randint(2, 240)},"rid":"{rng.getrandbits(48):012x}"}}'
        )
    return "\n".join(out) + "\n"


# Short texts for bulk-generated sessions, where turns are not scripted.
FILE_PATHS = ("services/payments/ratelimit.py", "services/payments/app.py", "services/payments/tiers.py",
          "services/payments/idempotency.py", "services/payments/routes/refunds.py", "tests/payments/test_api.py",
          "tests/payments/test_ratelimit.py", "docs/rate-limiting.md", "deploy/helm/payments/values.yaml")
SHELL_COMMANDS = ("pytest tests/payments -q", "git diff main...HEAD", "kubectl logs deploy/payments --since=10m",
             "k6 run scripts/loadtest.js", "grep -rn 'merchant_id' services/", "gh run view --log-failed")
USER_ASKS = ("add a metric for rejected requests", "why is the refill test flaky?", "check the staging logs for 500s",
         "review the diff before I open the PR", "make the limits configurable per tier", "run the load test again",
         "refunds need their own bucket", "update the rollout doc", "look at the idempotency replay path",
         "bump the redis client and rerun the suite", "can you explain what the Lua script does?")
USER_REPLIES = ("ok go ahead", "yes", "sounds good, do it", "no, use merchant_id not the api key", "ok", "go for it")
DONE_ITEMS = ("Limiter keyed on merchant_id", "Lua script for atomic take", "Fail-open fallback bucket", "Tier cache",
         "Refunds bucket at half the payments limit", "Load test on staging", "Deflaked refill test")
DECISIONS = ("Token bucket in Redis per merchant: shared by all pods", "Fail open on Redis errors",
              "EVALSHA with the script loaded at startup", "Limits come from the merchants table, cached 60 s")
NEXT_STEPS = ("Grafana panel for rejected requests", "Send the rollout doc to support", "Enterprise tier burst",
         "Make Retry-After optional on replays", "Squash fixups before the PR")


_THOUGHTS = ("Check the current state of the file before editing.",
             "The user wants this scoped to the payments service only; keep the change small.",
             "Run the suite after the edit; the refill tests are timing-sensitive.",
             "Compare against the staging logs before concluding anything.",
             "The last run failed on the refunds route, so start there.")


def thinking_text(rng: random.Random) -> str:
    """A short planning thought, as an assistant thinking block holds."""
    return " ".join(rng.sample(_THOUGHTS, 1 + int(rng.random() * 3)))


@dataclass(frozen=True, slots=True)
class TextCorpus:
    """A large pre-rendered block of tool output, cut at line starts for cheap, varied tool results.

    The text is also kept JSON-escaped, so a bulk writer can splice a slice into a serialized line without
    escaping it again. Offsets are cumulative per line, with one sentinel entry at the end.
    """

    text: str
    line_starts: tuple[int, ...]
    """Character offset where each line begins, then ``len(text)``."""
    json: bytes
    """``text`` JSON-escaped (as inside a JSON string, without the quotes), UTF-8."""
    json_starts: tuple[int, ...]
    """Byte offset in :attr:`json` where each line begins, then ``len(json)``."""
    json_chars: tuple[int, ...]
    """UTF-16 length of the escaped text before each line (pi's measure of ``JSON.stringify`` output)."""

    @property
    def lines(self) -> int:
        """Number of lines."""
        return len(self.line_starts) - 1

    def pick(self, rng: random.Random, chars: int) -> tuple[int, int]:
        """Line range ``[first, end)`` of about ``chars`` characters (at least one line) from a random place."""
        starts = self.line_starts
        first = rng.randrange(self.lines)
        end = bisect.bisect_left(starts, starts[first] + chars, first + 1)
        if end > self.lines:
            end = self.lines
            first = max(0, bisect.bisect_right(starts, starts[end] - chars) - 1)
        return first, end

    def chars(self, first: int, end: int) -> int:
        """Characters (UTF-16 units: the corpus has no astral characters) in the line range."""
        return self.line_starts[end] - self.line_starts[first]

    def text_of(self, first: int, end: int) -> str:
        """The text of the line range."""
        return self.text[self.line_starts[first] : self.line_starts[end]]

    def json_of(self, first: int, end: int) -> bytes:
        """The JSON-escaped text of the line range."""
        return self.json[self.json_starts[first] : self.json_starts[end]]

    def json_chars_of(self, first: int, end: int) -> int:
        """UTF-16 length of the JSON-escaped line range."""
        return self.json_chars[end] - self.json_chars[first]

    def slice(self, rng: random.Random, chars: int) -> str:
        """About ``chars`` characters of whole lines (the corpus repeats for requests larger than itself)."""
        size = len(self.text)
        if chars >= size:
            reps, rest = divmod(chars, size)
            return self.text * reps + self.slice(rng, rest)
        return self.text_of(*self.pick(rng, chars))


def build_corpus(rng: random.Random, chars: int = 3 << 20) -> TextCorpus:
    """Render about ``chars`` characters of mixed source, test logs, diffs and service logs."""
    paths = ("services/payments/ratelimit.py", "services/payments/app.py", "services/payments/idempotency.py",
             "services/payments/routes/refunds.py", "docs/rate-limiting.md", "deploy/helm/payments/values.yaml")
    lines: list[str] = []
    total = 0
    while total < chars:
        kind = rng.random()
        if kind < 0.35:
            part = source_file(rng, rng.choice(paths), rng.randint(80, 500))
        elif kind < 0.55:
            part = pytest_log(rng, tests=rng.randint(40, 400), failures=rng.choice((0, 0, 1, 2)))
        elif kind < 0.7:
            part = git_diff(rng, rng.choice(paths), rng.randint(1, 6))
        elif kind < 0.9:
            part = app_log(rng, rng.randint(50, 400))
        else:
            part = load_test_report(rng, rng.choice((200, 400, 800)), rng.uniform(0.01, 0.2))
        lines += part.splitlines(keepends=True)
        total += len(part)
    starts, json_starts, json_chars = [0], [0], [0]
    escaped: list[bytes] = []
    for line in lines:
        piece = orjson.dumps(line)[1:-1]
        escaped.append(piece)
        starts.append(starts[-1] + len(line))
        json_starts.append(json_starts[-1] + len(piece))
        json_chars.append(json_chars[-1] + len(piece.decode()))
    return TextCorpus("".join(lines), tuple(starts), b"".join(escaped), tuple(json_starts), tuple(json_chars))
