"""The files a shell command plainly reads or writes, for a checkpoint's resources (docs/checkpoints.md, Tools
and files).

An agent's shell tool (pi's ``bash``, Claude Code's ``Bash``, Codex's ``shell_command``) edits files as often as its
edit tools do: ``sed -i``, ``perl -pi``, ``cat > file << 'EOF'``, ``tee``, a redirection. The command is split
into words (quotes kept together) and simple commands (``;``, ``&&``, ``||``, ``|``, one per line); a heredoc's
body is data, not commands. Only forms whose file is plain are read: a glob, a variable, ``/dev/…`` or a descriptor
(``2>&1``) names no file. A command that cannot be split (an open quote) gives nothing rather than a guess.
"""

from __future__ import annotations

import re
import shlex
from typing import Final

__all__ = ["shell_files"]

_OPERATORS: Final = frozenset({";", "&&", "||", "|", "&", "|&", ";;", "(", ")"})
_REDIRECT: Final = re.compile(r"^(?:\d|&)?(>>?|>\|)$")
_HEREDOC: Final = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][\w-]*)\1")
_READERS: Final = frozenset({"cat", "head", "tail", "less", "wc"})
_PLAIN: Final = re.compile(r"^[\w./~@+,:=-]+$")
"""A file name as a command names it: no glob, variable, substitution or brace."""
_MAX_LINES: Final = 200
_MAX_LINE_CHARS: Final = 4_000
"""A longer line is a generated script or pasted data, not a command naming its file plainly; splitting it into
words goes character by character (a megabyte took seconds), so it is left unread."""
_MAX_FILES: Final = 100
_MAY_NAME: Final = re.compile(r">|\b(?:tee|touch|sed|perl|cat|head|tail|less|wc)\b")
"""Splitting into words is the slow part: a command with none of these names no file this module reads."""


def shell_files(command: str) -> tuple[list[str], list[str]]:
    """The files ``command`` reads and writes, in the order named (duplicates kept: the caller keeps them unique)."""
    read: list[str] = []
    written: list[str] = []
    if not _MAY_NAME.search(command):
        return read, written
    for line in _command_lines(command):
        if len(line) > _MAX_LINE_CHARS or len(read) + len(written) >= _MAX_FILES:
            continue
        try:
            lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|()<>")
            lexer.whitespace_split = True
            lexer.commenters = "#"
            words = list(lexer)
        except ValueError:  # an open quote: the words cannot be told apart
            continue
        simple: list[str] = []
        for word in [*words, ";"]:
            if word in _OPERATORS:
                _simple_files(simple, read, written)
                simple = []
            else:
                simple.append(word)
    return read, written


def _command_lines(command: str) -> list[str]:
    """The command's lines with each heredoc's body left out (it is the file's text, not commands)."""
    lines = command.splitlines()[:_MAX_LINES]
    out: list[str] = []
    ending: list[str] = []
    for line in lines:
        if ending:
            if line.strip() == ending[0]:
                ending.pop(0)
            continue
        out.append(line)
        ending.extend(m.group(2) for m in _HEREDOC.finditer(line))
    return out


def _plain(word: str) -> bool:
    return bool(_PLAIN.match(word)) and not word.startswith(("/dev/", "-"))


def _simple_files(words: list[str], read: list[str], written: list[str]) -> None:
    args: list[str] = []
    index = 0
    redirected_out = False
    while index < len(words):
        word = words[index]
        if _REDIRECT.match(word) or word in (">", ">>"):
            target = words[index + 1] if index + 1 < len(words) else ""
            if target.startswith("&") or target == "&":  # 2>&1: a descriptor, not a file
                index += 2
                continue
            if _plain(target):
                written.append(target)
            redirected_out = True
            index += 2
            continue
        if word in ("<", "<<", "<<-", "<<<"):
            index += 2  # an input redirection's word is its source or a heredoc's delimiter
            continue
        args.append(word)
        index += 1
    while args and "=" in args[0] and _PLAIN.match(args[0]) and not args[0].startswith("-"):
        args.pop(0)  # VAR=value before the program
    if not args:
        return
    program, rest = args[0].rsplit("/", 1)[-1], args[1:]
    if program in ("tee", "touch"):
        written.extend(w for w in rest if _plain(w))
    elif program == "sed":
        written.extend(_sed_in_place(rest))
    elif program == "perl":
        written.extend(_perl_in_place(rest))
    elif program in _READERS and not redirected_out:
        read.extend(w for w in rest if _plain(w) and not w.isdigit())  # "head -n 20 f": 20 is a count


def _sed_in_place(args: list[str]) -> list[str]:
    """The files ``sed`` edits in place: none without ``-i``; after the script otherwise."""
    in_place = False
    script_given = False
    files: list[str] = []
    index = 0
    while index < len(args):
        word = args[index]
        if word in ("-i", "--in-place") or (word.startswith(("--in-place=", "-i")) and not word.startswith("-i=")):
            in_place = True
            # BSD sed takes the backup suffix as the next word ("sed -i '' …"); a script is never empty or ".bak".
            if word == "-i" and index + 1 < len(args) and (args[index + 1] == "" or re.match(
                    r"^\.\w+$", args[index + 1])):
                index += 1
        elif word in ("-e", "-f", "--expression", "--file"):
            script_given = True
            index += 1
        elif word.startswith("-") and word != "-":
            if "i" in word[1:] and not word.startswith("--"):
                in_place = True  # -Ei, -ni
        elif not script_given:
            script_given = True  # the first plain word is the script
        elif _plain(word):
            files.append(word)
        index += 1
    return files if in_place else []


def _perl_in_place(args: list[str]) -> list[str]:
    """The files ``perl -pi -e '…' FILE`` edits: none without ``-i``."""
    in_place = any(w.startswith("-") and not w.startswith("--") and "i" in w[1:] for w in args)
    if not in_place:
        return []
    files: list[str] = []
    index = 0
    while index < len(args):
        word = args[index]
        if word in ("-e", "-E") or (word.startswith("-") and word.endswith(("e", "E")) and len(word) > 2):
            index += 2  # the script after -e / -pie
            continue
        if not word.startswith("-") and _plain(word):
            files.append(word)
        index += 1
    return files
