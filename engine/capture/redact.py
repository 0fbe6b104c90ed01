"""Secret redaction for anything derived from a transcript: replace each secret with ``[REDACTED:<kind>]``.

The shapes live in :mod:`engine.capture.secret_patterns` (see ``docs/redaction.md``): vendor-prefixed tokens,
credentials recognised by their context (headers, URLs, CLI flags, ``name = value`` assignments) and a few bare
shapes (private keys, JWTs, AWS secret keys by entropy). Hex ids, UUIDs and git SHAs match none of these on
their own, so identifiers survive; a secret that only its context marks (a hex token after ``Bearer``) is found
only while that context is still there — which is why every derivation redacts its *input* before extracting
anything from it.

Each rule is anchored on a literal keyword found with ``str.find``; candidate spans from all rules are merged
(earliest first, then longest) and replaced in one pass. Redaction is idempotent: an existing
``[REDACTED:…]`` marker is never redacted again.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final

from engine.capture.secret_patterns import (
    ASSIGNMENT_TAIL,
    AWS_SECRET_CANDIDATE,
    FLAG_HEAD,
    FLAG_TAIL,
    RULES,
    SECRET_WORDS,
    Rule,
)

__all__ = ["REDACTED_RE", "redact_obj", "redact_secrets"]

REDACTED_RE: Final = re.compile(r"\[REDACTED:[a-z0-9-]+\]")
"""What a replaced secret looks like."""

_MARKER_HEAD: Final = "[REDACTED:"
_PROSE_VALUE: Final = re.compile(r"[a-z]+|[0-9]{1,6}|true|false|null|none|yes|no|on|off", re.IGNORECASE)
_PLACEHOLDER: Final = re.compile(
    r"\$\{[^}]*\}|\$\([^)]*\)|\$[A-Za-z_][A-Za-z0-9_]*|\{\{.*\}\}|<[^<>]*>|%\([a-z_]+\)s|\*+|x{3,}|X{3,}"
    r"|.{0,12}(?:\.\.\.|…)"
)
# Code, not a credential: ``apiKey = getKey(model)``, ``token = args[++i]``, ``pwd = process.cwd()``.
_CODE_VALUE: Final = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*[(\[]?")
_CODE_CALL: Final = re.compile(r"[A-Za-z_$][A-Za-z0-9_$.]*[(\[]")
_CODE_WORDS: Final = frozenset({
    "await", "new", "this", "self", "null", "undefined", "none", "nil", "true", "false", "os", "process", "env",
    "config", "options", "opts", "args", "argv", "params", "input", "data", "result", "value", "values", "get",
    "getenv", "require", "import", "function", "lambda", "str", "string", "int", "bool", "optional", "any",
})
_WEAK_WORDS: Final = frozenset({"key", "sig", "signature", "auth", "cookie", "dsn", "pass", "pwd"})
"""Words that end ordinary names too (``primary_key``, ``bypass``, ``PWD``): their value must look random."""
_STRONG_BEFORE_KEY: Final = re.compile(
    r"(api|access|private|secret|signing|encryption|master|client|session|app|account|license|service|auth"
    r"|admin|root|db|database|storage|subscription|consumer|webhook)[_.-]?$"
)
_GENERIC_KINDS: Final = frozenset({"key", "token", "secret", "password", "api-key", "signature", "auth"})
"""Kinds named after an assignment's word: a vendor kind found at the same span is more telling."""
_PATH_START: Final = ("/", "~", "./", "../")
_AWS_CONTEXT: Final = ("aws", "secret", "credential", "akia", "asia")


def _entropy(text: str) -> float:
    total = len(text)
    return -sum(n / total * math.log2(n / total) for n in Counter(text).values())


def _looks_random(value: str) -> bool:
    """A value that could be a credential: not a path or URL, six characters or more, mixing kinds of characters."""
    if len(value) < 6 or value.startswith(_PATH_START) or "://" in value:
        return False
    kinds = (any(c.islower() for c in value) + any(c.isupper() for c in value) + any(c.isdigit() for c in value)
             + any(not c.isalnum() and c not in "_-. " for c in value))
    return kinds >= 2 and not value.replace("_", "").replace("-", "").replace(".", "").isalpha()


def _word_kind(word: str, before: str) -> tuple[str, bool]:
    """``(kind, weak)`` of a secret word, given the lower-case characters of the name just before it."""
    word = word.lower().rstrip("s") if word.lower() not in ("pass",) else "pass"
    if word.startswith(("pass", "pwd")):
        return "password", word in _WEAK_WORDS and not before.endswith(("db_", "db-", "db", "_", "-", "."))
    if word == "key":
        strong = _STRONG_BEFORE_KEY.search(before)
        if strong:
            prefix = strong.group(1)
            return ("api-key" if prefix == "api" else f"{prefix}-key"), False
        return "key", True
    if word == "secret" or word == "token" or word == "credential":
        return word, False
    if word in ("sig", "signature"):
        return "signature", True
    return word, True  # auth, cookie, dsn


