"""Polarity: words that negate, words that undo, and opposite actions (English and folded Serbian).

A text's polarity is what :mod:`engine.capture.language.canonical` records so that duplicate detection keeps
apart "Notify customers" / "Do not notify customers" and "Enable SSR" / "Disable SSR", and keeps together
"Don't show the banner" / "Hide the banner" (both put the axis ``show`` on its negative side).
"""

from __future__ import annotations


def _set(words: str) -> frozenset[str]:
    """The whitespace-separated words of ``words``."""
    return frozenset(words.split())


NEGATED_FORMS = {
    "unused": "use", "unpaid": "pay", "unread": "read", "unsigned": "sign", "untested": "test",
    "unassigned": "assign", "unchanged": "change", "untouched": "touch", "unsupported": "support",
    "inactive": "active", "incomplete": "complete", "unfinished": "finish", "undocumented": "document",
    "unencrypted": "encrypt", "unverified": "verify", "unapproved": "approve", "unreleased": "release",
    "netaknut": "taknut", "netaknuto": "taknut", "netaknuta": "taknut", "nekoriscen": "koriscen",
    "nekorisceni": "koriscen", "neplacen": "placen", "neplaceni": "placen", "neplacena": "placen",
    "netestiran": "testiran", "nepotpisan": "potpisan",
}
"""Words that carry their own negation: "unused" reads as "not" + "use"."""

AXES = {
    "add": ("add", 1),
    "create": ("add", 1),
    "remove": ("add", -1),
    "keep": ("keep", 1),
    "enable": ("enable", 1),
    "disable": ("enable", -1),
    "run": ("run", 1),
    "shut_down": ("run", -1),
    "start": ("start", 1),
    "stop": ("start", -1),
    "resume": ("pause", -1),
    "pause": ("pause", 1),
    "open": ("open", 1),
    "close": ("open", -1),
    "merge": ("merge", 1),
    "split": ("merge", -1),
    "include": ("include", 1),
    "exclude": ("include", -1),
    "lock": ("lock", 1),
    "unlock": ("lock", -1),
    "allow": ("allow", 1),
    "block": ("allow", -1),
    "accept": ("accept", 1),
    "decline": ("accept", -1),
    "public": ("public", 1),
    "private": ("public", -1),
    "buy": ("buy", 1),
    "sell": ("buy", -1),
    "book": ("arrange", 1),
    "renew": ("arrange", 1),
    "cancel": ("arrange", -1),
    "increase": ("increase", 1),
    "decrease": ("increase", -1),
    "upgrade": ("upgrade", 1),
    "downgrade": ("upgrade", -1),
    "show": ("show", 1),
    "hide": ("show", -1),
    "above": ("above", 1),
    "below": ("above", -1),
    "big": ("big", 1),
    "small": ("big", -1),
}
"""Concepts on an axis with a sign: two texts that put the same axis in opposite signs differ."""
EN_NEGATORS = _set(
    "not no never don't dont doesn't didn't won't wont can't cannot shouldn't mustn't isn't aren't wasn't "
    "without nobody none nothing nowhere neither nor ban banned bans forbid forbidden prohibit prohibited "
    "disallow disallowed avoid skip"
)
UNDO = _set("revert undo roll_back rollback reverse")
"""Words that undo the action after them ("Roll back the upgrade"): a negation of that action."""

SR_NEGATORS = _set(
    "ne nemoj nemojte nije nisu nismo niste nisam necemo necu nece nikad nikada bez niko nista nicega nema "
    "nemamo zabrani zabraniti zabranjeno zabranjen"
)
NEGATORS = EN_NEGATORS | SR_NEGATORS
"""Words that flip the statement they are in."""
KEEP_OPPOSITES = frozenset({"remove"})
"""Concepts that are also the opposite of keeping (removing is the opposite of adding and of keeping)."""
