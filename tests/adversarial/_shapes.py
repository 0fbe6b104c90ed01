"""Secret shapes planted in transcripts: each a line of realistic text and the secret it carries (random, fake).

A secret counts as leaked when any 12-character window of it appears in what ctxscope wrote or sent, so a
partial leak (the half of a password after an ``@``) is caught too.
"""

from __future__ import annotations

import base64
import random
import string
import uuid
from collections.abc import Iterable
from dataclasses import dataclass

_RNG = random.Random(20261123)
_ALNUM = string.ascii_letters + string.digits


def _rand(n: int, alphabet: str = _ALNUM) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(n))


def _hex(n: int) -> str:
    return _rand(n, "0123456789abcdef")


@dataclass(frozen=True)
class Shape:
    name: str
    text: str
    secret: str

    def windows(self, size: int = 12) -> set[str]:
        """Every ``size``-character piece of the secret (the whole secret when shorter)."""
        if len(self.secret) <= size:
            return {self.secret}
        return {self.secret[i : i + size] for i in range(len(self.secret) - size + 1)}


def _shape(name: str, template: str, secret: str) -> Shape:
    return Shape(name, template.format(s=secret), secret)


def _jwt() -> str:
    def part(obj: str) -> str:
        return base64.urlsafe_b64encode(obj.encode()).decode().rstrip("=")

    header = part('{"alg":"HS256","typ":"JWT"}')
    claims = part('{"sub":"' + _hex(12) + '"}')
    return f"{header}.{claims}.{_rand(43)}"


def _pem() -> str:
    body = "\n".join(_rand(64, _ALNUM + "+/") for _ in range(4))
    return f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"


_AWS_SECRET = _rand(40, _ALNUM + "/+")
_MYSQL_PASSWORD = f"{_rand(6)}/{_rand(5)}@{_rand(7)}"

SHAPES: tuple[Shape, ...] = (
    _shape("openai-project-key", "export OPENAI_API_KEY=sk-proj-{s}", _rand(48)),
    _shape("anthropic-key", "ANTHROPIC_API_KEY=sk-ant-api03-{s}", _rand(60)),
    _shape("stripe-live-key", "charge with sk_live_{s} in prod", _rand(32)),
    _shape("huggingface-token", "huggingface-cli login; the token was hf_{s}", _rand(34, string.ascii_letters)),
    _shape("npm-token", "//registry.npmjs.org/:_authToken npm_{s}", _rand(36)),
    _shape("github-pat", "git remote set-url origin https://ghp_{s}@github.com/acme/api", _rand(36)),
    _shape("github-fine-grained", "GH_PAT github_pat_11{s}", _rand(70, _ALNUM + "_")),
    _shape("gitlab-pat", "CI token glpat-{s} expires soon", _rand(20)),
    _shape("slack-bot", "SLACK=xoxb-123456789012-123456789012-{s}", _rand(24)),
    _shape("aws-access-key", "aws_access_key_id AKIA{s}", _rand(16, string.ascii_uppercase + string.digits)),
    _shape("aws-secret-bare", "aws configure set aws_secret_access_key {s}", _AWS_SECRET),
    _shape("google-api-key", "maps key AIza{s}", _rand(35, _ALNUM + "_-")),
    _shape("jwt", "cookie: session={s}; Path=/", _jwt()),
    _shape("private-key", "id_rsa:\n{s}\n", _pem()),
    _shape("bearer-hex-header", "curl -H 'Authorization: Bearer {s}' https://api.internal/v1", _hex(32)),
    _shape("bearer-hex-prose", "the bearer {s} still works", _hex(40)),
    _shape("x-api-key-hex", "X-Api-Key: {s}", _hex(32)),
    _shape("password-uuid", "login password={s} for the staging db", str(uuid.UUID(int=_RNG.getrandbits(128)))),
    _shape("datadog-env", "DD_API_KEY={s} datadog-agent run", _hex(32)),
    _shape("cli-token-flag", "deploy --token {s} --env prod", _hex(32)),
    _shape("cli-token-name-value", "mytool --token GITHUB_TOKEN={s} sync", _hex(24)),
    _shape("postgres-url", "DATABASE_URL=postgres://app:{s}@db.internal:5432/app", _rand(20)),
    _shape("redis-empty-user", "REDIS_URL=redis://:{s}@cache.internal:6379/0", _rand(18)),
    _shape("mysql-url-slash-at", "mysql://root:{s}@db.internal:3306/shop", _MYSQL_PASSWORD),
    _shape("key-glued-to-word", "exportedtokenghp_{s} was rotated", _rand(36)),
    _shape("curl-user", "curl -u admin:{s} https://jenkins.internal/api", _rand(16)),
    _shape("mysql-p-flag", "mysql -u root -p{s} shop", _rand(14)),
    _shape("netrc", "machine api.internal login deploy password {s}", _rand(18)),
    _shape("sendgrid", "SENDGRID=SG.{s}", f"{_rand(22)}.{_rand(43)}"),
    _shape("query-access-token", "GET https://cb.example.com/done?access_token={s}&state=1", _hex(40)),
    _shape("json-client-secret", '{{"client_id": "web", "client_secret": "{s}"}}', _rand(32)),
    _shape("aws-signature", "https://b.s3.amazonaws.com/o?X-Amz-Signature={s}&X-Amz-Date=20260101", _hex(64)),
)

CONTEXT_ONLY: tuple[Shape, ...] = tuple(
    s for s in SHAPES
    if s.name in ("bearer-hex-header", "bearer-hex-prose", "x-api-key-hex", "password-uuid", "datadog-env",
                  "cli-token-flag", "cli-token-name-value", "query-access-token", "aws-signature")
)
"""Hex- or UUID-shaped secrets that only the text before them marks as secrets."""


def leaks(data: bytes | str, shapes: Iterable[Shape] = SHAPES) -> list[str]:
    """The names of the shapes any piece of whose secret appears in ``data``."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return [s.name for s in shapes if any(w in text for w in s.windows())]
