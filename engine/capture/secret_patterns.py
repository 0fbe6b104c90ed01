"""The catalogue of secret shapes that :mod:`engine.capture.redact` replaces (see ``docs/redaction.md``).

Written for ctxscope after studying the rule sets of gitleaks and detect-secrets, in three families:

* **prefixed tokens** — vendor formats that announce themselves (``ghp_``, ``sk-ant-``, ``hf_``, ``npm_``,
  ``sk_live_``, ``AKIA``…). The prefix is distinctive enough that no left word boundary is required, so a key
  glued to a preceding word is still found.
* **context rules** — a credential recognised by what stands before it: an ``Authorization`` header, ``Bearer``,
  a URL's user info, ``curl -u user:pass``, ``mysql -pPASS``, a ``.netrc`` line. Assignments (``name = value``,
  ``--flag value``) are judged in :mod:`engine.capture.redact`.
* **bare shapes** — private key blocks, JWTs and AWS secret access keys (40 base64 characters of high entropy,
  found with no context at all: a key pasted alone is still a key).

Every rule is anchored on a literal keyword: the scanner finds the keyword with ``str.find`` and tries the
rule's pattern only there, so text without secrets costs a few substring searches, not a regex per position.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

__all__ = [
    "ASSIGNMENT_TAIL",
    "AWS_SECRET_CANDIDATE",
    "FLAG_HEAD",
    "FLAG_TAIL",
    "NOT_MARKER",
    "RULES",
    "SECRET_WORDS",
    "Rule",
]

NOT_MARKER: Final = r"(?!\[REDACTED)"
"""Never start a secret on an existing marker: redaction must be idempotent."""


@dataclass(frozen=True, slots=True)
class Rule:
    """One secret shape: where to look, what to match there, and which part is the secret."""

    kind: str
    """The ``<kind>`` in ``[REDACTED:<kind>]``."""
    keywords: tuple[str, ...]
    """Literals the match contains; found in the text itself (``case_sensitive``) or in its lower-case copy."""
    pattern: re.Pattern[str]
    """Tried with ``match`` at ``hit - back``; the ``secret`` group (else the whole match) is replaced."""
    back: int = 0
    """How many characters before the keyword the match starts (a fixed offset)."""
    case_sensitive: bool = True
    digits_back: bool = False
    """The match starts at the run of digits just before the keyword (Telegram bot tokens)."""


def _rule(kind: str, keywords: tuple[str, ...], pattern: str, *, back: int = 0, case_sensitive: bool = True,
          digits_back: bool = False, flags: int = 0) -> Rule:
    return Rule(kind, keywords, re.compile(pattern, flags), back, case_sensitive, digits_back)


def _prefixed(kind: str, prefixes: tuple[str, ...], body: str, *, left: str = "", right: str = "") -> Rule:
    """A token that starts with one of ``prefixes`` (matched case-sensitively) followed by ``body``."""
    alternatives = "|".join(re.escape(p) for p in prefixes)
    return _rule(kind, prefixes, f"{left}(?:{alternatives}){body}{right}")


_WORD_END: Final = r"(?![A-Za-z0-9_])"

RULES: Final[tuple[Rule, ...]] = (
    _rule("private-key", ("-----BEGIN",),
          r"-----BEGIN[A-Z0-9 _-]{0,100}PRIVATE KEY(?: BLOCK)?-----"
          r"(?:.*?-----END[A-Z0-9 _-]{0,100}PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s:,.-]*)", flags=re.DOTALL),
    _prefixed("anthropic-key", ("sk-ant-",), r"[A-Za-z0-9_-]{20,}"),
    _prefixed("openai-key", ("sk-proj-", "sk-svcacct-", "sk-admin-", "sk-or-v1-", "sk-or-"), r"[A-Za-z0-9_-]{20,}"),
    # A bare ``sk-`` needs a digit in a long body, and a word boundary unless the body also has an upper-case
    # letter and 32+ characters: ``task-force-…`` words survive, glued random keys do not.
    _prefixed("openai-key", ("sk-",),
              r"(?=[A-Za-z0-9_-]{0,200}?[0-9])(?=[A-Za-z0-9_-]{0,200}?[A-Z])[A-Za-z0-9_-]{32,}"),
    _prefixed("openai-key", ("sk-",), r"(?=[A-Za-z0-9_-]{0,200}?[0-9])[A-Za-z0-9_-]{20,}", left=r"(?<![A-Za-z0-9_-])"),
    _prefixed("stripe-key", ("sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_", "whsec_"),
              r"[A-Za-z0-9]{10,}"),
    _prefixed("github-token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), r"[A-Za-z0-9]{30,}"),
    _prefixed("github-token", ("github_pat_",), r"[A-Za-z0-9_]{22,}"),
    _prefixed("gitlab-token", ("glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glcbt-", "gloas-", "glimt-",
                               "glagent-", "glsoat-", "glffct-"), r"[A-Za-z0-9_.-]{20,}"),
    _prefixed("slack-token", ("xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "xoxe-", "xoxe.", "xapp-"),
              r"[A-Za-z0-9.-]{10,}"),
    _prefixed("slack-webhook", ("hooks.slack.com/",), r"(?:services|workflows|triggers)/[A-Za-z0-9/+_-]{20,}"),
    _prefixed("huggingface-token", ("hf_", "api_org_"), r"[A-Za-z0-9]{30,}"),
    _prefixed("npm-token", ("npm_",), r"[A-Za-z0-9]{36,}"),
    # A legacy npm token is a bare UUID: secret only where the line speaks of npm and a token (``npm token
    # create`` prints it in a table, ``.npmrc`` after ``_authToken``).
    _rule("npm-token", ("npm",),
          r"(?i)npm[^\n]{0,120}?token[^\n]{0,60}?" + NOT_MARKER
          + r"(?P<secret>(?<![0-9a-f-])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9a-f-]))",
          case_sensitive=False),
    _prefixed("pypi-token", ("pypi-AgE",), r"[A-Za-z0-9_-]{40,}"),
    _prefixed("aws-access-key", ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"), r"[A-Z0-9]{16,17}(?![A-Za-z0-9])",
              left=r"(?<![A-Z0-9])"),
    _prefixed("google-api-key", ("AIza",), r"[0-9A-Za-z_-]{35}" + _WORD_END),
    _prefixed("google-oauth", ("ya29.", "GOCSPX-", "1//0"), r"[0-9A-Za-z_-]{20,}"),
    # An SSH public key is no credential, but it names a machine's or person's key: a summary has no use for its
    # body, and a pasted one was the whole of a summary ask (docs/capture.md, One set of items). The key type and the
    # comment stay, so "ssh-ed25519 [REDACTED:ssh-key] admin@host" still says what was pasted.
    _rule("ssh-key", ("ssh-ed25519 ", "ssh-rsa ", "ssh-dss ", "ecdsa-sha2-", "sk-ssh-ed25519@", "sk-ecdsa-sha2-"),
          r"(?:sk-)?(?:ssh-(?:ed25519|rsa|dss)|ecdsa-sha2-nistp\d{3})(?:@openssh\.com)?\s+" + NOT_MARKER
          + r"(?P<secret>AAAA[A-Za-z0-9+/]{16,}={0,3})"),
    _prefixed("jwt", ("eyJ",), r"[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*"),
    _prefixed("digitalocean-token", ("dop_v1_", "doo_v1_", "dor_v1_"), r"[a-f0-9]{64}"),
    _prefixed("sendgrid-key", ("SG.",), r"[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"),
    _prefixed("twilio-key", ("SK",), r"[0-9a-fA-F]{32}" + _WORD_END, left=r"(?<![A-Za-z0-9_])"),
    _prefixed("mailgun-key", ("key-",), r"[0-9a-f]{32}" + _WORD_END, left=r"(?<![A-Za-z0-9_])"),
    _rule("telegram-token", (":AA",), r"[0-9]{8,10}:AA[A-Za-z0-9_-]{33}", digits_back=True),
    _prefixed("shopify-token", ("shpat_", "shpca_", "shppa_", "shpss_"), r"[a-fA-F0-9]{32}"),
    _prefixed("databricks-token", ("dapi",), r"[a-f0-9]{32}"),
    _prefixed("vault-token", ("hvs.", "hvb."), r"[A-Za-z0-9_-]{24,}"),
    _prefixed("age-secret-key", ("AGE-SECRET-KEY-1",), r"[0-9A-Z]{58}"),
    _prefixed("doppler-token", ("dp.pt.", "dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit."), r"[A-Za-z0-9]{40,}"),
    _prefixed("api-token", ("pplx-", "gsk_", "xai-", "r8_", "lin_api_", "ntn_", "pnu_", "rdme_", "tfp_", "fio-u-",
                            "pscale_tkn_", "pscale_pw_", "pscale_oauth_", "sntryu_", "sntrys_", "rubygems_", "pul-",
                            "glc_", "glsa_", "fo1_", "HRKU-", "dckr_pat_", "bkua_", "CFPAT-", "tskey-"),
              r"[A-Za-z0-9_=+/.-]{30,}"),
    _prefixed("api-token", ("PMAK-",), r"[a-f0-9]{24}-[a-f0-9]{34}"),
    _prefixed("api-token", ("NRAK-",), r"[A-Z0-9]{27}"),
    _prefixed("api-token", ("xkeysib-",), r"[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    _prefixed("api-token", ("AKCp",), r"[A-Za-z0-9]{60,}"),
    _prefixed("api-token", ("ops_eyJ",), r"[A-Za-z0-9+/]{100,}={0,3}"),
    _prefixed("square-token", ("sq0atp-", "sq0csp-"), r"[0-9A-Za-z_-]{22,}"),
    _rule("azure-client-secret", ("Q~",), r"(?<![A-Za-z0-9_~.])[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}", back=4),
    # Context rules: the ``secret`` group is replaced, the context around it kept.
    _rule("authorization", ("authorization",),
          r"(?i)authorization[\"']?\s*[:=]\s*[\"']?(?P<scheme>(?:bearer|basic|token|bot|digest|apikey|sso-key)\s+)?+"
          + NOT_MARKER + r"(?P<secret>[^\s\"',;]{6,})", case_sensitive=False),
    _rule("bearer-token", ("bearer",),
          r"(?i)(?<![A-Za-z0-9])bearer\s+" + NOT_MARKER
          + r"(?P<secret>(?=[A-Za-z0-9._~+/=-]*[0-9])[A-Za-z0-9._~+/=-]{16,})", case_sensitive=False),
    # ``scheme://[user]:password@host``: the password may hold ``/`` and ``@`` (MySQL URLs do), so it runs to
    # the last ``@`` of the authority — one followed by a host-like run with no further ``@`` before the path.
    _rule("url-password", ("://",),
          r"://[^\s/:@\[\]\"'<>]{0,200}:" + NOT_MARKER
          + r"(?P<secret>[^\s\"'<>]{1,400}?)@(?=[A-Za-z0-9.\[\]_-]+(?::[0-9]{1,5})?(?:[/?#\s\"'<>,;)\\]|$))"
          r"(?![^\s\"'<>]*@[A-Za-z0-9.\[\]_-]+(?::[0-9]{1,5})?(?:[/?#\s\"'<>,;)\\]|$))"),
    _rule("password", ("-u", "--user", "--proxy-user"),
          r"(?i)(?:-u|--user|--proxy-user)(?:[ =]+)[\"']?[^\s:\"'-][^\s:\"']{0,100}:" + NOT_MARKER
          + r"(?P<secret>[^\s\"']+)", case_sensitive=False),
    _rule("password", ("mysql", "mariadb"),
          r"(?i)(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n]{0,200}?\s-p" + NOT_MARKER
          + r"(?P<secret>[^\s\"']+)", case_sensitive=False),
    _rule("password", ("machine",),
          r"(?i)machine\s+\S+\s+(?:login\s+\S+\s+)?password\s+" + NOT_MARKER + r"(?P<secret>\S+)",
          case_sensitive=False),
    _rule("password", ("sshpass",), r"(?i)sshpass\s+-p\s*" + NOT_MARKER + r"(?P<secret>[^\s\"']+)",
          case_sensitive=False),
)

SECRET_WORDS: Final = ("pass", "pwd", "secret", "token", "key", "auth", "sig", "credential", "cookie", "dsn", "bearer")
"""Keywords that anchor assignments and flags: the value after ``<name ending in a word> = `` is a secret."""

# Matched at a secret word: the rest of the word, a short suffix (``password_b64``), a separator (``=``, ``:``,
# ``:=``, ``=>``, ``+=``, after an optional closing quote), then a quoted or bare value.
ASSIGNMENT_TAIL: Final = re.compile(
    r"(?i)(?P<word>password|passwd|passphrase|pass|pwd|secret|token|key|auth|signature|sig|credentials?"
    r"|cookie|dsn)"
    r"(?:[_.-]?(?:value|str|string|b64|base64|hex|raw|plain|text|[0-9]{1,2}))?"
    r"(?P<sep>[\"'\]]{0,2}[ \t]*(?::=|=>|\+=|[:=])[ \t]*)"
    r"(?:(?P<q>[\"'`])" + NOT_MARKER + r"(?P<quoted>[^\"'`\n]{1,4096})(?P=q)"
    r"|" + NOT_MARKER + r"(?P<bare>[^\s\"'`,;&}\])<>]{1,4096}))"
)
# Matched at a secret word that ends a flag name (``--token``, ``--api-key``, ``--with-token``): a space or
# ``=``, an optional ``NAME=`` (kept), then the value.
FLAG_TAIL: Final = re.compile(
    r"(?i)(?P<word>password|passwd|passphrase|pass|secret|token|key|bearer)"
    r"(?P<sep>[ =]+)" + NOT_MARKER + r"(?P<name>[A-Za-z_][A-Za-z0-9_]{0,60}=(?![\s\"']))?"
    r"(?:(?P<q>[\"'])" + NOT_MARKER + r"(?P<quoted>[^\"'\n]{1,4096})(?P=q)|" + NOT_MARKER
    + r"(?P<bare>[^\s\"'-][^\s\"']{0,4095}))"
)
FLAG_HEAD: Final = re.compile(r"(?<![A-Za-z0-9-])--?[A-Za-z][A-Za-z-]{0,40}-$|(?<![A-Za-z0-9-])--?$")
"""What stands before a secret word that ends a flag name (checked on the few characters before the word)."""

AWS_SECRET_CANDIDATE: Final = re.compile(r"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
"""A run of exactly 40 base64 characters standing alone: an AWS secret access key when it mixes cases and digits
with a high entropy (checked by the caller). A git SHA (40 lower-case hex digits) never mixes cases; a longer run
(a base64 blob, a hash in base64) is not a key."""
