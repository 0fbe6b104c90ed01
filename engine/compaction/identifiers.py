"""Exact identifiers for a compaction summary: whole tokens, kept verbatim, never fragments, never generic.

A token is what stands between whitespace (or inside one pair of backticks), stripped of the punctuation that
wraps it in prose. It is kept when it is one of: a URL; a path (``/abs``, ``~/x``, ``./x``, ``a/b/c``, a relative
path to a file with an extension, ``C:\\x``, segments such as ``[locale]`` included); a file name with a known
extension, or a dot-file (``.env.example``, ``.githooks``); a hex id (git SHA, hash, UUID) with both digits and
letters; ``host:port`` (a host with a letter in it, or an IPv4 address: ``00:05`` is a time); a version
(``v1.2``, ``1.2.3``, ``pkg@1.2.3``); a ticket or id with a separator (``JIRA-12``, ``cp_012``); a number of six
digits or more right after a word that names an id (``order 246813579``, ``PR 1234567``); a package-style name in
kebab case with a digit or at least three parts and no small word between them (``gemini-2.5-pro``,
``diff-match-patch``, not ``step-by-step``); a symbol (``snake_case``, ``camelCase``, ``PascalCase``,
``dotted.name``, ``call()``); a command-line flag (``--dry-run``); another repository's issue (``oven-sh/bun#24687``,
also as a Markdown link's text, whose target is not read); or anything written in backticks that is a
name (``refactor``) or a command (``npm run check``: at most eight words led by a lower-case program name, without
code punctuation), up to 120 characters.

What a continuation cannot use is skipped: a bare number (a count, a timestamp, a byte size), a token that opens
with ``:`` (the tail of a ``key:value`` pair), a literal (``true``, ``null``), and generic tokens that identify
nothing in particular (``/dev/null``, ``/tmp``, ``/usr/bin/env``). The caller passes text that was already
redacted and never cut: a token is only ever taken from text as written, so a truncated line can never yield a
fragment.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Final

__all__ = [
    "GENERIC_IDENTIFIERS",
    "OPENCLAW_AUDIT_IDENTIFIERS",
    "OPENCLAW_AUDIT_MESSAGES",
    "audit_identifiers",
    "extract_identifiers",
    "is_identifier",
    "is_location",
    "minimal_identifiers",
    "reported_commits",
    "state_commands",
]

GENERIC_IDENTIFIERS: Final = frozenset({
    "/", "~", ".", "..", "./", "../", "~/", "/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty",
    "/dev/zero", "/dev/urandom", "/tmp", "/tmp/", "/var/tmp", "/bin/sh", "/bin/bash", "/bin/zsh", "/usr/bin/env",
    "/usr/bin", "/usr/local/bin", "/usr/local", "/usr", "/etc", "/home", "/root", "/var", "/opt", "localhost",
    "http://", "https://", "e.g.", "i.e.", "etc.", "vs.", "N/A", "n/a", "and/or", "I/O", "NO_REPLY", "HEARTBEAT_OK",
    # Product and company names look like PascalCase symbols but name nothing in the session.
    "OpenAI", "GitHub", "GitLab", "WhatsApp", "iMessage", "iPhone", "iPad", "macOS", "iOS", "PowerShell",
    "JavaScript", "TypeScript", "PostgreSQL", "MySQL", "MongoDB", "YouTube", "LinkedIn", "MiniMax", "DeepSeek",
    "OpenClaw", "ClawdBot", "Clawdbot", "SaaS", "PaaS", "IaaS", "DevOps", "FastAPI", "GraphQL", "WebSocket", "NodeJS",
    "LaTeX", "ChatGPT", "OAuth", "OpenRouter", "TikTok", "PayPal", "DigitalOcean", "CloudFlare", "VSCode", "JetBrains",
    # Products spelled like a file name (``Node.js v23.4.0`` in an error trace): the ``.js`` is no file here.
    "Node.js", "Vue.js", "Next.js", "Nuxt.js", "React.js", "Express.js", "Three.js", "Chart.js", "D3.js", "Ember.js",
    "Backbone.js", "Angular.js", "AngularJS", "Socket.io",
    # Literals name a value, not a thing the session works on.
    "true", "false", "True", "False", "TRUE", "FALSE", "null", "NULL", "None", "none", "undefined", "NaN", "nil",
})
"""Tokens that look like identifiers but name nothing specific to a session."""

_MAX_CHARS: Final = 200
_MAX_BACKTICK: Final = 120
_EXTENSIONS: Final = frozenset({
    "py", "pyi", "ts", "tsx", "js", "jsx", "mjs", "cjs", "json", "jsonl", "md", "mdx", "yaml", "yml", "toml",
    "lua", "rs", "go", "java", "kt", "kts", "c", "h", "cc", "cpp", "hpp", "cs", "rb", "php", "sh", "bash", "zsh",
    "fish", "ps1", "sql", "html", "htm", "css", "scss", "sass", "less", "txt", "log", "lock", "ini", "cfg", "conf",
    "env", "xml", "csv", "tsv", "proto", "swift", "ex", "exs", "erl", "vue", "svelte", "dart", "scala", "clj", "r",
    "jl", "pl", "pm", "tf", "tfvars", "gradle", "properties", "dockerfile", "makefile", "mk", "cmake", "nix",
    "ipynb", "png", "jpg", "jpeg", "gif", "svg", "webp", "pdf", "zip", "tar", "gz", "tgz", "whl", "wasm", "so",
    "dll", "dylib", "exe", "bin", "db", "sqlite", "sqlite3", "parquet", "pem", "crt",
    # Media and documents a session works on (a video to transcribe, its subtitles, a slide deck).
    "mp4", "mov", "mkv", "webm", "avi", "mp3", "wav", "m4a", "flac", "ogg", "srt", "vtt", "ico", "bmp", "tif", "tiff",
    "woff", "woff2", "ttf", "otf", "docx", "xlsx", "pptx", "odt", "epub", "rtf", "bak", "patch", "diff",
})
_BACKTICKS: Final = re.compile(r"`([^`\n]+)`")
_FENCE_LINE: Final = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*([\w+-]*)[^\n`]*$", re.MULTILINE)
"""A code fence line, opening (with its language, if any) or closing."""
_SHELL_LANGUAGES: Final = frozenset({"", "bash", "sh", "shell", "zsh", "console", "terminal", "powershell", "cmd"})
"""A fenced block with no language or a shell's: its short lines are the commands to run."""
_SHELL_LINES: Final = 5
"""Commands read from the head of one fenced block (a long block is a script or output, not commands)."""
_LEAD: Final = "([{<\"'*“‘«`"
_TRAIL: Final = ")]}>\"',;:.!?*”’»`"
_URL: Final = re.compile(r"^(?:https?|wss?|ftp|file|git|ssh|s3|gs|redis|postgres(?:ql)?|mysql|mongodb)://[^\s]+$", re.I)
_LINE_REF: Final = re.compile(r":\d+(?::\d+)?$")
"""A compiler's or grep's line (and column) after a file: ``src/a.ts:131``."""
_WINDOWS_PATH: Final = re.compile(r"^[A-Za-z]:\\[\w\\. -]+$")
_PATH: Final = re.compile(r"^(?:~|\.{1,2}|@)?/?[\w@.+~\[\]-]+(?:/[\w@.+~\[\]-]*)+$")
_FILE: Final = re.compile(r"^[\w-][\w.-]*\.([A-Za-z0-9]{1,11})$")
_HEX: Final = re.compile(r"^(?=[0-9a-fA-F-]*\d)(?=[0-9a-fA-F-]*[a-fA-F])[0-9a-fA-F]{7,}(?:-[0-9a-fA-F]{4,})*$")
_HOST_PORT: Final = re.compile(
    r"^(?:[A-Za-z0-9][\w.-]*[A-Za-z][\w.-]*|[A-Za-z][\w.-]*|\d{1,3}(?:\.\d{1,3}){3}):\d{2,5}$"
)
_VERSION: Final = re.compile(
    r"^(?:v\d+(?:\.\d+)+|\d+\.\d+\.\d+)(?:[-+][\w.]+)?$|^[\w@/.-]+(?:@|==|>=|<=|~=)v?\d+(?:\.\d+)+[\w.+-]*$"
)
_TICKET: Final = re.compile(r"^(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[A-Za-z][A-Za-z0-9]*(?:[_-][A-Za-z0-9]+)+$")
_NUMBER: Final = re.compile(r"^\d{6,}$")
_ID_NOUNS: Final = frozenset({
    "id", "ids", "order", "orders", "ticket", "issue", "issues", "pr", "pull", "build", "job", "run", "pid",
    "account", "invoice", "case", "incident", "request", "transaction", "commit", "record", "user", "customer",
    "merchant", "project", "item", "no", "no.", "number", "ref", "reference",
})
"""Words after which a bare number of six digits or more is an id (``order 246813579``), not a count."""
_DOTFILE: Final = re.compile(r"^\.[a-z][a-z0-9_-]*(?:\.[a-z0-9_-]+)*$")
_KEBAB: Final = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9][a-z0-9.]*)+$")
_SMALL_WORDS: Final = frozenset({
    "a", "an", "the", "to", "of", "by", "in", "on", "for", "and", "or", "at", "as", "with", "from", "per", "vs",
    "off", "up", "out", "over", "down", "is", "it",
})
"""Words that make a hyphenated run prose (``end-to-end``, ``out-of-the-box``), not a package name."""
_SNAKE: Final = re.compile(r"^_{0,2}[A-Za-z][A-Za-z0-9]*(?:_+[A-Za-z0-9]+)+_{0,2}(?:\(\))?$")
_CAMEL: Final = re.compile(r"^_?(?:[a-z]+[A-Z]|[A-Z][a-z0-9]+[A-Z])[A-Za-z0-9]*(?:\(\))?$")
_DOTTED: Final = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+(?:\(\))?$")
_CALL: Final = re.compile(r"^[A-Za-z_$][\w$.]*\(\)$")
_WORD: Final = re.compile(r"^[A-Za-z][\w-]*$")
_SLASHED_NAME: Final = re.compile(r"^(?:/|~/|\./|\.)?[A-Za-z_][\w.@+-]*(?:/[\w.@+{}-]+)*/?$")
"""A name in backticks with a slash: a directory (``request_queue/``), a branch (``feature/mcp-logging``), a file
of any extension (``checkpoints/best.pth``), a slash command (``/copy``)."""
_CODE_PUNCTUATION: Final = re.compile(r"[(){}\[\];=\"'`]|\+ |, ")
_COMMAND_HEAD: Final = re.compile(r"^[a-z][\w.-]*$")
_FLAG: Final = re.compile(r"^--[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
_CHAT_REFERENCE: Final = re.compile(r"^#(?:file|folder):(?=\S)")
"""VS Code's chat attaches a file by ``#file:README.md``: the name after the prefix is the file the user means
(docs/compaction.md, Retention on real sessions, round 3)."""


_LINK: Final = re.compile(r"\[([^\[\]\n]{1,200})\]\([^()\s]{1,500}\)")
"""A Markdown link: its text is what the agent named for the reader (``.github/workflows/deploy.yml:61``,
``oven-sh/bun#24687``); its target is read no further (docs/compaction.md, Retention round 4)."""
_ISSUE_REFERENCE: Final = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+#\d+$")
"""GitHub's short reference to an issue or pull request of another repository (``oven-sh/bun#24687``)."""


def _strip(token: str) -> str:
    """The token without the punctuation prose wraps it in (a trailing ``()`` of a call is kept)."""
    token = token.lstrip(_LEAD)
    while token and token[-1] in _TRAIL:
        if token.endswith("()") and len(token) > 2:
            return token
        token = token[:-1]
    if token.count("(") < token.count(")") and token.endswith(")"):
        token = token[:-1]
    if token.endswith("(") and not token.endswith("()"):
        token = token[:-1]
    return token


def _is_kebab(token: str) -> bool:
    """A package-style name (``diff-match-patch``, ``gemini-2.5-pro``): two-part prose compounds (``real-time``)
    and runs around small words (``step-by-step``) are not."""
    if not _KEBAB.match(token) or token.endswith("."):
        return False
    parts = token.split("-")
    if any(part in _SMALL_WORDS for part in parts):
        return False
    return len(parts) >= 3 or (any(c.isdigit() for c in token) and any(c.isalpha() for c in parts[0] + parts[-1]))


def _is_path(token: str) -> bool:
    if not _PATH.match(token) or not any(c.isalpha() for c in token):
        return False
    if token.startswith(("/", "~/", "./", "../", "@")):
        return True
    last = token.rstrip("/").rsplit("/", 1)[-1]
    return token.count("/") >= 2 or _is_file(last)


def is_identifier(token: str) -> bool:
    """Whether a stripped bare token (not from backticks) is worth keeping verbatim."""
    if len(token) < 3 or len(token) > _MAX_CHARS or token in GENERIC_IDENTIFIERS:
        return False
    if _URL.match(token):
        return token.split("://", 1)[1] != ""
    if _WINDOWS_PATH.match(token) or _is_path(token) or _is_file(token):
        return True
    line_ref = _LINE_REF.search(token)
    if line_ref and (_is_path(token[:line_ref.start()]) or _is_file(token[:line_ref.start()])):
        return True
    if _VERSION.match(token) or _HEX.match(token) or _HOST_PORT.match(token) or _is_kebab(token):
        return True
    if _FLAG.match(token) or _TICKET.match(token) or _SNAKE.match(token) or _CAMEL.match(token):
        return True
    if _CALL.match(token) or _ISSUE_REFERENCE.match(token):
        return True
    if _DOTTED.match(token):
        return all(len(part) >= 2 for part in token.removesuffix("()").split("."))
    return False


def _backtick(span: str) -> str | None:
    """A backtick span worth keeping whole: a name (one token) or a command (words, no code punctuation)."""
    span = span.strip()
    if len(span) < 3 or len(span) > _MAX_BACKTICK or span in GENERIC_IDENTIFIERS or not any(c.isalnum() for c in span):
        return None
    words = span.split()
    if len(words) == 1:
        token = _strip(span)
        if is_identifier(token) or (len(token) >= 4 and _WORD.match(token)):
            return token
        return token if "/" in token and len(token) >= 4 and _SLASHED_NAME.match(token) else None
    if len(words) > 8 or _CODE_PUNCTUATION.search(span) or not _COMMAND_HEAD.match(words[0]):
        return None
    return span


def _is_file(token: str) -> bool:
    if _DOTFILE.match(token) and len(token) >= 4:
        return True
    file = _FILE.match(token)
    return bool(file and file.group(1).lower() in _EXTENSIONS and not token[0].isdigit())


def is_location(token: str) -> bool:
    """Whether a stripped token is a URL, a path or a file name (what a shell command names worth keeping)."""
    return (len(token) >= 3 and token not in GENERIC_IDENTIFIERS
            and bool(_URL.match(token) or _WINDOWS_PATH.match(token) or _is_path(token) or _is_file(token)))


def _shell_blocks(text: str) -> Iterator[str]:
    """The bodies of ``text``'s shell code blocks, fences paired in order: a block's closing fence never opens the
    next one (paired that way, the prose between two ```` ```python ```` blocks was read as commands and the real
    ```` ```bash ```` block after them was lost)."""
    opened: re.Match[str] | None = None
    for fence in _FENCE_LINE.finditer(text):
        if opened is None:
            opened = fence
        elif fence.group(1)[0] == opened.group(1)[0] and len(fence.group(1)) >= len(opened.group(1)) \
                and not fence.group(2):
            if opened.group(2).lower() in _SHELL_LANGUAGES:
                yield text[opened.end() + 1:fence.start()]
            opened = None


def extract_identifiers(texts: Iterable[str], *, locations_only: bool = False) -> list[str]:
    """Identifiers in ``texts`` in order of first appearance, each once (see the module docstring).

    ``locations_only`` keeps URLs and paths only (for shell commands, whose other tokens are flags and words).
    """
    accept = is_location if locations_only else is_identifier
    seen: set[str] = set()
    found: list[str] = []

    def add(item: str) -> None:
        if item not in seen:
            seen.add(item)
            found.append(item)

    for text in texts:
        if not text:
            continue
        rest = text
        if "```" in text and not locations_only:
            for block in _shell_blocks(text):
                for line in block.splitlines()[:_SHELL_LINES]:
                    command = _backtick(line.strip().removeprefix("$ "))
                    if command is not None and " " in command:
                        add(command)
        if "`" in text and not locations_only:
            for match in _BACKTICKS.finditer(text):
                span = _backtick(match.group(1))
                if span is not None:
                    add(span)
            rest = _BACKTICKS.sub(" ", text)
        if "](" in rest:
            rest = _LINK.sub(r" \1 ", rest)
        previous = ""
        for raw in rest.split():
            token = _strip(_CHAT_REFERENCE.sub("", _strip(raw)))
            if accept(token) or (not locations_only and _NUMBER.match(token) and previous in _ID_NOUNS):
                add(token)
            previous = raw.lower().rstrip(":#")
    return found


_COMMITTED: Final = re.compile(
    r"^\[(?P<branch>[^\]\s]+)(?: \([^)\n]*\))? (?P<hash>[0-9a-f]{7,40})\] \S"  # git commit: [main 1a2b3c4] subject
    r"|^Commit (?P<aider>[0-9a-f]{7,40}) \S"  # aider's auto-commit line
    r"|^\s+[0-9a-f]{7,40}\.\.\.?(?P<pushed>[0-9a-f]{7,40})\s+\S+ -> (?P<target>\S+)\s*$",  # git push
    re.MULTILINE,
)
_BRANCH: Final = re.compile(r"^[\w.-]+(?:/[\w.-]+)+$")


def reported_commits(output: str) -> list[str]:
    """The commits a tool's output says were just made or pushed (git's ``[branch hash] subject``, aider's ``Commit
    hash subject``, git push's ``old..new  branch -> branch``): each hash, and the branch when it names one
    (``marc/typed-flag-parser``; not ``main``). Only these lines are read: the rest of a tool's output is data."""
    found: list[str] = []
    for match in _COMMITTED.finditer(output):
        commit = match.group("hash") or match.group("aider") or match.group("pushed")
        branch = match.group("branch") or match.group("target") or ""
        found.append(commit)
        if branch and branch not in GENERIC_IDENTIFIERS and (is_identifier(branch) or _BRANCH.match(branch)):
            found.append(branch)
    return list(dict.fromkeys(found))


_STATE_SUBCOMMANDS: Final = frozenset({
    "reset", "revert", "config", "checkout", "switch", "branch", "stash", "rebase", "cherry-pick", "tag", "merge",
    "restore",
})
"""git subcommands that change what no file list shows: the history, the branches, the stash, the config."""
_LISTING: Final = frozenset({"list", "show", "-l", "--list", "-v", "-vv", "-a", "-r", "--get", "--show-current"})
"""The forms of those subcommands that only list or read (``git stash list``, ``git branch -a``)."""
_COMMAND_SEPARATOR: Final = re.compile(r"\s*(?:&&|\|\|?|;|\n)\s*")
_REDIRECTION: Final = re.compile(r"\s+\d?>>?(?:&\d|\s*\S+)")
"""Where a command's output goes (``2>&1``, ``> /dev/null``): how it was run, not what it did."""


def state_commands(command: str) -> list[str]:
    """The git commands in a shell command the agent ran that change the repository's history, branches, stash or
    config (``git reset HEAD~1``, ``git config --global commit.gpgsign false``), each whole: a continuation sees the
    files it changed in the file lists, never these (docs/compaction.md, Retention round 4). Other commands are
    not kept: they read, build or test, and their other tokens are flags and words."""
    found: list[str] = []
    for part in _COMMAND_SEPARATOR.split(command.strip()):
        part = _REDIRECTION.sub("", part)
        words = part.split()
        if len(words) < 2 or words[0] != "git" or words[1] not in _STATE_SUBCOMMANDS or _backtick(part) != part:
            continue
        # ``git stash`` and ``git reset`` change state on their own; the others need an argument that is no listing.
        if (len(words) == 2 and words[1] in ("stash", "reset")) or (len(words) > 2 and words[2] not in _LISTING):
            found.append(part)
    return found


def minimal_identifiers(identifiers: Iterable[str], also_present: str = "") -> list[str]:
    """``identifiers`` without those another one contains, or that ``also_present`` (the rest of the summary)
    already holds verbatim: the summary still contains every one of them, in fewer tokens."""
    items = list(dict.fromkeys(identifiers))
    by_length = sorted(items, key=len, reverse=True)
    kept: list[str] = []
    for item in by_length:
        if any(item in longer for longer in kept) or (also_present and item in also_present):
            continue
        kept.append(item)
    keep = set(kept)
    return [item for item in items if item in keep]


OPENCLAW_AUDIT_IDENTIFIERS: Final = 12
"""How many identifiers OpenClaw's quality audit checks: the first ones of the last summarized messages."""
OPENCLAW_AUDIT_MESSAGES: Final = 10
"""How many of the last summarized messages OpenClaw's audit reads identifiers from."""

# OpenClaw's "opaque identifier" pattern (docs/compaction.md, OpenClaw's quality audit), in three alternatives
# tried left to right at each position: a location (group 1: URL, absolute path of two or more parts, Windows
# path, host:port); a decimal or exponent number, matched only so that its digits are consumed and never taken
# as an identifier; a run of letters, digits, ``_`` and ``-`` holding eight hex digits or six digits (group 2).
_OPAQUE: Final = re.compile(
    r"(https?://\S+|(?<![A-Za-z0-9._-])/[\w.-]{2,}(?:/[\w.-]+)+|[A-Za-z]:\\[\w\\.-]+"
    r"|(?<![A-Za-z0-9._-])[A-Za-z0-9._-]+\.[A-Za-z0-9._/-]+:\d{1,5})"
    r"|(?:(?:(?:\d+\.\d+|\.\d+)(?:[eE][+-]?\d+)?|\d+\.[eE][+-]?\d+|\d+\.?[eE][+-]\d+"
    r"|(?![A-Fa-f0-9]{8,}(?![A-Fa-f0-9]))\d+\.?[eE]\d+)"
    r"(?:(?=[A-Za-z]+(?![A-Za-z0-9]))(?=[A-Za-z]*[G-Zg-z])[A-Za-z]+)?(?![A-Za-z0-9])"
    r"|(?<![A-Za-z0-9_-])(?=[A-Za-z0-9_-]*(?:[A-Fa-f0-9]{8,}|\d{6,}))([A-Za-z0-9_-]+))",
    re.ASCII,  # OpenClaw's \w is ASCII; \S stays any non-space (re.ASCII leaves it alone)
)
_PURE_HEX: Final = re.compile(r"[A-Fa-f0-9]{8,}")
_OPAQUE_LEAD: Final = "(\"'`[{<"
_OPAQUE_TRAIL: Final = ")]\"'`,;:.!?<>"
_TOKEN_STOP: Final = frozenset(" \t\r\n\"'`<>()[]{}")


def _opaque(value: str) -> str:
    value = value.strip().lstrip(_OPAQUE_LEAD).rstrip(_OPAQUE_TRAIL)
    return value.upper() if _PURE_HEX.fullmatch(value) else value


def _token_around(text: str, start: int, end: int) -> str:
    """The whole whitespace- or quote-delimited token of ``text`` that holds ``text[start:end]``."""
    while start > 0 and text[start - 1] not in _TOKEN_STOP:
        start -= 1
    while end < len(text) and text[end] not in _TOKEN_STOP:
        end += 1
    return _strip(text[start:end])


def audit_identifiers(texts: Iterable[str], limit: int = OPENCLAW_AUDIT_IDENTIFIERS) -> list[str]:
    """The whole tokens that hold the identifiers OpenClaw's quality audit will look for in a summary.

    ``texts`` are the text blocks of the last :data:`OPENCLAW_AUDIT_MESSAGES` summarized messages, in order.
    OpenClaw joins them and takes the first ``limit`` distinct opaque identifiers (:data:`_OPAQUE`; pure hex
    compared without case, shorter than four characters ignored), and fails a summary that does not contain each
    verbatim. The identifier can be part of a token (the absolute tail of a relative path, a URL glued to
    punctuation); a summary that holds the whole token holds the part, so the whole token is returned when it is an
    identifier itself (:func:`is_identifier`), else the audit's value alone (``1772441000208``, not the
    ``:1772441000208`` of a JSON log line).
    """
    text = "\n".join(t for t in (t.strip() for t in texts) if t)
    seen: set[str] = set()
    found: list[str] = []
    for match in _OPAQUE.finditer(text):
        raw = match.group(1) or match.group(2)
        if not raw:
            continue  # a number, consumed so its digits are not read as an identifier
        value = _opaque(raw)
        if len(value) < 4 or value in seen:
            continue
        seen.add(value)
        start = match.start(1) if match.group(1) else match.start(2)
        token = _token_around(text, start, start + len(raw))
        whole = value.upper() in token.upper() and (is_identifier(token) or is_location(token))
        found.append(token if whole else value)
        if len(seen) >= limit:
            break
    return list(dict.fromkeys(found))
