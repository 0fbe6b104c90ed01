"""The story the simulated agent plays: adding rate limiting to a payments API, turn by turn.

A scripted arc (proposal, short confirmations, user corrections, a switch to a stronger model, load tests)
followed by an endless stream of procedural follow-up tasks. Every turn says what it decided, finished and
left open, so :class:`Ledger` can write the compaction summary and the pre-compaction memory note the way an
agent would. All wording and numbers are drawn from the caller's ``random.Random``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.synthetic import OPUS, SONNET, ModelSpec, compaction_summary
from engine.synthetic_text import app_log, git_log, grep_output, load_test_report, ls_output, pytest_log, source_file

__all__ = ["FLUSH_PROMPT", "AssistantStep", "Ledger", "Story", "ToolStep", "Turn"]

FLUSH_PROMPT = (
    "Pre-compaction memory flush. Store durable memories now (use memory/YYYY-MM-DD.md; create memory/ if needed). "
    "If nothing to store, reply with NO_REPLY."
)
"""OpenClaw's pre-compaction flush prompt, verbatim from a real transcript (FORMATS §3.5)."""


@dataclass(frozen=True, slots=True)
class ToolStep:
    """One tool call and the result it will get."""

    name: str
    arguments: Mapping[str, Any]
    output: str
    details: Mapping[str, Any] | None = None
    is_error: bool = False
    seconds: float = 0.5
    """How long the tool runs at pace 1.0."""


@dataclass(frozen=True, slots=True)
class AssistantStep:
    """One assistant message: optional thinking and text, then tool calls (none on the final answer)."""

    thinking: str | None
    text: str | None
    calls: tuple[ToolStep, ...] = ()


@dataclass(frozen=True, slots=True)
class Turn:
    """A user message and the agent run that answers it, with what it means for the session's state."""

    user: str
    steps: tuple[AssistantStep, ...]
    decisions: tuple[str, ...] = ()
    done: tuple[str, ...] = ()
    todos: tuple[str, ...] = ()
    resolved: tuple[str, ...] = ()
    constraints: tuple[str, ...] = ()
    switch_to: ModelSpec | None = None
    """Model selected (``/model``) just before this turn."""
    thinking_level: str | None = None


@dataclass(slots=True)
class Ledger:
    """What the agent knows it has done and decided; rendered into summaries and memory notes."""

    goal: str = "Add per-merchant rate limiting to the payments API (POST /v1/payments, /v1/refunds)."
    decisions: list[str] = field(default_factory=list)
    done: list[str] = field(default_factory=list)
    todos: list[str] = field(default_factory=list)
    constraints: list[str] = field(default_factory=list)

    def record(self, turn: Turn) -> None:
        """Fold a finished turn into the ledger."""
        self.decisions += [d for d in turn.decisions if d not in self.decisions]
        self.done += [d for d in turn.done if d not in self.done]
        self.constraints += [c for c in turn.constraints if c not in self.constraints]
        self.todos = [t for t in self.todos if t not in turn.resolved] + [t for t in turn.todos if t not in self.todos]

    def summary(self, read_files: list[str], modified_files: list[str], split_turn: str | None) -> str:
        """The compaction summary, in pi's template."""
        return compaction_summary(
            goal=self.goal, constraints=self.constraints[-8:], done=self.done[-12:], in_progress=self.todos[:2],
            blocked=[], decisions=self.decisions[-10:], next_steps=self.todos[:5],
            critical=["Service code lives in services/payments/; tests run with `pytest tests/payments -q`.",
                      "Staging is payments-staging (6 pods); Redis is shared with idempotency keys."],
            read_files=read_files, modified_files=modified_files, split_turn=split_turn,
        )

    def memory_note(self, day: str) -> str:
        """What the agent stores in ``memory/<day>.md`` when asked to flush."""
        lines = [f"## {day} — payments rate limiting", "", "Decisions:"]
        lines += [f"- {d}" for d in self.decisions[-8:]] or ["- none yet"]
        lines += ["", "Preferences:"] + ([f"- {c}" for c in self.constraints[-6:]] or ["- none"])
        lines += ["", "Open:"] + ([f"- {t}" for t in self.todos[:6]] or ["- nothing open"])
        return "\n".join(lines) + "\n"


