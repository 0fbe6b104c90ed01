"""The story the simulated agent plays: adding rate limiting to a payments API, turn by turn.

A scripted arc (proposal, short confirmations, user corrections, a switch to a stronger model, load tests)
followed by an endless stream of procedural follow-up tasks. Every turn says what it decided, finished and
left open, so :class:`~sim.demo_turns.Ledger` can write the compaction summary and the pre-compaction
memory note the way an agent would. All wording and numbers are drawn from the caller's ``random.Random``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from sim.demo_turns import AssistantStep, ToolBox, Turn
from sim.synthetic import OPUS, SONNET, ModelSpec
from sim.synthetic_text import app_log, git_diff, git_log, grep_output, load_test_report, ls_output, pytest_log

__all__ = ["Story"]


class Story(ToolBox):
    """Produces the turns of the simulated session, scripted first, then procedural, forever."""

    def __init__(self, rng: random.Random, *, cwd: str, scale: float = 1.0) -> None:
        super().__init__(rng, cwd=cwd, scale=scale)
        self.limit = rng.choice((100, 120, 150))
        self.burst = rng.choice((20, 25, 30))
        self.pods = rng.choice((4, 6, 8))
        self.merchant = f"m_{rng.randint(1000, 9999)}"
        self._deck: list[int] = []
        self._last_task = -1

    def critical_context(self) -> list[str]:
        """What every summary of this session must keep."""
        return ["Service code lives in services/payments/; tests run with `pytest tests/payments -q`.",
                f"Staging is payments-staging ({self.pods} pods); Redis is shared with idempotency keys."]

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

    def _next_task(self) -> int:
        if not self._deck:
            deck = list(range(7))
            self.rng.shuffle(deck)
            if deck[-1] == self._last_task:
                deck.reverse()
            self._deck = deck
        self._last_task = self._deck.pop()
        return self._last_task

    def _procedural(self, n: int) -> Iterator[Turn]:
        r = self.rng
        path = r.choice(("services/payments/ratelimit.py", "services/payments/tiers.py", "services/payments/app.py",
                         "services/payments/routes/refunds.py", "services/payments/metrics.py",
                         "services/payments/idempotency.py"))
        tests = 258 + n
        task = self._next_task()
        if task == 0:
            metric = r.choice(("ratelimit_rejected_total", "ratelimit_tokens_remaining", "tier_cache_hits_total"))
            yield Turn(r.choice((f"add a {metric} metric, labelled by tier", f"we need {metric} per tier")), (
                AssistantStep(None, None, (self.read("services/payments/metrics.py", 160),)),
                AssistantStep(None, None, (self.edit("services/payments/metrics.py", "# metrics",
                                                     f"{metric.upper()} = Counter('{metric}', '', ['tier'])"),
                                           self.pytest(tests))),
                AssistantStep(None, f"Added `{metric}` labelled by tier. Next step: add it to the Grafana board.")),
                done=(f"{metric} metric",), todos=(f"Grafana panel for {metric}",))
        elif task == 1:
            yield Turn(r.choice(("there's a flaky test in CI again, look", "CI is flaky on the limiter tests")), (
                AssistantStep(None, None, (self.exec("gh run view --log-failed", pytest_log(
                    r, tests=tests, failures=1), seconds=2.0),)),
                AssistantStep("The failing test depends on wall-clock time; freeze it.", None,
                              (self.edit("tests/payments/test_ratelimit.py", "time.sleep(1.0)",
                                         "clock.advance(1.0)"), self.pytest(tests))),
                AssistantStep(None, "The flaky test slept on the real clock; it now advances the frozen clock.")),
                done=(f"Deflaked limiter test #{n}",))
        elif task == 2:
            yield Turn(r.choice((f"read {path} again and tell me if anything looks off",
                                 f"can you review {path} once more?")), (
                AssistantStep(None, None, (self.read(path, 420),)),
                AssistantStep(None, f"Two things in `{path}`:\n\n1. The error branch logs the merchant id at INFO; "
                              "that should be DEBUG to keep log volume down.\n2. A comment still mentions the API "
                              "key as the bucket key.\n\nI'll fix both, because they are small and clearly wrong. "
                              "OK?")),
                decisions=(f"Merchant ids are logged at DEBUG, not INFO ({path}).",))
            yield Turn(self.confirm(), (
                AssistantStep(None, None, (self.edit(path, "logger.info(", "logger.debug("), self.pytest(tests))),
                AssistantStep(None, "Done, both fixed. TODO: sweep the other modules for INFO-level merchant logs.")),
                todos=("Sweep modules for INFO-level merchant logs",))
        elif task == 3:
            rps = r.choice((600, 800, 1000))
            yield Turn(f"run the load test again with {rps} rps", (
                AssistantStep(None, None, (self.exec(f"k6 run scripts/loadtest.js --env RPS={rps}", load_test_report(
                    r, rps, r.uniform(0.04, 0.12)), seconds=2.5), self.exec(
                    "kubectl logs deploy/payments -n payments-staging --since=5m", app_log(r, self._lines(300)),
                    seconds=1.4))),
                AssistantStep(None, f"At {rps} req/s p95 stays under {r.randint(50, 70)} ms; Redis CPU peaks at "
                              f"{r.randint(20, 45)}%. Question: should we raise the enterprise tier burst before the "
                              "batch window tonight?")),
                todos=("Enterprise tier burst before tonight's batch window?",))
        elif task == 4:
            yield Turn(r.choice(("update the rollout doc with the tier table", "write the merchant-facing doc now")), (
                AssistantStep(None, None, (self.read("docs/rate-limiting.md", 200),)),
                AssistantStep(None, None, (self.write("docs/rate-limiting.md", 220),)),
                AssistantStep(None, "Updated `docs/rate-limiting.md` with the tier table and the 429/Retry-After "
                              "contract. Next step: send it to support before enabling enforcement.")),
                done=("Rollout doc updated",), resolved=("Rollout doc for merchants about 429 + Retry-After",),
                todos=("Send the rollout doc to support",))
        elif task == 5:
            files = ("services/payments/ratelimit.py", "services/payments/tiers.py", path)
            diff = "".join(git_diff(r, f, r.randint(2, 5)) for f in files)
            yield Turn(r.choice(("review the whole diff against main before I open the PR",
                                 "look over the branch diff, anything to clean up?")), (
                AssistantStep(None, None, (self.exec("git diff main...HEAD -- services/payments", diff,
                                                     seconds=0.8),)),
                AssistantStep(None, "The diff reads well overall. Two fixup commits touch the same lines in "
                              "`tiers.py`; I'll squash them into the tier-cache commit, because reviewers will "
                              "otherwise see the cache introduced and rewritten in one PR.\n\nOpen question: do "
                              "you want the Lua script in its own commit?")),
                decisions=("Squash the tier fixups into the TierCache commit before opening the PR.",),
                todos=("Lua script in its own commit?",))
        else:
            yield Turn(r.choice(("we're seeing some 500s on refunds in staging, can you look?",
                                 "staging shows 500s on /v1/refunds since the last deploy")), (
                AssistantStep("Look at the error logs first, then the refunds route.", None, (
                    self.exec("kubectl logs deploy/payments -n payments-staging --since=30m | grep '\"status\":500'",
                              app_log(r, self._lines(160)), seconds=1.2),
                    self.read("services/payments/idempotency.py", 300))),
                AssistantStep(None, "The 500s come from refunds replayed with an idempotency key whose stored "
                              "response predates the limiter: the cached body has no `Retry-After`, and the "
                              "serializer assumes it. Next step: make the header optional when replaying stored "
                              "responses.")),
                todos=("Make Retry-After optional when replaying idempotent responses",))

    def _switch(self, model: ModelSpec) -> Turn:
        if model is SONNET:
            return Turn("switching you back to Sonnet for the routine stuff. carry on with the open items",
                        (AssistantStep(None, "Carrying on with the open items, starting with the oldest one."),),
                        switch_to=SONNET, thinking_level="medium")
        return Turn("back on Opus: the next items touch the Lua script, be careful",
                    (AssistantStep("Stronger model for the Lua changes; re-read the script first.",
                                   "Understood. I'll re-read the script before touching it."),),
                    switch_to=OPUS, thinking_level="high")
