"""An approval that carries the user's own order: "yes, fix plugin.json" (docs/capture.md, round 15).

A yes to the agent's offer confirms the offer; when the user goes on, in the same short reply, to say what to do
("yes choose Version B and  move on to issue #2 and the rest.", "ok proceed with TypeScript", "yes pls put them into a
dist dir instead"), those words are the decision as the user made it, and the offer is what they agree to. The
issue's definition of a decision -- a confirmed proposal or an instruction that sets direction -- covers both at once;
the user's words name the choice ("Version B", "a dist dir") where the agent's offer listed several.
"""

from __future__ import annotations

import re
from typing import Final

from engine.capture.act_forms import ACK as _ACK
from engine.capture.act_forms import APPROVAL as _APPROVAL
from engine.capture.act_forms import LEAD as _LEAD

__all__ = ["order_beyond_yes"]

_YES_WORDS: Final = re.compile(r"^(?:and|then|pls|please|do|that)\b[\s,.!:;—–-]*", re.I)
_WORD: Final = re.compile(r"[A-Za-z0-9_./#@`-]+")


def order_beyond_yes(reply: str) -> str | None:
    """The reply itself when, after its yes ("yes", "ok", "okay", "sure" …), it says what to do in at least two more
    words; ``None`` for a bare yes ("yes", "ok go ahead", "yeah do it", "Yes..", "yes, thanks")."""
    rest = " ".join(reply.split())
    for _ in range(6):
        before = rest
        for pattern in (_APPROVAL, _ACK, _LEAD, _YES_WORDS):
            match = pattern.match(rest)
            if match and match.end():
                rest = rest[match.end():].lstrip(" ,.!:;—–-")
        if rest == before:
            break
    if len(_WORD.findall(rest)) < 2:
        return None
    return " ".join(reply.split())
