"""Every notice of this run, newest first: what the notice line showed, and what it only filed (routine ones)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.notifier import Said
from tui.shown import shown
from tui.widgets.footer import KeyFooter

__all__ = ["NoticesScreen"]

_COLOR = {"information": "$text-accent", "warning": "$text-warning", "error": "$text-error"}


class NoticesScreen(ModalScreen[None]):
    """The notices history; escape or n closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close"),
        Binding("n", "dismiss", "Close", show=False),
    ]

    def __init__(self, said: Sequence[Said]) -> None:
        super().__init__(id="notices")
        self._said = tuple(said)

    def compose(self) -> ComposeResult:
        lines: list[Content] = [Content.styled(f"Notices ({len(self._said)})", "bold $text-accent")]
        if not self._said:
            lines.append(Content.styled("Nothing said yet.", "$text-muted"))
        for item in reversed(self._said):
            when = datetime.fromtimestamp(item.at).strftime("%H:%M:%S")
            filed = Content.styled("  (filed: routine)", "$text-muted") if item.routine else Content("")
            # Notices quote keys, names and paths from the session: shown as text, controls made visible.
            lines.append(Content.assemble(
                (f"{when} ", "$text-muted"), shown(f"{item.title or item.severity}: ", f"bold {_COLOR[item.severity]}"),
                shown(item.text, one_line=False), filed))
        with VerticalScroll(id="notices-box"):
            yield Static(Content("\n").join(lines))
        yield KeyFooter(compact=True)