_CONFIRM = ("ok go ahead", "yes", "yes, do it", "sounds good, go", "ok", "go for it", "yep, ship it", "ok do it")


class Story:
    """Produces the turns of the simulated session, scripted first, then procedural, forever."""

    def __init__(self, rng: random.Random, *, cwd: str, scale: float = 1.0) -> None:
        self.rng = rng
        self.cwd = cwd
        self.scale = scale
        self.limit = rng.choice((100, 120, 150))
        self.burst = rng.choice((20, 25, 30))
        self.pods = rng.choice((4, 6, 8))
        self.merchant = f"m_{rng.randint(1000, 9999)}"

    # -- tool helpers -------------------------------------------------------------------------------------------
    def _lines(self, base: int) -> int:
        return max(20, int(base * self.scale * self.rng.uniform(0.85, 1.15)))

    def read(self, path: str, lines: int) -> ToolStep:
        """A ``read`` of a file of about ``lines`` lines."""
        return ToolStep("read", {"path": path}, source_file(self.rng, path, self._lines(lines)), seconds=0.3)

    def write(self, path: str, lines: int) -> ToolStep:
        """A ``write`` of a new file of about ``lines`` lines (its content travels in the arguments)."""
        return self.write_text(path, source_file(self.rng, path, self._lines(lines)))

    def write_text(self, path: str, content: str) -> ToolStep:
        """A ``write`` of ``content`` to ``path``."""
        return ToolStep("write", {"path": path, "content": content},
                        f"Successfully wrote {len(content.encode())} bytes to {path}", seconds=0.3)

    def edit(self, path: str, old: str, new: str) -> ToolStep:
        """An ``edit`` replacing ``old`` with ``new``, with pi's diff details."""
        line = self.rng.randint(12, 300)
        diff = "\n".join([f"     ...\n   1 {self.rng.choice(('', '    '))}# {path}"]
                         + [f"-{line + i:4d} {text}" for i, text in enumerate(old.splitlines())]
                         + [f"+{line + i:4d} {text}" for i, text in enumerate(new.splitlines())])
        result = f"Successfully replaced text in {path}. Changed {len(old)} characters to {len(new)} characters."
        return ToolStep("edit", {"path": path, "oldText": old, "newText": new}, result, {"diff": diff}, seconds=0.3)

    def exec(self, command: str, output: str, *, exit_code: int = 0, seconds: float = 1.2) -> ToolStep:
        """An ``exec`` with OpenClaw's details (the output is repeated in ``aggregated``)."""
        details = {"status": "completed", "exitCode": exit_code, "durationMs": int(seconds * 1000 * 3.1),
                   "aggregated": output, "cwd": self.cwd}
        return ToolStep("exec", {"command": command}, output, details, is_error=False, seconds=seconds)

    def pytest(self, tests: int, failures: int = 0, *, verbose: bool = False) -> ToolStep:
        """``pytest tests/payments`` with a realistic log."""
        log = pytest_log(self.rng, tests=tests, failures=failures)
        if verbose:
            log = "\n".join(f"tests/payments/test_{self.rng.choice(('api', 'ratelimit', 'refunds'))}.py::test_case_{i}"
                            f" PASSED [{i * 100 // tests:3d}%]" for i in range(tests)) + "\n" + log
        return self.exec("pytest tests/payments -q" + (" -v" if verbose else ""), log,
                         exit_code=1 if failures else 0, seconds=1.6)

    def confirm(self) -> str:
        """A short user confirmation."""
        return self.rng.choice(_CONFIRM)

    # -- the story ------------------------------------------------------------------------------------------------
    def turns(self) -> Iterator[Turn]:
        """Every turn of the session, in order (infinite)."""
        yield from self._scripted()
        n = 0
        while True:
            n += 1
            yield from self._procedural(n)
            if n % 9 == 0:
                yield self._switch(OPUS if n % 18 == 0 else SONNET)

    def _scripted(self) -> Iterator[Turn]:
        r, limit, burst = self.rng, self.limit, self.burst
        yield Turn(
            r.choice(("We need rate limiting on the payments API. POST /v1/payments and /v1/refunds are getting "
                      "hammered by a couple of merchants during their batch jobs. Can you look at the service and "
                      "propose something?",
                      "Can you add rate limiting to the payments API? Two merchants are flooding /v1/payments and "
                      "/v1/refunds from their nightly batch jobs and it's hurting everyone else. Propose an approach "
                      "first.")),
            (AssistantStep("The user wants rate limiting on the payments API. I should look at how the service "
                           "is structured before proposing anything: entry point, existing middleware, and "
                           "whether Redis is already a dependency.", "Let me look at the service layout first.",
                           (self.exec("ls -la services/payments && git log --oneline -12",
                                      ls_output(r, "services/payments", ("app.py", "middleware.py", "models.py",
                                                "idempotency.py", "redis_client.py", "settings.py"))
                                      + git_log(r, 12), seconds=0.6),)),
             AssistantStep(None, None, (self.read("services/payments/app.py", 640),
                                        self.read("services/payments/middleware.py", 380))),
             AssistantStep("Redis is already used for idempotency keys. Let me confirm how the client is created.",
                           None, (self.exec("grep -rn 'redis' services/payments --include=*.py | head -40",
                                            grep_output(r, "redis", ("services/payments/idempotency.py",
                                                        "services/payments/redis_client.py"), 28), seconds=0.4),)),
             AssistantStep(None,
                           f"Here's what I found and what I propose.\n\nThe service runs as {self.pods} pods behind "
                           "the load balancer, so any in-process limiter would let each merchant through "
                           f"{self.pods}x the limit. Redis is already a dependency (idempotency keys), so:\n\n"
                           "I'll use a token bucket in Redis keyed per merchant, because it gives a steady rate with "
                           "a controlled burst, it is shared by all pods, and it adds one round trip we already "
                           "pay for idempotency.\n\n**Alternatives considered**\n- Fixed window counter: simpler, "
                           "but lets a merchant send 2x the limit across a window boundary.\n- nginx `limit_req`: "
                           "cannot key on the merchant, only on IP.\n\nProposed defaults: "
                           f"{limit} requests/minute per merchant with a burst of {burst}, returning 429 with a "
                           "`Retry-After` header.\n\nShould the limit apply to /v1/refunds with the same numbers, "
                           "or do you want a separate budget there?"),),
            decisions=(f"Token bucket in Redis per merchant ({limit}/min, burst {burst}): shared across "
                       f"{self.pods} pods, one extra round trip.",),
            todos=("Decide whether refunds get a separate budget",),
        )
        yield Turn(
            self.confirm(),
            (AssistantStep("Confirmed. Write the limiter module, wire it in as middleware, run the suite.",
                           "Writing the limiter.", (self.write("services/payments/ratelimit.py", 240),)),
             AssistantStep(None, None, (self.edit("services/payments/app.py",
                                                  "app.add_middleware(RequestIdMiddleware)",
                                                  "app.add_middleware(RequestIdMiddleware)\n"
                                                  "app.add_middleware(RateLimitMiddleware, limiter=limiter)"),)),
             AssistantStep(None, None, (self.pytest(212),)),
             AssistantStep(None, "Done: `services/payments/ratelimit.py` holds `TokenBucketLimiter` and the "
                           "middleware is registered after the request-id middleware. All 212 tests pass.\n\n"
                           "TODO: limits are hard-coded for now; make them configurable per merchant tier.\n"
                           "Next step: add unit tests for burst and refill behaviour."),),
            done=("TokenBucketLimiter + RateLimitMiddleware added",),
            todos=("Make limits configurable per merchant tier", "Add unit tests for burst and refill"),
        )
        yield Turn(
            r.choice(("no, don't key it on the API key, key on merchant_id. merchants rotate keys and some have "
                      "dozens of them", "wait, you're keying on the API key? no, use merchant_id, some merchants "
                      "have 40+ keys and rotate them")),
            (AssistantStep("The user corrects the key: merchant_id instead of the API key. The merchant id is "
                           "resolved by the auth dependency, so the middleware has to run after auth.",
                           "Understood, switching the bucket key to `merchant_id`.",
                           (self.read("services/payments/ratelimit.py", 260),)),
             AssistantStep(None, None, (self.edit("services/payments/ratelimit.py",
                                                  'key = f"rl:{request.headers[\'x-api-key\']}"',
                                                  'key = f"rl:{request.state.merchant_id}"'),
                                        self.pytest(212, 1))),
             AssistantStep("One failure: the test fixture has no merchant on request.state. Fix the fixture.", None,
                           (self.edit("tests/payments/conftest.py", "request.state.api_key = 'k_test'",
                                      f"request.state.merchant_id = '{self.merchant}'"), self.pytest(212))),
             AssistantStep(None, "Fixed: buckets are now keyed on `merchant_id`, so key rotation no longer resets "
                           "a merchant's budget. The middleware now runs after authentication."),),
            decisions=("Bucket key is merchant_id, never the API key (merchants rotate keys).",),
            constraints=("Key rate limits on merchant_id, not API keys.",),
            done=("Bucket keyed on merchant_id",),
        )
        yield Turn(
            "add the tests for burst and refill now",
            (AssistantStep(None, "Adding tests with fakeredis and a frozen clock.",
                           (self.write("tests/payments/test_ratelimit.py", 220),)),
             AssistantStep(None, None, (self.pytest(236, 1),)),
             AssistantStep("The refill test fails: after one second we allow one request too many. The refill "
                           "rounds up; it should floor.", None,
                           (self.edit("services/payments/ratelimit.py",
                                      "tokens = min(self.capacity, tokens + math.ceil(elapsed * self.rate))",
                                      "tokens = min(self.capacity, tokens + math.floor(elapsed * self.rate))"),
                            self.pytest(236))),
             AssistantStep(None, "Added 24 tests. They caught a real bug: the refill rounded up, which let a "
                           "merchant through once per second above the limit. Fixed, all 236 tests pass."),),
            done=("24 limiter tests added; refill rounding bug fixed",),
            resolved=("Add unit tests for burst and refill",),
        )
        yield Turn(
            "what happens if redis is down?",
            (AssistantStep("Check how the Redis client behaves on connection errors and what production saw "
                           "during the last Redis failover.", None,
                           (self.read("services/payments/redis_client.py", 300),
                            self.exec("kubectl logs deploy/payments -n payments-staging --since=2h | tail -300",
                                      app_log(r, self._lines(300)), seconds=1.6))),
             AssistantStep(None,
                           "Right now a Redis outage would turn every payment into a 500: the limiter raises "
                           "`ConnectionError` before the handler runs.\n\nI'll make the limiter fail open with a "
                           "small in-process fallback bucket (limit divided by the pod count), because rejecting "
                           "payments during a Redis blip costs far more than briefly letting a noisy merchant "
                           "through. It also emits `ratelimit_degraded_total` so we notice.\n\nQuestion: do you "
                           "want a Prometheus alert when the limiter runs degraded for more than 5 minutes?"),),
            decisions=("Fail open on Redis errors with a local fallback bucket (limit / pods); count "
                       "ratelimit_degraded_total.",),
            todos=("Alert when the limiter runs degraded > 5 min?",),
        )
        yield Turn(
            self.confirm(),
            (AssistantStep(None, "Implementing the fallback and the alert.",
                           (self.edit("services/payments/ratelimit.py",
                                      "        allowed = await self._take(key)",
                                      "        try:\n            allowed = await self._take(key)\n"
                                      "        except RedisError:\n            DEGRADED.inc()\n"
                                      "            allowed = self._fallback.take(key)"),
                            self.write("deploy/prometheus/alerts/ratelimit.yaml", 40))),
             AssistantStep(None, None, (self.pytest(241),)),
             AssistantStep(None, "Done. The limiter fails open to a local bucket and the alert "
                           "`RateLimiterDegraded` fires after 5 minutes. 241 tests pass.\n\nNext step: the refill "
                           "logic is still read-modify-write from Python; I'd like a careful look at concurrency."),),
            done=("Fail-open fallback and RateLimiterDegraded alert",),
            resolved=("Alert when the limiter runs degraded > 5 min?",),
            todos=("Review the refill logic for races between pods",),
        )
        yield Turn(
            "I switched you to Opus for this part. The refill under concurrency worries me: two pods can read the "
            "same bucket state. Review ratelimit.py for races.",
            (AssistantStep("Two pods run GET then SET on the same key. Between them another pod can take a token, "
                           "so both writes start from the same stale count and one decrement is lost. Under a "
                           "burst with many concurrent requests, the merchant gets more than the burst. A WATCH/"
                           "MULTI loop would work but retries under contention. A Lua script runs atomically in "
                           "Redis: read, refill, decrement, write, expire, in one round trip. EVALSHA avoids "
                           "sending the script each time.", None, (self.read("services/payments/ratelimit.py", 300),)),
             AssistantStep(None,
                           "There is a real race. `_take` does GET, computes the refill in Python, then SET. Two pods "
                           "interleaving lose a decrement, so a burst of concurrent requests can exceed the bucket "
                           "by up to the number of pods.\n\nDecision: move the whole check-and-decrement into a "
                           "Lua script executed with EVALSHA, loaded once at startup. It is atomic in Redis, keeps "
                           "one round trip, and removes the clock skew between pods because it uses Redis `TIME`.\n"
                           "\nI'd also add a concurrency test that fires 200 requests with asyncio.gather against "
                           "fakeredis with Lua support. Go ahead?"),),
            switch_to=OPUS, thinking_level="high",
            decisions=("Atomic check-and-decrement in a Lua script via EVALSHA (loaded at startup), using Redis "
                       "TIME to avoid pod clock skew.",),
            resolved=("Review the refill logic for races between pods",),
            todos=("Concurrency test: 200 parallel requests must allow exactly the burst",),
        )
        yield Turn(
            self.confirm(),
            (AssistantStep(None, None, (self.write("services/payments/ratelimit.lua", 45),
                                        self.edit("services/payments/ratelimit.py",
                                                  "        tokens = await self.redis.get(key)",
                                                  "        allowed, remaining = await self.redis.evalsha(\n"
                                                  "            self._sha, 1, key, self.rate, self.capacity)"))),
             AssistantStep(None, None, (self.write("tests/payments/test_ratelimit_concurrency.py", 90),
                                        self.pytest(243))),
             AssistantStep(None, f"Done. 200 concurrent requests now allow exactly {burst} (the burst) and reject "
                           "the rest. All 243 tests pass."),),
            done=("Lua/EVALSHA limiter with concurrency test",),
            resolved=("Concurrency test: 200 parallel requests must allow exactly the burst",),
            todos=("Load test on staging",),
        )
        yield Turn(
            "deploy to staging and run the load test",
            (AssistantStep(None, "Deploying and running k6 against staging.",
                           (self.exec("helm upgrade payments deploy/helm/payments -n payments-staging --wait",
                                      "Release \"payments\" has been upgraded. Happy Helming!\nNAME: payments\n"
                                      "NAMESPACE: payments-staging\nSTATUS: deployed\nREVISION: 87\n", seconds=2.5),)),
             AssistantStep(None, None, (self.exec("k6 run scripts/loadtest.js --env TARGET=staging",
                                                  load_test_report(r, 400, 0.06), seconds=2.5),
                                        self.exec("kubectl logs deploy/payments -n payments-staging --since=10m",
                                                  app_log(r, self._lines(420)), seconds=1.5))),
             AssistantStep(None, "Load test at 400 req/s: p95 latency went from about 41 ms to 44 ms, and the "
                           "noisy test merchant got 429s as expected while others were unaffected.\n\nTODO: the "
                           f"limits ({limit}/min) are still constants in ratelimit.py."),),
            done=("Staging load test: p95 +3 ms, 429s only for the noisy merchant",),
            resolved=("Load test on staging",),
        )
        yield Turn(
            r.choice(("no, don't put the limits in helm values, merchant tiers live in the merchants table. read "
                      "them from there with a 60s cache", "not helm values please. tiers are in the merchants DB "
                      "table, read from there and cache for 60s")),
            (AssistantStep(None, "Got it, reading tiers from the merchants table.",
                           (self.read("services/payments/merchants.py", 480),)),
             AssistantStep(None, None, (self.edit("services/payments/ratelimit.py",
                                                  f"RATE = {limit}\nBURST = {burst}",
                                                  "limits = await tiers.limits_for(merchant_id)  # cached 60 s"),
                                        self.write("services/payments/tiers.py", 110), self.pytest(251))),
             AssistantStep(None, "Limits now come from `merchants.tier` through `TierCache` (60 s TTL), not from "
                           "config. 251 tests pass."),),
            decisions=("Per-tier limits come from the merchants table via a 60 s TierCache, not helm values.",),
            constraints=("No rate-limit numbers in helm values; tiers live in the merchants table.",),
            resolved=("Make limits configurable per merchant tier",),
            done=("TierCache reads limits from merchants table",),
        )
        yield Turn(
            "refunds need their own bucket, half the payments limit",
            (AssistantStep(None, None, (self.read("services/payments/routes/refunds.py", 520),)),
             AssistantStep(None, None, (self.edit("services/payments/ratelimit.py", 'key = f"rl:{merchant_id}"',
                                                  'key = f"rl:{route_group}:{merchant_id}"'),
                                        self.pytest(258, verbose=True))),
             AssistantStep(None, "Refunds now use their own bucket at half the payments limit. 258 tests pass.\n\n"
                           "Next step: write the rollout doc for the merchant-facing 429 change."),),
            decisions=("Refunds get a separate bucket at half the payments limit.",),
            resolved=("Decide whether refunds get a separate budget",),
            todos=("Rollout doc for merchants about 429 + Retry-After",),
        )
        yield Turn(
            "also check why CI failed on the last push",
            (AssistantStep(None, None, (self.exec("gh run view --log-failed", pytest_log(r, tests=258, failures=2)
                                                  + app_log(r, self._lines(200)), exit_code=0, seconds=2.2),)),
             AssistantStep("CI runs with real Redis 6.0, where the script's `redis.replicate_commands()` is "
                           "required. Add it.", None,
                           (self.edit("services/payments/ratelimit.lua", "local now = redis.call('TIME')",
                                      "redis.replicate_commands()\nlocal now = redis.call('TIME')"),
                            self.pytest(258))),
             AssistantStep(None, "CI failed because Redis 6.0 needs `redis.replicate_commands()` before calling "
                           "`TIME` in a script. Added; the suite passes locally against Redis 6.0 too."),),
            done=("CI fixed for Redis 6.0 (replicate_commands)",),
        )

    def _procedural(self, n: int) -> Iterator[Turn]:
        r = self.rng
        path = r.choice(("services/payments/ratelimit.py", "services/payments/tiers.py", "services/payments/app.py",
                         "services/payments/routes/refunds.py", "services/payments/metrics.py",
                         "services/payments/idempotency.py"))
        task = r.randrange(5)
        if task == 0:
            metric = r.choice(("ratelimit_rejected_total", "ratelimit_tokens_remaining", "tier_cache_hits_total"))
            yield Turn(f"add a {metric} metric, labelled by tier", (
                AssistantStep(None, None, (self.read("services/payments/metrics.py", 120),)),
                AssistantStep(None, None, (self.edit("services/payments/metrics.py", "# metrics",
                                                     f"{metric.upper()} = Counter('{metric}', '', ['tier'])"),
                                           self.pytest(258 + n))),
                AssistantStep(None, f"Added `{metric}` labelled by tier. Next step: add it to the Grafana board.")),
                done=(f"{metric} metric",), todos=(f"Grafana panel for {metric}",))
        elif task == 1:
            yield Turn(r.choice(("there's a flaky test in CI again, look", "CI is flaky on the limiter tests")), (
                AssistantStep(None, None, (self.exec("gh run view --log-failed", pytest_log(
                    r, tests=258 + n, failures=1), seconds=2.0),)),
                AssistantStep("The failing test depends on wall-clock time; freeze it.", None,
                              (self.edit("tests/payments/test_ratelimit.py", "time.sleep(1.0)",
                                         "clock.advance(1.0)"), self.pytest(258 + n))),
                AssistantStep(None, "The flaky test slept on the real clock; it now advances the frozen clock.")),
                done=(f"Deflaked limiter test #{n}",))
        elif task == 2:
            yield Turn(f"read {path} again and tell me if anything looks off", (
                AssistantStep(None, None, (self.read(path, 360),)),
                AssistantStep(None, f"Two things in `{path}`:\n\n1. The error branch logs the merchant id at INFO; "
                              "that should be DEBUG to keep log volume down.\n2. A comment still mentions the API "
                              "key as the bucket key.\n\nI'll fix both, because they are small and clearly wrong. "
                              "OK?")),
                decisions=(f"Merchant ids are logged at DEBUG, not INFO ({path}).",))
            yield Turn(self.confirm(), (
                AssistantStep(None, None, (self.edit(path, "logger.info(", "logger.debug("), self.pytest(258 + n))),
                AssistantStep(None, "Done, both fixed. TODO: sweep the other modules for INFO-level merchant logs.")),
                todos=("Sweep modules for INFO-level merchant logs",))
        elif task == 3:
            yield Turn("run the load test again with 800 rps", (
                AssistantStep(None, None, (self.exec("k6 run scripts/loadtest.js --env RPS=800", load_test_report(
                    r, 800, r.uniform(0.04, 0.12)), seconds=3.0), self.exec(
                    "kubectl logs deploy/payments -n payments-staging --since=5m", app_log(r, self._lines(380)),
                    seconds=1.4))),
                AssistantStep(None, "At 800 req/s p95 stays under 60 ms; Redis CPU peaks at 31%. Question: should "
                              "we raise the enterprise tier burst before the batch window tonight?")),
                todos=("Enterprise tier burst before tonight's batch window?",))
        else:
            yield Turn(r.choice(("update the rollout doc with the tier table", "write the merchant-facing doc now")), (
                AssistantStep(None, None, (self.read("docs/rate-limiting.md", 160),)),
                AssistantStep(None, None, (self.write("docs/rate-limiting.md", 190),)),
                AssistantStep(None, "Updated `docs/rate-limiting.md` with the tier table and the 429/Retry-After "
                              "contract. Next step: send it to support before enabling enforcement.")),
                done=("Rollout doc updated",), resolved=("Rollout doc for merchants about 429 + Retry-After",),
                todos=("Send the rollout doc to support",))

    def _switch(self, model: ModelSpec) -> Turn:
        if model is SONNET:
            return Turn("switching you back to Sonnet for the routine stuff. carry on with the open items",
                        (AssistantStep(None, "Carrying on with the open items, starting with the oldest one."),),
                        switch_to=SONNET, thinking_level="medium")
        return Turn("back on Opus: the next items touch the Lua script, be careful",
                    (AssistantStep("Stronger model for the Lua changes; re-read the script first.",
                                   "Understood. I'll re-read the script before touching it."),),
                    switch_to=OPUS, thinking_level="high")
