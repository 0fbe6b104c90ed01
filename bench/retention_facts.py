"""The facts ``bench/retention.py`` plants: five phases of decisions, constraints, identifiers, TODOs, user asks
and modified files, with some of each phase replacing or finishing earlier ones.

Each fact is written the way agents and users state such things (the phrasings the capture heuristics document)
and carries its *key*: the exact text the retention check looks for (see ``bench/retention.py``). Keys are
distinct and never a near-duplicate of another fact, so a fact can only count as present if it was kept.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PHASES", "Fact", "Phase"]


@dataclass(frozen=True, slots=True)
class Fact:
    """One planted fact."""

    kind: str
    """``decisions``, ``constraints``, ``identifiers``, ``todos``, ``asks`` or ``modified``."""
    key: str
    """What must be in the context for the fact to count as present."""
    message: str
    """The message text (or, for ``modified``, the path an edit tool call writes)."""
    replaces: str = ""
    """The key of an earlier fact this one supersedes (decisions, constraints)."""


@dataclass(frozen=True, slots=True)
class Phase:
    """What one phase between two compactions plants, and which earlier TODOs and asks it finishes."""

    facts: tuple[Fact, ...]
    finishes: tuple[tuple[str, str], ...] = ()
    """``(key of the finished TODO or ask, the agent's completion line)``."""


def _d(text: str, replaces: str = "") -> Fact:
    return Fact("decisions", text, text, replaces)


def _c(text: str, replaces: str = "") -> Fact:
    return Fact("constraints", text, text, replaces)


def _t(text: str) -> Fact:
    return Fact("todos", text, f"TODO: {text}")


def _a(text: str) -> Fact:
    return Fact("asks", text, text)


def _i(identifier: str, sentence: str) -> Fact:
    return Fact("identifiers", identifier, sentence)


def _m(path: str) -> Fact:
    return Fact("modified", path, path)


PHASES: tuple[Phase, ...] = (
    Phase((
        _d("Decision: cache merchant lookups for 30 seconds."),
        _d("Decision: shard the ledger table by merchant_id hash."),
        _d("Going with the token bucket algorithm for the refunds limiter."),
        _d("The fix is to release the Redis lock before emitting the webhook."),
        _c("Never deploy the payments service on Fridays."),
        _c("Always run the integration suite before merging."),
        _c("Don't log full card numbers anywhere."),
        _i("services/limiter/bucket.py", "The refill logic lives in services/limiter/bucket.py now."),
        _i("https://grafana.acme.dev/d/refunds-p99", "The dashboard is https://grafana.acme.dev/d/refunds-p99."),
        _i("a3f9c2e71b", "I pushed the change as commit a3f9c2e71b on the branch."),
        _i("v2.14.3", "The Redis client is pinned at v2.14.3 for now."),
        _i("PAY-4121", "This is tracked in PAY-4121 on the board."),
        _i("make test-integration", "Run `make test-integration` to check it end to end."),
        _t("add a Grafana panel for rejected refunds"),
        _t("document the refill math in the limiter runbook"),
        _t("backfill merchant tiers for the legacy accounts"),
        _a("Can you add a p99 latency panel for the refunds service?"),
        _a("Please draft the incident report for the settlement outage."),
        _m("services/payments/app.py"), _m("services/limiter/bucket.py"), _m("config/limits.yaml"),
    )),
    Phase((
        _d("Decision: run the settlement batch at 02:00 UTC."),
        _d("Decision: keep idempotency keys for 48 hours."),
        _d("We'll expose rate-limit headers on every payments response."),
        _d("Decision: cache merchant lookups for 120 seconds instead.",
           "Decision: cache merchant lookups for 30 seconds."),
        _c("Always keep pull requests under 400 lines."),
        _c("I prefer squash merges for feature branches."),
        _c("Make sure to tag releases with the ticket id."),
        _i("/etc/acme/limits.yaml", "Production reads its limits from /etc/acme/limits.yaml at boot."),
        _i("redis-primary.internal:6379", "The primary is redis-primary.internal:6379 in staging too."),
        _i("LedgerShardRouter", "The routing goes through LedgerShardRouter for every write."),
        _i("settle_batch_v2", "The job is registered as settle_batch_v2 in the scheduler."),
        _i("9c1e55d0aa4f", "The failing run was build 9c1e55d0aa4f yesterday."),
        _i("alembic upgrade head", "Apply it with `alembic upgrade head` before the deploy."),
        _t("load test the payouts endpoint at 500 rps"),
        _t("delete the legacy v0 charge endpoint"),
        _t("wire the fraud score into the payout review queue"),
        _a("Could you compare the settlement totals against the bank export?"),
        _a("Please write a migration guide for the merchant tiers."),
        _m("services/ledger/router.py"), _m("migrations/0042_shard_ledger.py"), _m("docs/runbook.md"),
    ), (
        ("add a Grafana panel for rejected refunds", "Done: added the Grafana panel for rejected refunds."),
        ("backfill merchant tiers for the legacy accounts",
         "Done: backfilled merchant tiers for the legacy accounts."),
        ("Can you add a p99 latency panel for the refunds service?",
         "Done: added the p99 latency panel for the refunds service."),
    )),
    Phase((
        _d("Decision: reject payouts above the merchant tier ceiling."),
        _d("Going with structured JSON logs for the payout worker."),
        _d("The fix is to retry webhook delivery with exponential backoff."),
        _d("Decision: keep idempotency keys for 72 hours instead of 48.",
           "Decision: keep idempotency keys for 48 hours."),
        _c("Avoid raw SQL in the ledger service."),
        _c("From now on, keep pull requests under 800 lines.", "Always keep pull requests under 400 lines."),
        _c("Never store refresh credentials in Redis."),
        _i("https://status.acme.dev/incidents/2291", "The incident page is https://status.acme.dev/incidents/2291."),
        _i("PayoutReviewQueue", "Flagged payouts land in PayoutReviewQueue first."),
        _i("OPS-77", "The on-call follow-up is OPS-77."),
        _i("~/acme/scripts/replay_webhooks.sh", "I used ~/acme/scripts/replay_webhooks.sh to replay them."),
        _i("v3.1.0", "The webhook SDK moved to v3.1.0 last week."),
        _i("46d2b7e0c9", "The fix is in commit 46d2b7e0c9 on main."),
        _t("add alerting on webhook retry exhaustion"),
        _t("prune expired idempotency keys nightly"),
        _t("review the payout ceiling with finance"),
        _a("Can you summarize the webhook failures by merchant for last week?"),
        _a("Please add the ledger shard map to the architecture doc."),
        _m("services/webhooks/retry.py"), _m("services/payouts/ceiling.py"), _m("tests/test_retry.py"),
    ), (
        ("load test the payouts endpoint at 500 rps", "Done: load tested the payouts endpoint at 500 rps."),
        ("delete the legacy v0 charge endpoint", "Done: deleted the legacy v0 charge endpoint."),
        ("Please draft the incident report for the settlement outage.",
         "Done: drafted the incident report for the settlement outage."),
    )),
    Phase((
        _d("Decision: validate currency codes at the API edge."),
        _d("We'll migrate the invoices table with an online backfill."),
        _d("Going with Grafana alerts on p99 checkout latency."),
        _d("Decision: run the settlement batch at 04:00 UTC instead.",
           "Decision: run the settlement batch at 02:00 UTC."),
        _c("Always write migrations as reversible scripts."),
        _c("Don't call the fraud API synchronously."),
        _c("Remember to update the runbook after incidents."),
        _i("services/invoices/backfill.py", "The backfill job is services/invoices/backfill.py on the worker."),
        _i("https://api.acme.dev/v2/currencies", "Codes come from https://api.acme.dev/v2/currencies daily."),
        _i("CurrencyGuard", "The edge check is a CurrencyGuard middleware."),
        _i("INV-3308", "Finance filed this as INV-3308."),
        _i("checkout_p99_ms", "The alert fires on checkout_p99_ms above the threshold."),
        _i("pytest -k backfill", "Run `pytest -k backfill` for the focused tests."),
        _t("add a dry-run flag to the invoice backfill"),
        _t("page the payments on-call when the backfill stalls"),
        _t("record the currency list version in the audit log"),
        _a("Could you estimate how long the invoice backfill will take?"),
        _a("Please list the merchants that still send lowercase currency codes."),
        _m("services/invoices/backfill.py"), _m("services/edge/currency.py"), _m("alerts/checkout.yaml"),
    ), (
        ("add alerting on webhook retry exhaustion", "Done: added alerting on webhook retry exhaustion."),
        ("prune expired idempotency keys nightly", "Done: pruned expired idempotency keys nightly."),
        ("Could you compare the settlement totals against the bank export?",
         "Done: compared the settlement totals against the bank export."),
    )),
    Phase((
        _d("Decision: split the refunds router out of app.py."),
        _d("We'll pin pydantic below version 3."),
        _d("The fix is to parse webhook signatures before decoding the body."),
        _d("Decision: shard the ledger table by merchant_id range instead of hash.",
           "Decision: shard the ledger table by merchant_id hash."),
        _c("Never retry a payout more than 3 times."),
        _c("I prefer feature flags over long-lived branches."),
        _c("Actually, deploying the payments service on Fridays is fine after 10:00.",
           "Never deploy the payments service on Fridays."),
        _i("services/refunds/router.py", "The new router is services/refunds/router.py with its own tests."),
        _i("https://github.com/acme/payments/pull/812", "The PR is https://github.com/acme/payments/pull/812."),
        _i("verify_signature()", "Call verify_signature() before json.loads on the body."),
        _i("b81f03c4de", "Signatures broke in commit b81f03c4de of the SDK."),
        _i("REF-1450", "The refunds split is REF-1450."),
        _i("pydantic==2.9.2", "The pin is pydantic==2.9.2 in the lock file."),
        _t("move the refunds tests next to the new router"),
        _t("announce the Friday deploy window to support"),
        _t("drop the hash shard helper after the range migration"),
        _a("Can you check whether any merchant relies on the old refunds paths?"),
        _a("Please prepare the release notes for the refunds split."),
        _m("services/refunds/router.py"), _m("services/webhooks/signature.py"), _m("pyproject.toml"),
    ), (
        ("add a dry-run flag to the invoice backfill", "Done: added a dry-run flag to the invoice backfill."),
        ("page the payments on-call when the backfill stalls",
         "Done: paging the payments on-call when the backfill stalls."),
        ("Please add the ledger shard map to the architecture doc.",
         "Done: added the ledger shard map to the architecture doc."),
    )),
)