def _not_a_value(value: str, quoted: bool, text: str, end: int) -> bool:
    """A placeholder (``${TOKEN}``, ``<key>``, ``sk-ant-...``), a marker, or — unquoted — a code expression."""
    stripped = value.strip()
    if _PLACEHOLDER.fullmatch(stripped) or REDACTED_RE.fullmatch(stripped) or "${" in value or "{{" in value:
        return True
    if quoted:
        return False
    if _CODE_CALL.match(value):
        return True
    if not _CODE_VALUE.fullmatch(value) or any(c.isdigit() for c in value):
        return False
    camel = any(a.islower() and b.isupper() for a, b in itertools.pairwise(value))
    follows = text[end : end + 1]
    return value.endswith(("(", "[")) or "." in value or camel or follows in ("(", "[", ".") \
        or value.lower() in _CODE_WORDS


def _assignment(text: str, hit: int, lowered: str) -> tuple[int, int, str] | None:
    m = ASSIGNMENT_TAIL.match(text, hit)
    if m is None:
        return None
    before = lowered[max(0, hit - 16) : hit]
    kind, weak = _word_kind(m["word"], before)
    value = m["quoted"] if m["quoted"] is not None else m["bare"]
    if _not_a_value(value, m["quoted"] is not None, text, m.end()):
        return None
    if weak and not _looks_random(value):
        return None
    if m["quoted"] is not None:
        return m.start("quoted"), m.end("quoted"), kind
    # "the token: it is…", "secret: true", "max_token=512": prose and settings, not credentials.
    prose_colon = "=" not in m["sep"] and not m["sep"].startswith(("'", '"'))
    if kind != "password" and _PROSE_VALUE.fullmatch(value) and (prose_colon or value.isdigit()):
        return None
    return m.start("bare"), m.end("bare"), kind


def _flag(text: str, hit: int, lowered: str) -> tuple[int, int, str] | None:
    if not FLAG_HEAD.search(lowered, max(0, hit - 42), hit):
        return None
    m = FLAG_TAIL.match(text, hit)
    if m is None:
        return None
    word = m["word"].lower()
    kind = "password" if word.startswith("pass") else ("bearer-token" if word == "bearer" else
                                                       _word_kind(word, lowered[max(0, hit - 16) : hit])[0])
    group = "quoted" if m["quoted"] is not None else "bare"
    if _not_a_value(m[group], group == "quoted", text, m.end()):
        return None
    return m.start(group), m.end(group), kind


