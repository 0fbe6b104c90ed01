"""Every place the app leans on Textual's private names, in one module (docs/architecture.md, Textual shims).

Textual is pinned (pyproject.toml); each shim below names the Textual version it was written against, the
upstream issue or pull request when one exists, and what to do once upstream changes. Each has a canary in
``tests/tui/test_textual_compat.py`` that checks the upstream behaviour making the shim necessary and fails,
naming the shim to delete, once that behaviour is gone. Nothing outside this module imports a private Textual
module or touches a private Textual attribute.
"""

from __future__ import annotations

from typing import Any

# Textual 8.2.8 memoizes ``StylesCache.get_inner_outer`` with ``functools.lru_cache`` on the method, so the memo's
# keys hold up to 1,024 style caches of widgets long gone, with the lines they rendered: upstream
# https://github.com/Textualize/textual/issues/6665 (open).
from textual._styles_cache import StylesCache
from textual.app import App
from textual.dom import DOMNode
from textual.widgets import Footer

# The footer's key widget. Textual 8.2.8 defines it in the private module and does not export it from
# ``textual.widgets`` (no upstream issue found; source:
# https://github.com/Textualize/textual/blob/v8.2.8/src/textual/widgets/_footer.py). Once ``textual.widgets``
# exports it, import it from there and delete this line.
from textual.widgets._footer import FooterKey

__all__ = ["FooterKey", "ToastsOff", "bind_key", "footer_keys_ready", "forget_style_memo",
           "mark_footer_keys_ready", "notifications_enabled"]


# -- Footer --------------------------------------------------------------------------------------------------------
# Textual 8.2.8's Footer composes nothing until its private reactive ``_bindings_ready`` is set by the first bindings
# refresh, then recomposes on every refresh whether or not its keys changed (no upstream issue found; source:
# https://github.com/Textualize/textual/blob/v8.2.8/src/textual/widgets/_footer.py, ``compose`` and
# ``bindings_changed``). tui/widgets/footer.py composes the keys at once and recomposes only on a change: once the
# Footer does both itself, delete these two functions and KeyFooter.

def mark_footer_keys_ready(footer: Footer) -> None:
    """Let ``footer`` compose its keys now, before the first bindings refresh (no watcher runs)."""
    footer.set_reactive(Footer._bindings_ready, True)


def footer_keys_ready(footer: Footer) -> bool:
    """Whether ``footer``'s screen has said which keys it has (Textual's own flag)."""
    return bool(footer._bindings_ready)


# -- Style memo ----------------------------------------------------------------------------------------------------

def forget_style_memo() -> None:
    """Forget Textual's memo of widgets' inner and outer colours (textual#6665): recomputing a pair is cheap.

    After nine opens of a session and its compact dialog the memo held 180,000 objects for the collector to scan
    (a full collection of 62 ms instead of 12; tui/gc_pacing.py). Once #6665 is fixed, delete this function and
    its call.
    """
    memo = getattr(StylesCache.get_inner_outer, "cache_clear", None)
    if memo is not None:
        memo()


# -- Notifications -------------------------------------------------------------------------------------------------
# Textual 8.2.8 draws every notification as a toast floating over the screen, and has no public switch to stop it;
# the app shows its notices on each screen's notice line instead (tui/widgets/notice_line.py). No upstream issue
# found; source: https://github.com/Textualize/textual/blob/v8.2.8/src/textual/app.py (``_refresh_notifications``,
# ``_disable_notifications``).

class ToastsOff:
    """Mixed into the App before :class:`~textual.app.App`: Textual's toasts are never drawn.

    Textual still records each notification (``Notify`` reaches the app and its message hooks); only the toast rack
    is never told about them. Once Textual has a public way to keep toasts off the screen, use it and delete this.
    """

    def _refresh_notifications(self) -> None:
        """Textual's hook that hands the notifications to the screen's toast rack: nothing to hand."""


def notifications_enabled(app: App[Any]) -> bool:
    """Whether the app shows notifications at all: ``run_test(notifications=False)`` (as the snapshot tests run)
    turns them off, and Textual keeps that only in a private flag."""
    return not app._disable_notifications


# -- Bindings ------------------------------------------------------------------------------------------------------
# Textual 8.2.8 can add a binding at run time only on the App (``App.bind``); a screen whose key's description
# depends on the instance (the compact dialog's "Compact" or "Prune") binds through its private bindings map.
# Upstream: https://github.com/Textualize/textual/issues/5477 (open). Once screens and widgets have ``bind``, call it
# and delete this function.

def bind_key(node: DOMNode, keys: str, action: str, description: str, *, key_display: str | None = None,
             priority: bool = False) -> None:
    """Bind ``keys`` to ``action`` on this ``node`` only (not its class), in place of any binding of those keys the
    node already has (Textual's ``bind`` adds a second one, so a changed description would show twice)."""
    for key in keys.split(","):
        node._bindings.key_to_bindings.pop(key.strip(), None)
    node._bindings.bind(keys, action, description, key_display=key_display, priority=priority)
