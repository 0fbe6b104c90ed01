"""Secret redaction for anything derived from a transcript: ``[REDACTED:<kind>]`` (docs/checkpoints.md, Redaction).

Shapes are matched, not entropy: known key prefixes (with word boundaries and, for ``sk-``, a digit in the
body so kebab-case words survive), private key blocks, JWTs, ``Authorization``/``Bearer`` credentials, URL
passwords, and ``name=value`` / ``name: value`` assignments whose name ends in a secret-ish word
(``password``, ``api_key``, ``token``, …). Hex ids, UUIDs and git SHAs match none of these on their own.
Redaction is idempotent: an existing ``[REDACTED:…]`` marker is never redacted again.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from typing import Any, Final

__all__ = ["REDACTED_RE", "redact_obj", "redact_secrets"]

REDACTED_RE: Final = re.compile(r"\[REDACTED:[a-z0-9-]+\]")
"""What a replaced secret looks like."""

_NOT_MARKER = r"(?!\[REDACTED)"
_TOKEN_EDGE = r"(?<![A-Za-z0-9_-])"
_TOKEN_END = r"(?![A-Za-z0-9_-])"

# Order matters: specific shapes first, so a later generic rule sees the marker instead of the secret.
_SHAPES: Final[tuple[tuple[str, re.Pattern[str]], ...]] = (
    (
        "private-key",
        re.compile(
            r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:.*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s:,.-]*)",
            re.DOTALL,
        ),
    ),
    ("anthropic-key", re.compile(_TOKEN_EDGE + r"sk-ant-[A-Za-z0-9_-]{20,}")),
    ("openai-key", re.compile(_TOKEN_EDGE + r"sk-(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{20,}")),
    ("aws-access-key", re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])")),
    ("github-token", re.compile(_TOKEN_EDGE + r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})")),
    ("slack-token", re.compile(_TOKEN_EDGE + r"xox[abposr]-[A-Za-z0-9-]{10,}")),
    ("google-api-key", re.compile(_TOKEN_EDGE + r"AIza[0-9A-Za-z_-]{35}" + _TOKEN_END)),
    ("gitlab-token", re.compile(_TOKEN_EDGE + r"glpat-[A-Za-z0-9_-]{20,}")),
    ("jwt", re.compile(_TOKEN_EDGE + r"eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*")),
)

# Keeps the header name and scheme; replaces the credential.
_AUTHORIZATION: Final = re.compile(
    r"(?i)(\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?(?:(bearer|basic|token|bot|digest)\s+)?+)"
    + _NOT_MARKER
    + r"([^\s\"',;]{6,})"
)
# Outside a header, only token-like strings after "bearer" (long, with a digit) so prose survives.
_BEARER: Final = re.compile(r"(?i)(\bbearer\s+)" + _NOT_MARKER + r"(?=[A-Za-z0-9._~+/=-]*[0-9])[A-Za-z0-9._~+/=-]{16,}")
_URL_PASSWORD: Final = re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://[^\s/:@\[\]]+:)" + _NOT_MARKER + r"[^\s/@]+(@)")
_SECRET_WORD = r"(?P<word>password|passwd|passphrase|secret|api[_-]?key|access[_-]?key|private[_-]?key|token)"
_ASSIGNMENT: Final = re.compile(
    r"(?i)(?<![A-Za-z0-9])(?P<name>[A-Za-z0-9_.-]*?" + _SECRET_WORD + r")"
    r"(?P<sep>[\"']?[ \t]*[:=][ \t]*)"
    r"(?:(?P<q>[\"'])" + _NOT_MARKER + r"(?P<quoted>[^\"'\n]+)(?P=q)"
    r"|" + _NOT_MARKER + r"(?P<bare>[^\s\"',;&}\])]+))"
)
_CLI_FLAG: Final = re.compile(
    r"(?i)(?<![A-Za-z0-9-])(?P<flag>--?(?:password|passwd|passphrase|secret|api-key|access-key|token)[ =])"
    + _NOT_MARKER
    + r"(?P<q>[\"']?)(?P<value>[^\s\"']+)"
)
# Every rule below needs one of these substrings; most text has none, and one search beats a dozen subs.
_MAYBE_SECRET: Final = re.compile(
    r"(?i)sk-|a[ks]ia|gh[pousr]_|github_pat_|xox|aiza|glpat-|eyj|private key|authorization|bearer|://"
    r"|pass|secret|key|token"
)
_PROSE_VALUE: Final = re.compile(r"[a-z]+|[0-9]{1,6}|true|false|null|none")


def _kind(word: str) -> str:
    word = word.lower().lstrip("-")
    if word.startswith("pass"):
        return "password"
    if word.startswith("api"):
        return "api-key"
    if word.startswith(("access", "private")):
        return word[:-3].rstrip("_-") + "-key"
    return word  # "secret" or "token"


def _replace_assignment(m: re.Match[str]) -> str:
    kind = _kind(m["word"])
    head = f"{m['name']}{m['sep']}"
    if m["quoted"] is not None:
        return f"{head}{m['q']}[REDACTED:{kind}]{m['q']}"
    value = m["bare"]
    # "the token: it is…", "secret: true", "max_token=512": prose and settings, not credentials.
    prose_colon = "=" not in m["sep"] and not m["sep"].startswith(("'", '"'))
    if kind != "password" and _PROSE_VALUE.fullmatch(value) and (prose_colon or value.isdigit()):
        return m.group(0)
    return f"{head}[REDACTED:{kind}]"


def _replace_authorization(m: re.Match[str]) -> str:
    kind = "bearer-token" if (m.group(2) or "").lower() == "bearer" else "authorization"
    return f"{m.group(1)}[REDACTED:{kind}]"


def redact_secrets(text: str) -> str:
    """``text`` with every secret-shaped substring replaced by ``[REDACTED:<kind>]``."""
    if not _MAYBE_SECRET.search(text):
        return text
    for kind, pattern in _SHAPES:
        text = pattern.sub(f"[REDACTED:{kind}]", text)
    text = _AUTHORIZATION.sub(_replace_authorization, text)
    text = _BEARER.sub(r"\1[REDACTED:bearer-token]", text)
    text = _URL_PASSWORD.sub(r"\1[REDACTED:url-password]\2", text)
    text = _CLI_FLAG.sub(lambda m: f"{m['flag']}{m['q']}[REDACTED:{_kind(m['flag'][:-1])}]", text)
    return _ASSIGNMENT.sub(_replace_assignment, text)


def redact_obj(obj: Any, redact: Callable[[str], str] = redact_secrets) -> Any:
    """A copy of ``obj`` with every string redacted: dict values, list/tuple items, dataclass fields.

    Mapping keys are kept as they are (they name things; redacting them could merge entries). Other values
    are returned unchanged.
    """
    if isinstance(obj, str):
        return redact(obj)
    if isinstance(obj, Mapping):
        return {key: redact_obj(value, redact) for key, value in obj.items()}
    if isinstance(obj, list):
        return [redact_obj(item, redact) for item in obj]
    if isinstance(obj, tuple):
        items = [redact_obj(item, redact) for item in obj]
        return type(obj)(*items) if hasattr(obj, "_fields") else tuple(items)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        changes = {f.name: redact_obj(getattr(obj, f.name), redact) for f in dataclasses.fields(obj) if f.init}
        return dataclasses.replace(obj, **changes)
    return obj
