"""The user's own next steps at the end of a conversation (docs/capture.md, round 12).

A last question that asks how to go on ("how to install the tailwind?", 我自己该怎么运行, 接下来该做些什么了) is
answered by steps the user is to carry out, not by work the agent did: when the conversation ends there, those steps
are still open. The item is the question with the steps the answer gives -- the commands it shows, else its first
numbered step -- after the outcome mark, so it says what is still to do.
"""

from __future__ import annotations

import re
from typing import Final

from engine.capture.response_lines import clean
from engine.capture.whole_text import clip_words

__all__ = ["asks_how_to_proceed", "commands_left", "steps_in"]

_HOW_TO_PROCEED: Final = re.compile(
    r"\bhow (?:do|can|should) (?:i|we)\b|\bhow to\b|\bwhat (?:should|do) (?:i|we) do\b|\bwhat(?:'s| is) next\b"
    r"|\bnext steps?\b"
    r"|(?:接下来|下一步)[^，。,？?]{0,6}(?:做|干)|(?:该|要)?(?:怎么|如何)(?:运行|安装|使用|用|跑|启动|部署|操作)"
    r"|どうやって|次に何",
    re.I,
)
"""A question about how the user goes on: how to do or run something, or what to do next."""
_COMMAND: Final = re.compile(
    r"^\s*(?:\$\s*)?(?:python3?|pip3?|npm|npx|yarn|pnpm|uv|conda|cargo|go|node|make|docker|pytest|git|jj)\s+\S.*$",
    re.M)
_LISTED_COMMAND: Final = re.compile(
    r"^\s*(?:\d+[.)]|[-*])\s+`(?P<command>(?:git|jj|npm|pnpm|yarn|npx)\s+[^`\n]+)`", re.M)
"""A command as a list item in backticks: "1. `git add .`" (coda d105)."""
_LEFT_TO_USER: Final = re.compile(
    r"\bi can(?:no|['\u2019])?t \w+ (?:\w+ )?from here\b|\byou can finish (?:it|this|that)\b|以下を実行してください",
    re.I)
"""The agent hands the rest of the work to the user: "I can\u2019t push from here, but you can finish it in a couple of
commands:" (coda d105), "以下を実行してください:" before the jj push commands (tij d95)."""
_NUMBERED: Final = re.compile(r"^\s*(?:1[.)、]|①)\s*(?P<step>\S.*)$", re.M)
STEPS_CHARS: Final = 200
"""Cap on the steps an item carries: the commands of a how-to answer, or its first numbered step."""


def asks_how_to_proceed(question: str) -> bool:
    """Whether ``question`` asks how the user goes on (how to do or run something, what to do next)."""
    return bool(_HOW_TO_PROCEED.search(question))


def steps_in(answer: str) -> str:
    """The steps ``answer`` gives the user: its distinct commands in order ("python pretrain.py; python
    linear_probe.py"), else its first numbered step, else nothing."""
    commands: list[str] = []
    for match in _COMMAND.finditer(answer):
        command = " ".join(match.group(0).split()).removeprefix("$ ")
        if command not in commands:
            commands.append(command)
    if commands:
        return clip_words("; ".join(commands), STEPS_CHARS)
    numbered = _NUMBERED.search(answer)
    return clip_words(clean(numbered.group("step")), STEPS_CHARS) if numbered else ""


def commands_left(answer: str) -> str:
    """The commands ``answer`` leaves the user to run to finish the work (docs/capture.md, round 30): its shell lines
    and listed commands in order, when it says the rest is the user's; else nothing."""
    if not _LEFT_TO_USER.search(answer):
        return ""
    found = sorted([(m.start(), " ".join(m.group(0).split()).removeprefix("$ ")) for m in _COMMAND.finditer(answer)]
                   + [(m.start(), " ".join(m.group("command").split())) for m in _LISTED_COMMAND.finditer(answer)])
    commands: list[str] = []
    for _, command in found:
        if command not in commands:
            commands.append(command)
    return clip_words("; ".join(commands), STEPS_CHARS) if commands else ""
