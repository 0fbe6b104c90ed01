"""Textual's Footer, rebuilt only when the keys it shows change.

Textual (8.2) recomposes the Footer on every bindings refresh of its screen: a screen opening over it, focus settling,
the screen resuming. Opening the session view composed its footer empty, then recomposed it three times, and
recomposed the list's once; each of the ~15 keys was styled twice (mounted, then restyled for its ``-compact`` class):
about half of the time to open the screen.
"""

from __future__ import annotations

from collections.abc import Iterator

from rich.cells import cell_len
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer

from tui.textual_compat import FooterKey, footer_keys_ready, mark_footer_keys_ready

__all__ = ["KeyFooter"]


class KeyFooter(Footer):
    """A :class:`~textual.widgets.Footer` that recomposes once per change of the keys it shows."""

    def __init__(self, *, compact: bool = False) -> None:
        super().__init__(compact=compact)
        self._shown: object = None
        self._pending = False

    def compose(self) -> Iterator[Widget]:
        # The keys from the first compose on: Textual's footer starts empty and fills itself on the first bindings
        # refresh, a second mount and layout while the screen opens.
        mark_footer_keys_ready(self)
        self._shown = self._keys()
        widgets = list(super().compose())
        palette = [w for w in widgets if isinstance(w, FooterKey) and w.has_class("-command-palette")]
        # Keys that overflow slide under the palette key docked on the right, and a sliver of one showed beside it
        # (a stray "i" at 80 columns): the keys that do not fit are left out (they are all in the palette and `?`).
        room = self.app.size.width - sum(_cells(w) + 1 for w in palette)  # + its left border
        for widget in widgets:
            if isinstance(widget, FooterKey) and self.compact:
                # Already compact when mounted: the key's own watcher would restyle it for the class.
                widget.set_class(True, "-compact", update=False)
                if widget not in palette:
                    room -= _cells(widget) + 1  # + the compact key's right margin
                    if room < 0:
                        continue
            yield widget

    def on_resize(self) -> None:
        if self.compact and self._keys() != self._shown:
            self.call_after_refresh(self._recompose_if_changed)

    def _keys(self) -> object:
        """What the footer shows: the screen's keys with their state, or ``None`` before the bindings are ready."""
        if not footer_keys_ready(self):
            return None
        palette = self.app.COMMAND_PALETTE_BINDING
        return (self.compact, self.show_command_palette, self.app.size.width, tuple(
            (binding, enabled, tooltip) for key, (_, binding, enabled, tooltip) in self.screen.active_bindings.items()
            if binding.show or key == palette))

    def bindings_changed(self, screen: Screen[object]) -> None:
        mark_footer_keys_ready(self)
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen or self._pending:
            return
        self._pending = True
        self.call_after_refresh(self._recompose_if_changed)

    async def _recompose_if_changed(self) -> None:
        self._pending = False
        if self.is_attached and self._keys() != self._shown:
            await self.recompose()


def _cells(key: FooterKey) -> int:
    """Cells a compact key takes: its key, a space, its description."""
    return cell_len(key.key_display) + (1 + cell_len(key.description) if key.description else 0)
