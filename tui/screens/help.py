"""The help modal: the keys of the screen it was opened from (with why any is unavailable) and the gauge legend."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.dialogs.notice_keys import NOTICE_KEYS
from tui.shown import shown

__all__ = ["HelpScreen", "KeyHelp", "keys_of"]

_LEGEND = (
    ("G", "$text-warning", "gauge line (70%): the agent is shown the gauge from here"),
    ("C", "$text-warning", "checkpoint line (80%): ctxscope writes a checkpoint"),
    ("F", "$text-secondary", "memory-flush points (50/75/90%)"),
    ("M", "$text-error", "pre-compaction margin: checkpoint before the agent compacts"),
    ("K", "$text-error", "the agent's own compaction line (window − reserve)"),
)


@dataclass(frozen=True, slots=True)
class KeyHelp:
    """One key as the help lists it."""

    key: str
    description: str
    unavailable: str | None = None
    """Why the action cannot run right now, if it cannot."""


def keys_of(app: App[None], unavailable: Callable[[str], str | None]) -> list[KeyHelp]:
    """Every ctxscope key bound on the app's current screen that has a description (shown in the footer or not),
    with why a control key cannot run now; generated from the bindings so the help never misses one.

    Textual's own defaults (tab, ctrl+q, "super+c Copy selected text", a table's "Page Left") are left out: they
    buried ctxscope's keys under twenty lines. Keys doing the same thing share a line (``↓ j  Move down``)."""
    lines: dict[tuple[str, str | None], list[str]] = {}
    seen: set[str] = set()
    for active in app.screen.active_bindings.values():
        binding = active.binding
        # The palette's own binding is the line added below, which says what the palette holds (it was listed twice).
        if not binding.description or binding.key in seen or binding.action == "command_palette":
            continue
        if (binding.key, binding.action) not in _declared_by_ctxscope(active.node):
            continue
        seen.add(binding.key)
        reason = unavailable(binding.action) if not active.enabled else None
        lines.setdefault((binding.tooltip or binding.description, reason), []).append(app.get_key_display(binding))
    keys = [KeyHelp(" ".join(shown_keys), description, reason) for (description, reason), shown_keys in lines.items()]
    keys.append(KeyHelp("ctrl+p", "Command palette: every action by name"))
    return keys


def _declared_by_ctxscope(node: object) -> set[tuple[str, str]]:
    """The (key, action) pairs bound by ``node``'s classes that belong to ctxscope, not those it inherits from
    Textual."""
    pairs: set[tuple[str, str]] = set()
    for cls in type(node).__mro__:
        if cls.__module__.partition(".")[0] == "tui":
            pairs.update((b.key, b.action) for b in Binding.make_bindings(cls.__dict__.get("BINDINGS", ())))
    return pairs


class HelpScreen(ModalScreen[None]):
    """Lists ``keys`` and explains the gauge; any of escape, q or ? closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close"),
        Binding("q", "dismiss", "Close", show=False),
        Binding("question_mark", "dismiss", "Close", show=False),
        *NOTICE_KEYS,
    ]

    def __init__(self, keys: Sequence[KeyHelp]) -> None:
        super().__init__(id="help")
        self._keys = tuple(keys)

    def compose(self) -> ComposeResult:
        width = max((len(k.key) for k in self._keys), default=3)
        lines: list[Content] = [Content.styled("Keys", "bold $text-accent")]
        for item in self._keys:
            # The reason may name the session or its lock file: shown, never parsed.
            note = shown(f"  — {item.unavailable}", "$text-muted") if item.unavailable else Content("")
            lines.append(Content.assemble((f" {item.key:>{width}}  ", "bold $text-primary"), item.description, note))
        lines.append(Content.styled(
            " k is Compact on every screen, so lists move up with ↑; in a dialog's list k moves up.", "$text-muted"))
        lines += [Content(""), Content.styled("Gauge markers", "bold $text-accent")]
        lines += [Content.assemble((f" {glyph}  ", f"bold {color}"), text) for glyph, color, text in _LEGEND]
        lines += [
            Content(""),
            Content.styled(
                "UNKNOWN means the agent compacted and has not replied since: the next reply reports the size.",
                "$text-muted",
            ),
            Content.styled("Press esc to close.", "$text-muted"),
        ]
        with VerticalScroll(id="help-body") as body:
            body.border_title = "ctxscope help"
            yield Static(Content("\n").join(lines))