def _trie_pattern(words: list[str]) -> str:
    """A regex matching any of ``words`` as a trie (``re`` tries alternatives one by one; a trie keeps that short)."""
    tree: dict[str, Any] = {}
    for word in words:
        node = tree
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def emit(node: dict[str, Any]) -> str:
        branches = [re.escape(char) + emit(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return emit(tree)


_HANDLERS: Final[dict[str, list[tuple[Rule | None, str]]]] = {}
"""Lower-case keyword → the rules anchored on it (with the keyword's exact case), ``None`` for secret words."""
for _rule in RULES:
    for _keyword in _rule.keywords:
        _HANDLERS.setdefault(_keyword.lower(), []).append((_rule, _keyword))
for _word in SECRET_WORDS:
    _HANDLERS.setdefault(_word, []).append((None, _word))
_KEYWORDS: Final = sorted(_HANDLERS)
_PRIORITY: Final = {rule.kind: index for index, rule in reversed(list(enumerate(RULES)))}
"""At the same span, the kind of the earlier (more specific) rule wins: ``sk-ant-`` before ``sk-``."""
_PREFIXES: Final = {k: [w for w in _KEYWORDS if k.startswith(w)] for k in _KEYWORDS}
# No lookahead around the trie: a pattern that starts with a plain branch lets ``re`` skip every position whose
# character starts no keyword, which is most of them; the loop below restarts one character after each hit so
# overlapping keywords are all found.
_ANY_KEYWORD: Final = re.compile(_trie_pattern(_KEYWORDS))


def _keyword_hits(lowered: str) -> Iterator[tuple[int, str]]:
    search = _ANY_KEYWORD.search
    m = search(lowered)
    while m is not None:
        for keyword in _PREFIXES[m.group()]:
            yield m.start(), keyword
        m = search(lowered, m.start() + 1)


def _inside_marker(text: str, pos: int) -> bool:
    start = text.rfind(_MARKER_HEAD, max(0, pos - 40), pos + 1)
    return start >= 0 and "]" not in text[start:pos]


def _rule_span(rule: Rule, exact: str, text: str, hit: int) -> tuple[int, int, str] | None:
    if rule.case_sensitive and not text.startswith(exact, hit):
        return None
    start = hit - rule.back
    if rule.digits_back:
        while start > 0 and text[start - 1].isdigit():
            start -= 1
    m = rule.pattern.match(text, start) if start >= 0 else None
    if m is None:
        return None
    group = "secret" if "secret" in rule.pattern.groupindex else 0
    scheme = m.groupdict().get("scheme") or ""
    return m.start(group), m.end(group), "bearer-token" if scheme.lower().startswith("bearer") else rule.kind


def _aws_spans(text: str, lowered: str) -> Iterator[tuple[int, int, str]]:
    # Context-free, since a bare key pasted alone leaked; the scan costs ~11 ms per MB of text (docs/checkpoints.md,
    # Redaction). Without a word that speaks of AWS or secrets, a run must also look unlike a CamelCase name: a
    # ``/`` or ``+``, or upper-case letters not followed by a lower-case one.
    context = any(word in lowered for word in _AWS_CONTEXT)
    for m in AWS_SECRET_CANDIDATE.finditer(text):
        value = m.group(0)
        mixed = any(c.islower() for c in value) and any(c.isupper() for c in value) and any(c.isdigit() for c in value)
        # Random base64 of 30 bytes scores ~4.7 bits per character; paths and words stay well below 4.3.
        if not mixed or _entropy(value) < 4.3 or "/" in (value[0], value[-1]):
            continue
        if context or "/" in value or "+" in value or _upper_not_before_lower(value) >= 3:
            yield m.start(), m.end(), "aws-secret-key"


def _upper_not_before_lower(value: str) -> int:
    """How often an upper-case letter is followed by something else than a lower-case one: about 9 times in 40
    random base64 characters, rarely in a CamelCase name (``ParseHttpHeaderValue``)."""
    return sum(1 for a, b in itertools.pairwise(value) if a.isupper() and not b.islower())


def _candidates(text: str, lowered: str) -> Iterator[tuple[int, int, str]]:
    for hit, keyword in _keyword_hits(lowered):
        for rule, exact in _HANDLERS[keyword]:
            if rule is not None:
                found = _rule_span(rule, exact, text, hit)
            elif _inside_marker(text, hit):
                found = None
            else:
                found = _flag(text, hit, lowered) or (_assignment(text, hit, lowered) if keyword != "bearer" else None)
            if found is not None:
                yield found
    yield from _aws_spans(text, lowered)


def redact_secrets(text: str) -> str:
    """``text`` with every secret-shaped substring replaced by ``[REDACTED:<kind>]``."""
    if len(text) < 6:
        return text
    if len(text) < _MEMO_MIN:
        return _redact(text)
    with _MEMO_LOCK:
        cached = _MEMO.get(text)
    if cached is None:
        cached = _redact(text)
        with _MEMO_LOCK:
            _MEMO[text] = cached
            _MEMO.move_to_end(text)
            global _memo_chars
            _memo_chars += len(text)
            while _memo_chars > _MEMO_CHARS and _MEMO:
                old, _ = _MEMO.popitem(last=False)
                _memo_chars -= len(old)
    return cached


def _redact(text: str) -> str:
    lowered = text.lower()
    if _ANY_KEYWORD.search(lowered) is None and AWS_SECRET_CANDIDATE.search(text) is None:
        return text
    if len(lowered) != len(text):  # a few non-ASCII letters lower-case to two characters: keep offsets aligned
        lowered = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    spans = sorted((span for span in _candidates(text, lowered) if span[1] > span[0] and not _marker_at(text, span[0])),
                   key=lambda span: (span[0], -span[1], span[2] in _GENERIC_KINDS, _PRIORITY.get(span[2], 0)))
    if not spans:
        return text
    out: list[str] = []
    pos = 0
    for start, end, kind in spans:
        if start < pos:
            continue  # overlaps an earlier (or longer, at the same start) secret already replaced
        out += [text[pos:start], f"[REDACTED:{kind}]"]
        pos = end
    out.append(text[pos:])
    return "".join(out)


_MEMO: Final[OrderedDict[str, str]] = OrderedDict()
"""Large texts already redacted: a live preview plans the same span again after every change."""
_MEMO_LOCK: Final = threading.Lock()
_MEMO_MIN: Final = 32
_MEMO_CHARS: Final = 32 << 20
_memo_chars = 0


def _marker_at(text: str, pos: int) -> bool:
    return text.startswith(_MARKER_HEAD, pos) or _inside_marker(text, pos)


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
