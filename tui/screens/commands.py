"""Palette commands: the App's (help, usage, the controls with why one is unavailable) and each screen's own
(filter the list, switch a session's tab, go back)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial

from textual.app import SystemCommand
from textual.screen import Screen

from tui.controls import CONTROL_SPECS
from tui.screens.session_list import SessionListScreen
from tui.screens.session_view import TABS, SessionScreen
from tui.shown import shown_markup

__all__ = ["app_commands", "screen_commands"]


def screen_commands(screen: Screen[object], back: Callable[[], object]) -> Iterable[SystemCommand]:
    """The commands the command palette offers for ``screen`` besides the App's controls."""
    if isinstance(screen, SessionListScreen):
        yield SystemCommand("Filter sessions", "Show only sessions whose key, file, model or project matches",
                            screen.action_filter)
        yield SystemCommand("Exported metrics", "Show or hide the values `ctxscope watch --metrics` exports",
                            screen.action_toggle_metrics)
    if isinstance(screen, SessionScreen):
        yield SystemCommand("Back to sessions", "Return to the session list", back)
        yield SystemCommand("Top consumers", "Choose among the largest context messages and preview a prune of "
                            "exactly those", screen.action_top_consumers)
        for tab in TABS:
            yield SystemCommand(f"Show {tab}", f"Switch to the {tab.title()} tab",
                                partial(screen.show_tab, tab, focus=True))


def app_commands(help_: Callable[[], object], usage: Callable[[], object], run_control: Callable[[str], object],
                 unavailable: Callable[[str], str | None]) -> Iterable[SystemCommand]:
    """The commands every screen offers: help, the usage report and each control, saying why one cannot run."""
    yield SystemCommand("Help", "Keys of this screen and what the gauge markers mean", help_)
    yield SystemCommand("Usage report", "Tokens, cost, cache hits and compactions of every session by day, model "
                        "and project", usage)
    for spec in CONTROL_SPECS:
        reason = unavailable(spec.action)
        # The palette parses help as markup; the reason may name the session or its lock file.
        help_text = shown_markup(f"{spec.help} (unavailable: {reason})") if reason else spec.help
        yield SystemCommand(spec.title, help_text, partial(run_control, spec.action))
